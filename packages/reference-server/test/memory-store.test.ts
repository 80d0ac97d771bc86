import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryTurnStore } from '../src/store/memory.js';
import { turnStoreContract } from './support/store-contract.js';

function withClock(options: { maxEntries?: number; maxBytes?: number } = {}) {
  let now = 1_000_000;
  const store = new MemoryTurnStore({ ...options, now: () => now });
  return {
    store,
    advance: async (ms: number) => {
      now += ms;
    },
  };
}

turnStoreContract('MemoryTurnStore', () => withClock());

describe('MemoryTurnStore bounds', () => {
  it('reads a large value back when it waits its turn (a pause): once, not forever', async () => {
    let pauses = 0;
    const store = new MemoryTurnStore({
      pause: async () => {
        pauses += 1;
        if (pauses > 10) throw new Error('the store waited again and again for the same value');
        await new Promise((resolve) => setImmediate(resolve));
      },
    });
    const large = { layout: 'x'.repeat(300 * 1024) };
    await store.set('large', large, 60_000);
    assert.deepEqual(await store.get('large'), large);
    assert.equal(pauses, 2, 'one pause to write it, one to read it');
  });

  it('reports itself full at maxEntries, and evicts nothing it holds (G1)', async () => {
    const { store } = withClock({ maxEntries: 2 });
    await store.set('a', 1, 60_000);
    assert.deepEqual(await store.usage(), { bytes: 1, full: false });
    await store.set('b', 2, 60_000);
    assert.equal((await store.usage()).full, true);
    await store.set('c', 3, 60_000);
    assert.equal(store.size, 3, 'a write past the bound is not dropped, and drops nothing');
    assert.deepEqual([await store.get('a'), await store.get('b'), await store.get('c')], [1, 2, 3]);
    await store.delete('a');
    await store.delete('b');
    assert.equal((await store.usage()).full, false, 'room comes back as values go');
  });

  it('reports itself full when the stored JSON reaches maxBytes, and evicts nothing it holds (G1)', async () => {
    const { store, advance } = withClock({ maxBytes: 100 });
    await store.set('a', 'x'.repeat(60), 60_000);
    assert.deepEqual(await store.usage(), { bytes: 62, full: false });
    await store.set('b', 'y'.repeat(60), 1_000);
    assert.deepEqual(await store.usage(), { bytes: 124, full: true });
    assert.equal(await store.get('a'), 'x'.repeat(60));
    assert.equal(await store.get('b'), 'y'.repeat(60));
    await advance(2_000);
    assert.deepEqual(await store.usage(), { bytes: 62, full: false }, 'an expired value frees its share');
  });

  it('sweeps expired turns when a new one is stored, so abandoned turns do not pile up', async () => {
    const { store, advance } = withClock();
    for (let i = 0; i < 50; i += 1) await store.set(`abandoned-${i}`, { i }, 1_000);
    await advance(2_000);
    await store.set('fresh', {}, 1_000);
    assert.equal(store.size, 1);
  });
});
