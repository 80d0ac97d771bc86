import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyOutputs, HopErrorBody, HopResponse } from '@canvas-ai/protocol';
import { driveScenario } from '@canvas-ai/protocol/scenario';
import { Redis } from 'ioredis';
import { OpenAiCompatibleProvider } from '../src/providers/openai-compatible.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { TurnRecord } from '../src/turn-state.js';
import { eventually } from './support/eventually.js';
import { startFakeChatCompletions, type FakeBehaviour } from './support/fake-chat-completions.js';
import {
  EMPTY_LAYOUT,
  firstHop,
  laterHop,
  openSession,
  sharedFixtures,
  type TestSession,
  type JsonBody,
} from './support/harness.js';
import { startCluster, type Cluster } from './support/instances.js';
import { RecordingProvider } from './support/providers.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';

// Faults with several instances on Redis: the model failing or hanging, Redis stopping or hanging, an instance
// dying while it holds a turn's lock. Each test gets its own redis-server when it stops or freezes it.
const fixtures = await sharedFixtures();
const BUILDER = { agent: 'page_builder' };
const HERO_CALL = {
  id: 'call_hero',
  name: 'place_components',
  arguments: JSON.stringify({
    operations: [
      { target: 'content', placement: 'inside', components: '- sdc.demo.hero:\n    props:\n      heading: Hi\n' },
    ],
  }),
};

/** Both instances' sessions: one cookie and token, valid on either instance (one CSRF secret). */
function sessionsOn(cluster: Cluster, session: TestSession) {
  return cluster.instances.map((instance) => ({
    hop: async (body: unknown) => {
      const reply = await fetch(instance.hopUrl, {
        method: 'POST',
        headers: session.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify(body),
      });
      return { status: reply.status, body: (await reply.json()) as JsonBody };
    },
  }));
}

/** The keys Redis holds for one turn of a cluster (its state and its lock). */
async function keysOf(raw: Redis, cluster: Cluster, requestId: string): Promise<string[]> {
  return raw.keys(`${cluster.prefix}*:${requestId}`);
}

