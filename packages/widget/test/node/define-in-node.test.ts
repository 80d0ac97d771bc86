// `@canvas-ai/widget/define` in Node, as a host's server rendering imports it (Next.js, Vite SSR…): it loads without
// error, exports what the root does, and defines nothing, since Node has no `window`. deep-chat reads `window` as
// it loads, so this import would throw had /define loaded it (the last check shows that premise still holds).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const TAGS = ['canvas-ai-chat', 'canvas-ai-tool-picker', 'deep-chat'];

describe('@canvas-ai/widget/define in Node (server rendering)', () => {
  it('imports without error, exports the element classes and the loop, and defines no tag', async () => {
    assert.equal('window' in globalThis, false, 'a plain Node process has no window');

    const define = await import('../../src/define.js');

    assert.equal(typeof define.CanvasAiChat, 'function');
    assert.equal(typeof define.startTurn, 'function');
    assert.equal('window' in globalThis, false, 'no window was made up');
    // lit's Node build sets `globalThis.customElements ??=` the registry of @lit-labs/ssr-dom-shim when lit loads (the
    // classes /define exports are Lit elements), so the registry may exist; none of the tags is in it.
    for (const tag of TAGS) assert.equal(globalThis.customElements?.get(tag), undefined, `<${tag}> is not defined`);
  });

  it('(deep-chat itself cannot load in Node: the import above would have thrown)', async () => {
    await assert.rejects(import('deep-chat'), /window is not defined/);
  });
});
