// The protocol package's folders read in one order: no folder imports, directly or through others, a folder that
// imports it back (the scheduling seam in src/steps.ts and MultipartPart in attachments/ removed the last two).
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { folderCycles, folderGraph } from '../src/folder-graph.js';
import { REPO_ROOT } from '../src/public-surface.js';

describe('folder cycles', () => {
  it('finds none among the protocol package’s folders', async () => {
    const graph = await folderGraph(join(REPO_ROOT, 'packages/protocol/src'));
    assert.ok(graph.has('door') && graph.get('door')!.has('parse'), 'the graph holds the door’s imports');
    assert.deepEqual(folderCycles(graph), []);
  });

  it('names the folders of a cycle, however long', () => {
    const graph = new Map([
      ['door', new Set(['parse', 'wire'])],
      ['parse', new Set(['steps'])],
      ['steps', new Set(['door'])],
      ['wire', new Set<string>()],
      ['layout', new Set(['wire'])],
    ]);
    assert.deepEqual(folderCycles(graph), [['door', 'parse', 'steps']]);
  });
});
