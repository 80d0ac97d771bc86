import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LockLostError, type TurnStore } from '../../src/store/turn-store.js';

/** A store under test and a way to move its clock forward (real stores may sleep). */
export interface StoreUnderTest {
  store: TurnStore;
  advance(ms: number): Promise<void>;
}

/** The behaviour every {@link TurnStore} implementation must have; call it once per implementation. */
export function turnStoreContract(name: string, create: () => StoreUnderTest | Promise<StoreUnderTest>): void {
  describe(`${name} (turn store contract)`, () => {
    it('returns what was set, as an equal copy', async () => {
      const { store } = await create();
      const value = { kind: 'active', hop: 2, texts: ['a', 'b'], nested: { ok: true } };
      await store.set('s1:turn', value, 60_000);
      const read = await store.get('s1:turn');
      assert.deepEqual(read, value);
      assert.notEqual(read, value);
    });

    it('returns a string value as the same string, whatever it holds', async () => {
      // A large notice of a turn is stored as a string (stored-pages.ts); the stores may keep strings as they are.
      const { store } = await create();
      const strings = ['', '{"kind":"active"}', '"quoted"', '\u0001starts with the raw marker', 'line\n"é→"\\'];
      for (const [index, value] of strings.entries()) await store.set(`s1:text/${index}`, value, 60_000);
      for (const [index, value] of strings.entries()) assert.equal(await store.get(`s1:text/${index}`), value);
      await store.set('s1:json', { text: 'not a string value' }, 60_000);
      assert.deepEqual(await store.get('s1:json'), { text: 'not a string value' });
    });

    it('returns undefined for an absent key', async () => {
      const { store } = await create();
      assert.equal(await store.get('nobody:nothing'), undefined);
    });

    it('replaces a value set twice', async () => {
      const { store } = await create();
      await store.set('k', { n: 1 }, 60_000);
      await store.set('k', { n: 2 }, 60_000);
      assert.deepEqual(await store.get('k'), { n: 2 });
    });

    it('forgets a deleted key, and deleting an absent key is fine', async () => {
      const { store } = await create();
      await store.set('k', { n: 1 }, 60_000);
      await store.delete('k');
      await store.delete('k');
      assert.equal(await store.get('k'), undefined);
    });

    it('expires a value after its TTL', async () => {
      const { store, advance } = await create();
      await store.set('short', { n: 1 }, 1_000);
      await store.set('long', { n: 2 }, 60_000);
      await advance(1_500);
      assert.equal(await store.get('short'), undefined);
      assert.deepEqual(await store.get('long'), { n: 2 });
    });

    it('keeps keys of different sessions apart', async () => {
      const { store } = await create();
      await store.set('alice:t1', { who: 'alice' }, 60_000);
      await store.set('bob:t1', { who: 'bob' }, 60_000);
      assert.deepEqual(await store.get('alice:t1'), { who: 'alice' });
      assert.deepEqual(await store.get('bob:t1'), { who: 'bob' });
    });

    it('gives a lock to one holder at a time, and again after release', async () => {
      const { store } = await create();
      const first = await store.lock('k', 60_000);
      assert.ok(first);
      assert.equal(await store.lock('k', 60_000), undefined);
      assert.ok(await store.lock('other', 60_000), 'locks are per key');
      await first.release();
      const second = await store.lock('k', 60_000);
      assert.ok(second);
      await second.release();
    });

    it('frees a lock whose holder never released it once its TTL passes', async () => {
      const { store, advance } = await create();
      const stale = await store.lock('k', 1_000);
      assert.ok(stale);
      await advance(1_500);
      const next = await store.lock('k', 60_000);
      assert.ok(next, 'an expired lock can be taken');
      await stale.release();
      assert.equal(await store.lock('k', 60_000), undefined, 'a stale holder cannot release the new holder’s lock');
      await next.release();
    });

    it('writes a fenced value only while its lock is held: never for a holder whose lock expired and was taken over', async () => {
      const { store, advance } = await create();
      const stale = await store.lock('turn', 1_000);
      assert.ok(stale);
      assert.equal(await stale.held(), true);
      await store.set('turn', { by: 'stale', n: 1 }, 60_000, { fence: stale });
      assert.deepEqual(await store.get('turn'), { by: 'stale', n: 1 }, 'written while held');
      await advance(1_500);
      assert.equal(await stale.held(), false, 'expired');
      const next = await store.lock('turn', 60_000);
      assert.ok(next);
      await store.set('turn', { by: 'next' }, 60_000, { fence: next });
      await assert.rejects(store.set('turn', { by: 'stale', n: 2 }, 60_000, { fence: stale }), LockLostError);
      assert.deepEqual(await store.get('turn'), { by: 'next' }, 'the stale write changed nothing');
      assert.equal(await next.held(), true);
      await next.release();
      assert.equal(await next.held(), false, 'released');
      await assert.rejects(store.set('turn', { by: 'next', n: 2 }, 60_000, { fence: next }), LockLostError);
    });
  });
}
