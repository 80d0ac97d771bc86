import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createApp } from '../src/app.js';
import { silentLogger } from '../src/log.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { MemoryTurnStore } from '../src/store/memory.js';
import { EMPTY_LAYOUT, firstHop, laterHop, sharedFixtures } from './support/harness.js';
import { RecordingStore } from './support/recording-store.js';

// The default store must survive a flood of turns that are started and never continued (closed tabs, bots).
const fixtures = await sharedFixtures();

/** A real stored turn: hop 1 of the cookie-shop scenario, as the hop saved it. */
async function realTurnRecord(): Promise<unknown> {
  const store = new RecordingStore(new MemoryTurnStore());
  const app = createApp({
    agents: fixtures.agents,
    catalog: fixtures.catalog,
    provider: new ScriptedProvider(fixtures.scenarios),
    store,
    security: { csrf: false },
    log: silentLogger,
  });
  const scenario = fixtures.scenarios.find((s) => s.id === 'cookie-shop')!;
  const reply = await app.fetch(
    jsonPost('/api/hop', firstHop('sample', scenario.user_message, { agent: 'page_builder' })),
  );
  assert.equal(reply.status, 200);
  const key = store.calls.find((call) => call.op === 'set')!.key;
  return store.inner.get(key);
}

function jsonPost(path: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`http://127.0.0.1${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('the memory store under a flood of abandoned turns', () => {
  it('is full at maxEntries without dropping a turn it holds, and one store call after the TTL sweeps them all', async () => {
    const record = await realTurnRecord();
    let now = 0;
    const store = new MemoryTurnStore({ maxEntries: 1_000, now: () => now });
    for (let index = 0; index < 1_000; index += 1) {
      now += 1;
      await store.set(`session-${index % 977}:turn-${index}`, record, 30 * 60_000);
    }
    assert.equal((await store.usage()).full, true);
    assert.deepEqual(await store.get('session-0:turn-0'), record, 'the oldest is kept (G1: nothing live is evicted)');
    now += 30 * 60_000;
    await store.set('session-new:turn', record, 30 * 60_000);
    assert.equal(store.size, 1, 'one store call after the TTL sweeps every abandoned turn');
    assert.equal((await store.usage()).full, false);
  });

  it('is full once its serialized bytes reach maxBytes, no sooner', async () => {
    const record = await realTurnRecord();
    const recordBytes = JSON.stringify(record).length;
    const maxBytes = 256 * 1024;
    const store = new MemoryTurnStore({ maxBytes });
    let index = 0;
    while (!(await store.usage()).full) await store.set(`s:turn-${index++}`, record, 30 * 60_000);
    assert.equal(store.size, Math.ceil(maxBytes / recordBytes), 'as many as fit, and the one that reached the bound');
  });

  it('refuses new turns with 503 at its bound after a flood through the app, and every turn it holds carries on', async () => {
    const store = new MemoryTurnStore({ maxEntries: 200 });
    const app = createApp({
      agents: fixtures.agents,
      catalog: fixtures.catalog,
      provider: new ScriptedProvider(fixtures.scenarios),
      store,
      security: { csrf: false, sessionId: () => 'flooder' },
      log: silentLogger,
      // The store's own bound is what this measures; the quotas would refuse the flood long before it.
      quotas: { session: { maxTurns: 0, maxFinished: 0, maxBytes: 0 }, address: { maxTurns: 0, maxBytes: 0 } },
    });
    const hero = 'Add a hero for my bakery, Crumb & Co.';
    const statuses = new Map<number, number>();
    for (let index = 0; index < 2_000; index += 1) {
      const reply = await app.fetch(jsonPost('/api/hop', firstHop(`flood-${index}`, hero, { agent: 'page_builder' })));
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      if (reply.status === 503) {
        assert.equal(((await reply.json()) as { error: { code: string } }).error.code, 'server_busy');
        assert.ok(Number(reply.headers.get('retry-after')) >= 1);
      }
    }
    assert.deepEqual(
      [...statuses],
      [
        [200, 200],
        [503, 1_800],
      ],
    );
    assert.equal(store.size, 200);
    const first = await app.fetch(
      jsonPost('/api/hop', laterHop('flood-0', 2, EMPTY_LAYOUT, { agent: 'page_builder' })),
    );
    assert.equal(first.status, 200, 'the oldest turn carries on');
    const last = await app.fetch(
      jsonPost('/api/hop', laterHop('flood-199', 2, EMPTY_LAYOUT, { agent: 'page_builder' })),
    );
    assert.equal(last.status, 200, 'a recent turn carries on');
  });
});
