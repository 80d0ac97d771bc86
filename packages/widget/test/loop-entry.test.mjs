// @canvas-ai/widget/loop is for hosts without Lit: no module in its import graph may import lit, @lit/* or deep-chat.
// Runs in Node (node --test), since it needs a bundler. Two views of the graph:
// - the runtime one: esbuild bundles the entry as a host's bundler would, nothing external, and its metafile lists
//   every module loaded (tree-shaken or not, the protocol and node_modules included) with every import it makes;
// - the declarations' one: type-only imports are gone from a bundle, so the widget's own sources are walked from the
//   entry along every relative import, `import type` included, since a host's type-check follows those too.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('..', import.meta.url));
const UI_PACKAGE = /^(lit|lit-html|lit-element|deep-chat)(\/|$)|^@lit(-labs)?\//;
const UI_MODULE = /(^|\/)node_modules\/(lit|lit-html|lit-element|deep-chat|@lit|@lit-labs)\//;
const SPECIFIER = /\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g;

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

/** lit and deep-chat named by any import, type-only ones included, of the widget's sources reachable from `entry`. */
async function uiInSources(entry) {
  const seen = new Set();
  const found = [];
  const visit = async (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = await readFile(file, 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2];
      if (UI_PACKAGE.test(specifier)) found.push(`${relative(here, file)} → ${specifier}`);
      if (specifier.startsWith('.')) await visit(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
    }
  };
  await visit(join(here, entry));
  return { files: [...seen].map((file) => relative(here, file)), ui: found };
}

describe('the @canvas-ai/widget/loop entry', () => {
  it('loads no lit, @lit/* or deep-chat module, anywhere in its runtime graph', async () => {
    const { modules, ui } = await uiInBundle('src/loop.ts');

    assert.ok(modules.includes('src/hop-loop.ts'), 'the loop itself is in the bundle');
    assert.ok(
      modules.some((path) => path.includes('protocol/src/wire/')),
      'so are the protocol wire schemas it validates with',
    );
    assert.deepEqual(ui, []);
  });

  it('names none of them in any import of its own sources, type-only ones included', async () => {
    const { files, ui } = await uiInSources('src/loop.ts');

    assert.ok(files.includes('src/retry.ts'), `the walk reached the loop's modules: ${files.join(', ')}`);
    assert.deepEqual(ui, []);
  });

  it('(both checks find lit in the root entry, which holds the element)', async () => {
    const bundled = await uiInBundle('src/index.ts');
    const sources = await uiInSources('src/index.ts');

    assert.ok(
      bundled.ui.some((line) => line.includes('node_modules/lit/')),
      `lit is in the root's bundle: ${bundled.ui.join(', ')}`,
    );
    assert.ok(
      sources.ui.includes('src/canvas-ai-chat/deep-chat-theme.ts → deep-chat'),
      `the root's sources import deep-chat's types: ${sources.ui.join(', ')}`,
    );
  });
});