describe('the model failing or timing out in the middle of a turn (two instances, Redis)', () => {
  let redis: RedisServer;
  let raw: Redis;
  before(async () => {
    redis = await startRedisServer();
    raw = new Redis(redis.url);
  });
  after(async () => {
    raw.disconnect();
    await redis.close();
  });

  const cases: Array<{ name: string; failure: FakeBehaviour; message: RegExp }> = [
    { name: 'fails', failure: { status: 500, message: 'the model crashed' }, message: /^The model is unavailable/ },
    { name: 'times out', failure: { hang: true }, message: /^The model is unavailable/ },
  ];
  for (const { name, failure, message } of cases) {
    it(`answers 502 provider_error with the narration so far when the model ${name}; the turn is gone; the next turn runs cleanly`, async () => {
      const queue: FakeBehaviour[] = [{ content: 'I will add a hero.', tool_calls: [HERO_CALL] }, failure];
      const model = await startFakeChatCompletions(queue);
      // One model endpoint, called by both instances, as in production.
      const provider = () =>
        new OpenAiCompatibleProvider({
          model: 'test-model',
          baseURL: model.baseURL,
          apiKey: 'none',
          timeoutMs: 300,
          maxRetries: 0,
        });
      const cluster = await startCluster(redis.url, 2, () => ({ provider: provider() }));
      try {
        const session = await openSession(cluster.instances[0]!);
        const [a, b] = sessionsOn(cluster, session);
        const id = `model-${crypto.randomUUID()}`;
        assert.equal((await a!.hop(firstHop(id, 'Add a hero', BUILDER))).status, 200);

        const failed = await b!.hop(laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
        assert.equal(failed.status, 502);
        const body = HopErrorBody.parse(failed.body);
        assert.equal(body.error.code, 'provider_error');
        assert.match(body.message, message);
        assert.equal(body.progress, 'I will add a hero.', 'the narration so far');
        assert.deepEqual(await keysOf(raw, cluster, id), [], 'neither the turn nor its lock is left in Redis');
        assert.equal(
          (await a!.hop(laterHop(id, 2, EMPTY_LAYOUT, BUILDER))).status,
          410,
          'the failed turn does not resume',
        );

        queue.push({ content: 'I will add a hero.', tool_calls: [HERO_CALL] }, { content: 'Done: a hero.' });
        const next = `model-next-${crypto.randomUUID()}`;
        assert.equal((await b!.hop(firstHop(next, 'Add a hero', BUILDER))).status, 200);
        const placing = await a!.hop(laterHop(next, 2, EMPTY_LAYOUT, BUILDER));
        assert.equal(placing.status, 200);
        const placed = HopResponse.parse(placing.body);
        assert.equal(placed.should_continue, true, 'the answer waits for the report on the hero (spec §2, step 7)');
        assert.equal(placed.outputs.length, 1, 'the hero was placed');
        const layout = applyOutputs({ layout: EMPTY_LAYOUT, page: {} }, placed.outputs).layout;
        const last = await b!.hop(
          laterHop(next, 3, layout, { ...BUILDER, apply_results: [{ call_id: 'call_hero', status: 'applied' }] }),
        );
        assert.equal(last.status, 200);
        const response = HopResponse.parse(last.body);
        assert.equal(response.should_continue, false);
        assert.deepEqual(response.outputs, []);
        assert.equal(response.message, 'Done: a hero.');
      } finally {
        await cluster.close();
        await model.close();
      }
    });
  }
});

describe('Redis stopping or hanging mid-run', () => {
  it('answers 503 store_unavailable while Redis is stopped, without crashing, and new turns work once it is back', async () => {
    const redis = await startRedisServer();
    const cluster = await startCluster(redis.url, 2);
    try {
      const session = await openSession(cluster.instances[0]!);
      const [a, b] = sessionsOn(cluster, session);
      const id = `outage-${crypto.randomUUID()}`;
      assert.equal((await a!.hop(firstHop(id, 'Add a hero for my bakery, Crumb & Co.', BUILDER))).status, 200);

      await redis.stop();
      const during = await b!.hop(laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
      assert.equal(during.status, 503);
      const body = HopErrorBody.parse(during.body);
      assert.equal(body.error.code, 'store_unavailable');
      assert.equal(body.request_id, id);
      const fresh = await a!.hop(firstHop(`outage-new-${crypto.randomUUID()}`, 'Hello', {}));
      assert.equal(fresh.status, 503, 'a new turn cannot start either');
      assert.equal((await session.cancel(id)).status, 503, 'nor can a turn be cancelled');
      for (const instance of cluster.instances)
        assert.equal((await fetch(`${instance.url}/healthz`)).status, 200, 'both processes are alive');

      await redis.start();
      await eventually(async () =>
        assert.equal((await a!.hop(firstHop(`outage-probe-${crypto.randomUUID()}`, 'Hello', {}))).status, 200),
      );
      const scenario = fixtures.scenarios.find((s) => s.id === 'cookie-shop')!;
      const run = await driveScenario(scenario, {
        endpoint: cluster.instances[0]!.hopUrl,
        fixtures,
        headers: () => session.headers(),
        fetch: cluster.alternatingFetch(),
      });
      assert.equal(run.passed, true, run.hops.flatMap((hop) => hop.mismatches).join('; '));
    } finally {
      await cluster.close();
      await redis.close();
    }
  });

  it('answers 503 when Redis hangs during a hop, keeps the turn, and the hop sent again once Redis is back completes it', async () => {
    const redis = await startRedisServer();
    const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    const cluster = await startCluster(redis.url, 2, () => ({ provider: model }), { commandTimeoutMs: 500 });
    const raw = new Redis(redis.url);
    try {
      const session = await openSession(cluster.instances[0]!);
      const [a, b] = sessionsOn(cluster, session);
      const id = `hang-${crypto.randomUUID()}`;
      const scenario = fixtures.scenarios.find((s) => s.id === 'cookie-shop')!;
      const hop1 = await a!.hop(firstHop(id, scenario.user_message, BUILDER));
      assert.equal(hop1.status, 200);

      // Redis freezes while hop 2 waits for the model: the hop's final save times out.
      const hold = model.holdNext();
      const pending = b!.hop(laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
      await hold.entered;
      redis.pause();
      hold.release();
      const failed = await pending;
      assert.equal(failed.status, 503);
      const body = HopErrorBody.parse(failed.body);
      assert.equal(body.error.code, 'store_unavailable');
      assert.equal(body.progress, hop1.body.progress, 'the narration the client already has');

      // Once Redis is back the same hop is sent again, as spec §8.2 tells a client to after a 503. The save that timed out
      // may have landed late (then the hop is replayed) or not (then it runs again): either way the turn goes on.
      redis.resume();
      const retried = await eventually(async () => {
        const reply = await a!.hop(laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
        assert.equal(reply.status, 200, `hop 2 sent again answered ${reply.status} ${reply.body.error?.code ?? ''}`);
        return reply;
      });
      let response = HopResponse.parse(retried.body);
      let document = applyOutputs({ layout: EMPTY_LAYOUT, page: {} }, response.outputs);
      const hosts = [b!, a!];
      for (let hop = 3; response.should_continue; hop += 1) {
        const reply = await hosts[hop % 2]!.hop(laterHop(id, hop, document.layout, BUILDER));
        assert.equal(reply.status, 200, `hop ${hop}`);
        response = HopResponse.parse(reply.body);
        document = applyOutputs(document, response.outputs);
      }
      assert.equal(response.hop, scenario.hops.length, 'the turn ends on the hop the scenario ends on');
      assert.equal(response.message, scenario.hops.at(-1)!.message);
      assert.equal(document.layout.regions.content!.components.length, 5, 'every row of the page, each placed once');
      // Every turn key (the sessions' quota ledgers, `quota/…`, are not turns).
      for (const key of await raw.keys(`${cluster.prefix}turn:*`)) {
        if (key.startsWith(`${cluster.prefix}turn:{quota/`)) continue;
        assert.ok(TurnRecord.safeParse(JSON.parse((await raw.get(key))!)).success, `${key} holds a whole turn record`);
      }
    } finally {
      raw.disconnect();
      await cluster.close();
      await redis.close();
    }
  });
});

describe('an instance dying while it holds a turn', () => {
  it('lets the retried hop run on another instance once the dead holder’s lock expires, and the turn completes', async () => {
    const redis = await startRedisServer();
    const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    const cluster = await startCluster(redis.url, 2, () => ({ provider: model, ttl: { lockMs: 1_500 } }));
    let hold: ReturnType<RecordingProvider['holdNext']> | undefined;
    try {
      const session = await openSession(cluster.instances[0]!);
      const [a, b] = sessionsOn(cluster, session);
      const id = `crash-${crypto.randomUUID()}`;
      const scenario = fixtures.scenarios.find((s) => s.id === 'place-hero-two-hop')!;
      assert.equal((await b!.hop(firstHop(id, scenario.user_message, BUILDER))).status, 200);

      // Instance A takes hop 2's lock, then "dies" while the model decides: the client loses the connection and
      // A's Redis connection goes away with it. Its lock stays in Redis until its TTL runs out.
      const layout = EMPTY_LAYOUT;
      hold = model.holdNext();
      const aborted = new AbortController();
      const lost = fetch(cluster.instances[0]!.hopUrl, {
        method: 'POST',
        headers: session.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify(laterHop(id, 2, layout, BUILDER)),
        signal: aborted.signal,
      }).catch(() => undefined);
      await hold.entered;
      aborted.abort();
      await lost;
      await cluster.stores[0]!.close();

      const statuses: string[] = [];
      const retried = await eventually(async () => {
        const reply = await b!.hop(laterHop(id, 2, layout, BUILDER));
        statuses.push(reply.status === 200 ? '200' : `${reply.status} ${reply.body.error.code}`);
        assert.equal(reply.status, 200);
        return reply;
      });
      assert.deepEqual(
        new Set(statuses.slice(0, -1)),
        new Set(statuses.length > 1 ? ['409 hop_in_progress'] : []),
        'only "in progress" until the lock expired',
      );
      const response = HopResponse.parse(retried.body);
      assert.equal(response.should_continue, true, 'hop 2 ran on the surviving instance; the answer waits for hop 3');
      assert.equal(response.outputs.length, 1);
      const placed = applyOutputs({ layout, page: {} }, response.outputs).layout;
      const final = await b!.hop(
        laterHop(id, 3, placed, { ...BUILDER, apply_results: [{ call_id: 'call_hero', status: 'applied' }] }),
      );
      assert.equal(final.status, 200);
      const ending = HopResponse.parse(final.body);
      assert.equal(ending.should_continue, false, 'the turn completed on the surviving instance');
      assert.deepEqual(ending.outputs, []);
      assert.equal(ending.finish_reason, 'answer');
      assert.equal((await a!.hop(laterHop(id, 3, placed, BUILDER))).status, 503, 'the dead instance has no store');
    } finally {
      hold?.release();
      await cluster.close();
      await redis.close();
    }
  });
});
