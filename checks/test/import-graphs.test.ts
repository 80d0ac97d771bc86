// What an entry may pull in, read from the sources along every import (type-only ones too, since a host's type-check
// follows those): the in-page mock stays free of Node, the widget's /loop entry free of lit and deep-chat, and the
// protocol package's folders import each other one way only.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { folderCycles, importGraph, type ImportEdge } from '../src/import-graph.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bare = (imports: readonly ImportEdge[]) =>
  new Set(imports.filter((edge) => edge.to === undefined).map((edge) => edge.specifier));

describe('@canvas-ai/reference-server/mock', () => {
  it('imports nothing Node-only: no node:* module, no ioredis, no Node adapter', () => {
    const { files, imports } = importGraph(root, 'packages/reference-server/src/mock.ts');
    assert.ok(files.includes('packages/reference-server/src/app.ts'), 'the walk reached createApp');
    const nodeOnly = [...bare(imports)].filter(
      (specifier) => specifier.startsWith('node:') || ['ioredis', '@hono/node-server'].includes(specifier),
    );
    assert.deepEqual(nodeOnly, []);
    assert.ok(!files.includes('packages/reference-server/src/index.ts'), 'index.ts pulls the Redis store');
  });
});

describe('@canvas-ai/widget/loop', () => {
  const widget = 'packages/widget/';
  const UI_PACKAGE = /^(lit|lit-html|lit-element|deep-chat)(\/|$)|^@lit(-labs)?\//;
  /** lit and deep-chat named by any import of the widget's sources reachable from `entry`. */
  const uiInSources = (entry: string) => {
    const { files, imports } = importGraph(root, `${widget}${entry}`);
    return {
      files: files.map((file) => file.slice(widget.length)),
      ui: imports
        .filter((edge) => UI_PACKAGE.test(edge.specifier))
        .map((edge) => `${edge.from.slice(widget.length)} → ${edge.specifier}`),
    };
  };

  it('names none of them in any import of its own sources, type-only ones included', () => {
    const { files, ui } = uiInSources('src/loop.ts');
    assert.ok(files.includes('src/retry.ts'), `the walk reached the loop's modules: ${files.join(', ')}`);
    assert.deepEqual(ui, []);
  });

  it("(the walk finds deep-chat in the root entry's sources, which hold the element)", () => {
    const sources = uiInSources('src/index.ts');
    assert.ok(
      sources.ui.includes('src/canvas-ai-chat/deep-chat-theme.ts → deep-chat'),
      `the root's sources import deep-chat's types: ${sources.ui.join(', ')}`,
    );
  });
});

describe('folders of the protocol package', () => {
  // Cycles that exist today, listed so that a new one fails; remove a line when its cycle is gone.
  const KNOWN_CYCLES: string[] = [];

  it('import each other one way only, apart from the known cycles', () => {
    const cycles = folderCycles(root, 'packages/protocol/src');
    assert.deepEqual(
      cycles.filter((cycle) => !KNOWN_CYCLES.includes(cycle)),
      [],
      'a new folder cycle in packages/protocol/src',
    );
    assert.deepEqual(
      KNOWN_CYCLES.filter((cycle) => !cycles.includes(cycle)),
      [],
      `a known cycle is gone: remove it from KNOWN_CYCLES in checks/test/import-graphs.test.ts`,
    );
  });

  it('(the cycle finder finds a cycle of two folders and of three, and none in a one-way chain)', () => {
    const { files } = importGraph(root, 'packages/protocol/src/index.ts');
    assert.ok(files.length > 20, 'the walk follows the protocol root');
    assert.deepEqual(folderCycles(root, 'checks/test/support/cycles'), ['a ↔ b', 'c ↔ d ↔ e']);
  });
});
