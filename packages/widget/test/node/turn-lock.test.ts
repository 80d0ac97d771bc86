// One chat takes a kept turn up at a time (src/turn-lock.ts): with the Web Locks API (Node has it, as browsers do)
// and with the lock within the page that stands in where the API is missing.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { whileHoldingTurn } from '../../src/turn-lock.js';

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

function lockContract() {
  it('lets one holder of a turn work at a time, in the order they asked', async () => {
    const log: string[] = [];
    const first = gate();
    const a = whileHoldingTurn('turn-1', async () => {
      log.push('a starts');
      await first.promise;
      log.push('a ends');
      return 'a';
    });
    const b = whileHoldingTurn('turn-1', async () => {
      log.push('b starts');
      return 'b';
    });
    // Another turn's lock is another lock: it does not wait.
    assert.equal(await whileHoldingTurn('turn-2', async () => 'other'), 'other');
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(log, ['a starts'], 'b waits while a holds the turn');
    first.open();
    assert.deepEqual(await Promise.all([a, b]), ['a', 'b']);
    assert.deepEqual(log, ['a starts', 'a ends', 'b starts']);
  });

  it('gives up a wait at once when its signal aborts, and the holder goes on', async () => {
    const holding = gate();
    const held = whileHoldingTurn('turn-3', async () => {
      await holding.promise;
      return 'held';
    });
    const giveUp = new AbortController();
    let ran = false;
    const waiting = whileHoldingTurn(
      'turn-3',
      async () => {
        ran = true;
      },
      giveUp.signal,
    );
    giveUp.abort();
    assert.equal(await waiting, undefined);
    assert.equal(ran, false);
    holding.open();
    assert.equal(await held, 'held');
    // The lock is free again for the next one.
    assert.equal(await whileHoldingTurn('turn-3', async () => 'next'), 'next');
  });

  it('passes on an error of the work, and frees the lock', async () => {
    await assert.rejects(
      whileHoldingTurn(
        'turn-4',
        async () => {
          throw new Error('the work failed');
        },
        new AbortController().signal,
      ),
      /the work failed/,
    );
    assert.equal(await whileHoldingTurn('turn-4', async () => 'free'), 'free');
  });
}

describe('whileHoldingTurn with the Web Locks API', () => {
  it('uses it where it exists', () => {
    assert.equal(typeof globalThis.navigator?.locks?.request, 'function');
  });
  lockContract();
});

describe('whileHoldingTurn without it (a lock within the page)', () => {
  const original = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  beforeEach(() => {
    Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true });
  });
  afterEach(() => {
    if (original) Object.defineProperty(globalThis, 'navigator', original);
  });
  lockContract();
});
