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

  it('evicts the least recently used turn when it holds maxEntries', async () => {
    const { store } = withClock({ maxEntries: 2 });
    await store.set('a', 1, 60_000);
    await store.set('b', 2, 60_000);
    await store.get('a');
    await store.set('c', 3, 60_000);
    assert.equal(store.size, 2);
    assert.equal(await store.get('b'), undefined, 'b was the least recently used');
    assert.equal(await store.get('a'), 1);
    assert.equal(await store.get('c'), 3);
  });

  it('evicts old turns when the stored JSON grows past maxBytes', async () => {
    const { store } = withClock({ maxBytes: 100 });
    await store.set('a', 'x'.repeat(60), 60_000);
    await store.set('b', 'y'.repeat(60), 60_000);
    assert.equal(await store.get('a'), undefined);
    assert.equal(await store.get('b'), 'y'.repeat(60));
  });

  it('sweeps expired turns when a new one is stored, so abandoned turns do not pile up', async () => {
    const { store, advance } = withClock();
    for (let i = 0; i < 50; i += 1) await store.set(`abandoned-${i}`, { i }, 1_000);
    await advance(2_000);
    await store.set('fresh', {}, 1_000);
    assert.equal(store.size, 1);
  });
});
