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
const ABANDONED = 100_000;

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

describe(`the memory store after ${ABANDONED.toLocaleString('en')} abandoned turns`, () => {
  it('holds no more turns than its configured maxEntries, and sweeps them all once their TTL has passed', async () => {
    const record = await realTurnRecord();
    let now = 0;
    const store = new MemoryTurnStore({ maxEntries: 1_000, now: () => now });
    let largest = 0;
    for (let index = 0; index < ABANDONED; index += 1) {
      now += 1;
      await store.set(`session-${index % 977}:turn-${index}`, record, 30 * 60_000);
      largest = Math.max(largest, store.size);
    }
    assert.equal(largest, 1_000, 'never above the bound, even for a moment');
    assert.equal(store.size, 1_000);
    assert.deepEqual(
      await store.get(`session-${(ABANDONED - 1) % 977}:turn-${ABANDONED - 1}`),
      record,
      'the newest turn is kept',
    );
    assert.equal(await store.get('session-0:turn-0'), undefined, 'the oldest was evicted');
    now += 30 * 60_000;
    await store.set('session-new:turn', record, 30 * 60_000);
    assert.equal(store.size, 1, 'one store call after the TTL sweeps every abandoned turn');
  });

  it('holds no more serialized bytes than its configured maxBytes', async () => {
    const record = await realTurnRecord();
    const recordBytes = JSON.stringify(record).length;
    const maxBytes = 256 * 1024;
    const store = new MemoryTurnStore({ maxBytes });
    for (let index = 0; index < ABANDONED; index += 1) await store.set(`s:turn-${index}`, record, 30 * 60_000);
    assert.ok(store.size > 0);
    assert.ok(
      store.size * recordBytes <= maxBytes,
      `${store.size} turns of ${recordBytes} characters fit in ${maxBytes}`,
    );
    assert.equal(store.size, Math.floor(maxBytes / recordBytes), 'as many as fit, no more');
  });

  it('serves new turns normally after a flood of abandoned ones through the app, and an evicted turn answers 410', async () => {
    const store = new MemoryTurnStore({ maxEntries: 200 });
    const app = createApp({
      agents: fixtures.agents,
      catalog: fixtures.catalog,
      provider: new ScriptedProvider(fixtures.scenarios),
      store,
      security: { csrf: false, sessionId: () => 'flooder' },
      log: silentLogger,
      // The store's own bound is what this measures; the session quota would refuse the flood long before it.
      quotas: { session: { maxTurns: 0, maxFinished: 0, maxBytes: 0 } },
    });
    const hero = 'Add a hero for my bakery, Crumb & Co.';
    for (let index = 0; index < 2_000; index += 1) {
      const reply = await app.fetch(jsonPost('/api/hop', firstHop(`flood-${index}`, hero, { agent: 'page_builder' })));
      assert.equal(reply.status, 200);
    }
    assert.equal(store.size, 200);
    const evicted = await app.fetch(
      jsonPost('/api/hop', laterHop('flood-0', 2, EMPTY_LAYOUT, { agent: 'page_builder' })),
    );
    assert.equal(evicted.status, 410, 'an evicted turn ends cleanly');
    const last = await app.fetch(
      jsonPost('/api/hop', laterHop('flood-1999', 2, EMPTY_LAYOUT, { agent: 'page_builder' })),
    );
    assert.equal(last.status, 200, 'a recent turn carries on');
  });
});
