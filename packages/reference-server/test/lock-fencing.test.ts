// A hop whose turn lock expires while it runs must not overwrite the run that took the turn over (spec §8): the
// later run answers, the earlier one changes nothing and answers 409, and a retry gets the later run's answer.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { HopErrorBody, HopResponse } from '@canvas-ai/protocol';
import { collectPlacedUuids } from '@canvas-ai/protocol/server';
import { ConfigError } from '../src/config-error.js';
import { createApp } from '../src/app.js';
import { silentLogger } from '../src/log.js';
import type { ModelProvider, ModelReply, ModelRequest } from '../src/providers/model-provider.js';
import { OpenAiCompatibleProvider } from '../src/providers/openai-compatible.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { MemoryTurnStore } from '../src/store/memory.js';
import { EMPTY_LAYOUT, firstHop, laterHop, openSession, sharedFixtures, startTestServer } from './support/harness.js';
import { startCluster } from './support/instances.js';
import { startRedisServer } from './support/redis-server.js';

const fixtures = await sharedFixtures();
const redis = await startRedisServer();
after(() => redis.close());
const HERO = 'Add a hero for my bakery, Crumb & Co.';
const BUILDER = { agent: 'page_builder' };

/** The scripted model, whose first decision 2 waits until `release()`: a model call slower than the lock lasts. */
function slowSecondDecision(): ModelProvider & { reached: Promise<void>; release(): void } {
  const scripted = new ScriptedProvider(fixtures.scenarios);
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  return {
    name: 'slow-second',
    reached,
    release,
    async decide(request: ModelRequest): Promise<ModelReply> {
      if (request.turn.decision === 2 && !held) {
        held = true;
        reach();
        await released;
      }
      return scripted.decide(request);
    },
  };
}

/** The uuids a hop response placed. */
const placed = (body: unknown) => collectPlacedUuids(HopResponse.parse(body).outputs);

describe('a hop that outlives its turn lock', () => {
  it('on the memory store: saves nothing, answers 409, and the retry gets the run that took over', async () => {
    let now = Date.now();
    const model = slowSecondDecision();
    const server = await startTestServer({ provider: model, store: new MemoryTurnStore({ now: () => now }) });
    try {
      const session = await openSession(server);
      const id = `fenced-${crypto.randomUUID()}`;
      assert.equal((await session.hop(firstHop(id, HERO, BUILDER))).status, 200);
      const first = session.hop(laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
      await model.reached;
      // The lock (5 minutes) runs out while the first run waits for its model.
      now += 6 * 60_000;
      const second = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
      assert.equal(second.status, 200, 'a retry of the hop takes the expired lock and runs');
      model.release();
      const late = await first;
      assert.equal(late.status, 409);
      assert.equal(HopErrorBody.parse(late.body).error.code, 'hop_in_progress');
      const replay = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
      assert.equal(replay.status, 200);
      assert.deepEqual(placed(replay.body), placed(second.body), "the stored answer is the later run's");
      assert.deepEqual(replay.body, second.body);
    } finally {
      await server.close();
    }
  });

  describe('on Redis, two instances', () => {
    it('the first instance saves nothing once the second took the turn over', async () => {
      const model = slowSecondDecision();
      const cluster = await startCluster(redis.url, 2, () => ({ provider: model, ttl: { lockMs: 400 } }));
      try {
        const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
        const session = await openSession(a);
        const on = (server: { hopUrl: string }, body: unknown) =>
          fetch(server.hopUrl, {
            method: 'POST',
            headers: session.headers({ 'content-type': 'application/json' }),
            body: JSON.stringify(body),
          }).then(async (reply) => ({ status: reply.status, body: await reply.json() }));
        const id = `fenced-redis-${crypto.randomUUID()}`;
        assert.equal((await on(a, firstHop(id, HERO, BUILDER))).status, 200);
        const first = on(a, laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
        await model.reached;
        // The client's retry lands on the other instance; it gets 409 until the first run's lock has expired.
        let second = await on(b, laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
        for (let attempt = 0; attempt < 100 && second.status === 409; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          second = await on(b, laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
        }
        assert.equal(second.status, 200);
        model.release();
        const late = await first;
        assert.equal(late.status, 409);
        const replay = await on(a, laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
        assert.equal(replay.status, 200);
        assert.deepEqual(placed(replay.body), placed(second.body), "the stored answer is the later run's");
      } finally {
        await cluster.close();
      }
    });
  });
});

describe('the turn lock against the model timeout', () => {
  const options = () => ({ agents: fixtures.agents, catalog: fixtures.catalog, log: silentLogger });

  it('refuses to start when a model decision, with its retries, could outlast the lock', () => {
    const slow = new OpenAiCompatibleProvider({ model: 'm', apiKey: 'k', timeoutMs: 200_000, maxRetries: 1 });
    assert.throws(
      () => createApp({ ...options(), provider: slow }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /CANVAS_AI_OPENAI_TIMEOUT_MS .*408000 ms with its retries, more than the turn lock's 300000 ms allow/.test(
          error.message,
        ),
    );
    assert.doesNotThrow(() => createApp({ ...options(), provider: slow, ttl: { lockMs: 15 * 60_000 } }));
  });

  it('starts with the defaults (two tries of 120 s within the 5-minute lock)', () => {
    const provider = new OpenAiCompatibleProvider({ model: 'm', apiKey: 'k' });
    assert.equal(provider.maxDecisionMs, 248_000);
    assert.doesNotThrow(() => createApp({ ...options(), provider }));
  });
});
