// @canvas-ai/widget/loop is for hosts without Lit: no module in its import graph may import lit, @lit/* or deep-chat.
// Runs in Node (node --test), since it needs a bundler. This is the runtime view of the graph: esbuild bundles the
// entry as a host's bundler would, nothing external, and its metafile lists every module loaded (tree-shaken or not,
// the protocol and node_modules included) with every import it makes. The declarations' view (type-only imports are
// gone from a bundle, but a host's type-check follows them) walks the sources: checks/test/import-graphs.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('..', import.meta.url));
const UI_PACKAGE = /^(lit|lit-html|lit-element|deep-chat)(\/|$)|^@lit(-labs)?\//;
const UI_MODULE = /(^|\/)node_modules\/(lit|lit-html|lit-element|deep-chat|@lit|@lit-labs)\//;

/** lit and deep-chat in the runtime graph of one entry: modules loaded, and imports naming them. */
async function uiInBundle(entry) {
  const { metafile } = await build({
    entryPoints: [entry],
    absWorkingDir: here,
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'browser',
    logLevel: 'silent',
  });
  const inputs = Object.entries(metafile.inputs);
  return {
    modules: inputs.map(([path]) => path),
    ui: [
      ...inputs.filter(([path]) => UI_MODULE.test(path)).map(([path]) => path),
      ...inputs.flatMap(([path, input]) =>
        input.imports
          .filter((item) => UI_PACKAGE.test(item.original ?? ''))
          .map((item) => `${path} → ${item.original}`),
      ),
    ],
  };
}

describe('the @canvas-ai/widget/loop entry', () => {
  it('loads no lit, @lit/* or deep-chat module, anywhere in its runtime graph', async () => {
    const { modules, ui } = await uiInBundle('src/loop.ts');

    assert.ok(modules.includes('src/hop-loop.ts'), 'the loop itself is in the bundle');
    assert.ok(modules.includes('src/chat-session.ts'), 'and the chat session over it');
    assert.ok(
      modules.some((path) => path.includes('protocol/src/check/')),
      "so are the protocol's checkers it validates with",
    );
    assert.deepEqual(ui, []);
  });

  it('(the check finds lit in the root entry, which holds the element)', async () => {
    const bundled = await uiInBundle('src/index.ts');

    assert.ok(
      bundled.ui.some((line) => line.includes('node_modules/lit/')),
      `lit is in the root's bundle: ${bundled.ui.join(', ')}`,
    );
  });

  it('bundles no reducer for a host that imports startTurn alone: undo recording comes with undoRecording', async () => {
    // The reducer and what only undo recording needs of the protocol and the widget.
    const recordingOnly = [
      'protocol/src/layout/apply-outputs.ts',
      'protocol/src/layout/conflicts.ts',
      'protocol/src/layout/tree-edit.ts',
      'src/component-places.ts',
    ];
    const lean = await modulesInOutput("import { startTurn } from './src/loop.ts';\nglobalThis.turn = startTurn;\n");
    const recording = await modulesInOutput(
      "import { startTurn, undoRecording } from './src/loop.ts';\nglobalThis.turn = [startTurn, undoRecording];\n",
    );

    assert.ok(lean.includes('src/hop-loop.ts'), 'the loop is in the bundle');
    for (const module of recordingOnly) {
      assert.ok(!lean.some((path) => path.endsWith(module)), `no ${module}: ${lean.join(', ')}`);
    }
    for (const module of recordingOnly) {
      assert.ok(
        recording.some((path) => path.endsWith(module)),
        `${module} comes with undoRecording (so the check above can fail)`,
      );
    }
  });
});

/** The modules a minified, tree-shaken bundle of `source` (an entry in this package) keeps code of. */
async function modulesInOutput(source) {
  const { metafile } = await build({
    stdin: { contents: source, resolveDir: here, loader: 'js', sourcefile: 'entry.js' },
    bundle: true,
    write: false,
    metafile: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    logLevel: 'silent',
    external: ['lit', 'lit/*', '@lit/*', 'deep-chat', 'deep-chat/*'],
  });
  const [output] = Object.values(metafile.outputs);
  return Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => path);
}
