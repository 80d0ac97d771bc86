import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyOutputs, HopResponse } from '@canvas-ai/protocol';
import { collectPlacedUuids } from '@canvas-ai/protocol/server';
import { driveScenario, type Scenario, type ScenarioRun } from '@canvas-ai/protocol/scenario';
import { z } from 'zod';
import type { ToolDefinition } from '../src/tools/index.js';
import { eventually } from './support/eventually.js';
import { openSession, sharedFixtures, startTestServer, firstHop, laterHop, type JsonBody } from './support/harness.js';
import { SHARED_SECRET, startCluster, type Cluster } from './support/instances.js';
import { ListProvider, RecordingProvider } from './support/providers.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';
import { startServerProcess } from './support/server-process.js';

// Several instances behind a (simulated) load balancer, sharing one real redis-server: any hop may land anywhere.
const fixtures = await sharedFixtures();
const redis: RedisServer = await startRedisServer();
after(() => redis.close());

const CONCURRENT_TURNS = 50;

describe('two instances sharing Redis, hops alternating between them', () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster(redis.url, 2);
  });
  after(() => cluster.close());

  for (const scenario of fixtures.scenarios) {
    it(`plays "${scenario.id}" with each hop on the other instance`, async () => {
      const session = await openSession(cluster.instances[0]!);
      const run = await driveScenario(scenario, {
        endpoint: cluster.instances[0]!.hopUrl,
        fixtures,
        headers: () => session.headers(),
        fetch: cluster.alternatingFetch(),
      });
      assert.deepEqual(
        run.hops.flatMap((hop) => hop.mismatches),
        [],
      );
      assert.equal(run.passed, true);
      const servedBy = cluster.logs().filter((entry) => entry.event === 'hop' && entry.request_id === run.requestId);
      assert.deepEqual(
        servedBy.map((entry) => [entry.hop, entry.instance]).sort((a, b) => Number(a[0]) - Number(b[0])),
        run.hops.map((hop, index) => [hop.hop, index % 2]),
        'odd hops on the first instance, even hops on the second',
      );
    });
  }
});

describe(`${CONCURRENT_TURNS} concurrent turns`, () => {
  it('all complete against one instance, each with its own outputs, with zero errors', async () => {
    const server = await startTestServer();
    try {
      const runs = await concurrentTurns(CONCURRENT_TURNS, server, () => fetch);
      assertOwnOutputs(runs);
      const hopLines = server.logs.filter((entry) => entry.event === 'hop');
      assert.equal(
        hopLines.length,
        runs.reduce((sum, { run }) => sum + run.hops.length, 0),
        'one executed hop per request',
      );
    } finally {
      await server.close();
    }
  });

  it('all complete through two instances sharing Redis, hops alternating, with zero errors', async () => {
    const cluster = await startCluster(redis.url, 2);
    try {
      const runs = await concurrentTurns(CONCURRENT_TURNS, cluster.instances[0]!, (index) =>
        cluster.alternatingFetch(index),
      );
      assertOwnOutputs(runs);
      const served = new Set(
        cluster
          .logs()
          .filter((entry) => entry.event === 'hop')
          .map((entry) => entry.instance),
      );
      assert.deepEqual([...served].sort(), [0, 1], 'both instances served hops');
    } finally {
      await cluster.close();
    }
  });
});

describe('a lost response, retried on the other instance', () => {
  it('gets the identical response and the tool executed exactly once', async () => {
    const executions = new Map<string, number>();
    // A tool whose output carries a fresh random value: a second execution could not produce the same response.
    const stamp: ToolDefinition<{ field: string }> = {
      name: 'stamp_page',
      description: 'Writes a fresh random stamp into a page field.',
      input: z.object({ field: z.string() }),
      allowParallel: true,
      execute(input, context) {
        executions.set(context.callId, (executions.get(context.callId) ?? 0) + 1);
        return {
          result: 'stamped',
          output: { type: 'set_page_value', call_id: context.callId, field: input.field, value: crypto.randomUUID() },
        };
      },
    };
    const agents = structuredClone(fixtures.agents);
    agents.agents.page_builder!.tools.push('stamp_page');
    // The model is one endpoint both instances call, so one provider object serves both.
    const model = new RecordingProvider(
      new ListProvider([
        {
          text: 'Stamping the title.',
          toolCalls: [{ id: 'stamp_1', name: 'stamp_page', arguments: '{"field":"title"}' }],
        },
        {
          text: 'Now the description.',
          toolCalls: [{ id: 'stamp_2', name: 'stamp_page', arguments: '{"field":"description"}' }],
        },
        { text: 'Both stamped.', toolCalls: [] },
      ]),
    );
    const cluster = await startCluster(redis.url, 2, () => ({ agents, tools: [stamp], provider: model }));
    try {
      const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
      const sessionA = await openSession(a);
      const sessionB = { ...sessionA, hop: (body: unknown) => postHop(b.hopUrl, sessionA.headers(), body) };
      const id = `lost-${crypto.randomUUID()}`;
      const layout = { regions: { content: { components: [] } } };
      const agent = { agent: 'page_builder' };

      assert.equal((await sessionA.hop(firstHop(id, 'Stamp my page', agent))).status, 200);

      // Hop 2 answered normally by B; the client retries it anyway on A.
      const hop2 = await sessionB.hop(laterHop(id, 2, layout, agent));
      assert.equal(hop2.status, 200);
      assert.deepEqual(
        (await sessionA.hop(laterHop(id, 2, layout, agent))).body,
        hop2.body,
        'the stored response, not a new run',
      );

      // Hop 3 carries the page as the host holds it, hop 2's stamp applied, and reports that stamp applied.
      const stamped = applyOutputs({ layout, page: {} }, HopResponse.parse(hop2.body).outputs);
      const hop3 = laterHop(id, 3, layout, {
        ...agent,
        context: { current_layout: layout, page: stamped.page },
        apply_results: [{ call_id: 'stamp_1', status: 'applied' }],
      });
      // Hop 3's response is lost: the client gives up on the connection while A is still deciding.
      const hold = model.holdNext();
      const aborted = new AbortController();
      const lost = fetch(a.hopUrl, {
        method: 'POST',
        headers: sessionA.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify(hop3),
        signal: aborted.signal,
      });
      await hold.entered;
      aborted.abort();
      await assert.rejects(lost);
      hold.release();
      await eventually(async () =>
        assert.ok(a.logs.some((entry) => entry.event === 'hop' && entry.request_id === id && entry.hop === 3)),
      );

      const retried = await sessionB.hop(hop3);
      assert.equal(retried.status, 200);
      const response = HopResponse.parse(retried.body);
      assert.equal(response.should_continue, true, 'the answer waits for the report on stamp_2 (spec §2, step 7)');
      assert.deepEqual(
        response.outputs.map((output) => output.call_id),
        ['stamp_2'],
      );
      assert.deepEqual((await sessionA.hop(hop3)).body, retried.body, 'identical again on the first instance');

      const both = applyOutputs(stamped, response.outputs);
      const hop4 = await sessionA.hop(
        laterHop(id, 4, layout, {
          ...agent,
          context: { current_layout: layout, page: both.page },
          apply_results: [{ call_id: 'stamp_2', status: 'applied' }],
        }),
      );
      assert.equal(hop4.status, 200);
      const final = HopResponse.parse(hop4.body);
      assert.equal(final.should_continue, false);
      assert.equal(final.should_continue === false && final.message, 'Both stamped.');
      assert.deepEqual(final.outputs, []);

      assert.deepEqual(Object.fromEntries(executions), { stamp_1: 1, stamp_2: 1 }, 'each call executed exactly once');
      assert.equal(
        model.requests.length,
        3,
        'one model decision per deciding hop, none for the retries nor for the held answer',
      );
    } finally {
      await cluster.close();
    }
  });
});

describe('an instance killed and restarted in the middle of a turn (Redis store)', () => {
  it('resumes the turn on the restarted process, which completes it', async () => {
    const scenario = fixtures.scenarios.find((s) => s.id === 'cookie-shop')!;
    const env = { CANVAS_AI_SECRET: SHARED_SECRET };
    const args = ['--store', redis.url];
    let server = await startServerProcess(args, env);
    const first = server;
    let restarted: typeof server | undefined;
    try {
      const session = await openSession(server);
      let posts = 0;
      const run = await driveScenario(scenario, {
        endpoint: server.hopUrl,
        fixtures,
        headers: () => session.headers(),
        fetch: async (input, init) => {
          posts += 1;
          if (posts === 4) {
            // A crash between hop 3 and hop 4: no shutdown, nothing flushed. The same binary comes back.
            await server.kill('SIGKILL');
            server = restarted = await startServerProcess(args, env);
          }
          return fetch(new URL(new URL(String(input)).pathname, server.url), init);
        },
      });
      assert.deepEqual(
        run.hops.flatMap((hop) => hop.mismatches),
        [],
      );
      assert.equal(run.passed, true);
      const hopsOf = (logs: Array<Record<string, unknown>>) =>
        logs.filter((entry) => entry.event === 'hop' && entry.request_id === run.requestId).map((entry) => entry.hop);
      assert.deepEqual(hopsOf(first.logs), [1, 2, 3]);
      assert.deepEqual(hopsOf(restarted!.logs), [4, 5, 6, 7, 8], 'the restarted process picked the turn up from Redis');
    } finally {
      await first.kill('SIGKILL');
      await restarted?.kill();
    }
  });
});

/** `count` turns at once, each in its own session, cycling through every scenario fixture. */
async function concurrentTurns(
  count: number,
  sessionServer: { url: string; hopUrl: string },
  fetchFor: (index: number) => typeof fetch,
): Promise<Array<{ scenario: Scenario; run: ScenarioRun }>> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const scenario = fixtures.scenarios[index % fixtures.scenarios.length]!;
      const session = await openSession(sessionServer);
      const run = await driveScenario(scenario, {
        endpoint: sessionServer.hopUrl,
        fixtures,
        headers: () => session.headers(),
        fetch: fetchFor(index),
      });
      return { scenario, run };
    }),
  );
}

/** Every turn passed its own scenario (its own outputs, hop by hop), and no uuid shows up in two turns. */
function assertOwnOutputs(runs: Array<{ scenario: Scenario; run: ScenarioRun }>): void {
  const failures = runs
    .filter(({ run }) => !run.passed)
    .map(({ scenario, run }) => `${scenario.id}: ${run.hops.flatMap((hop) => hop.mismatches).join('; ')}`);
  assert.deepEqual(failures, [], 'every turn completed as its scenario expects');
  const errors = runs.flatMap(({ run }) => run.hops.filter((hop) => hop.status !== 200));
  assert.equal(errors.length, 0, 'zero errors');
  const owner = new Map<string, string>();
  for (const { run } of runs) {
    for (const hop of run.hops) {
      const response = HopResponse.parse(hop.body);
      assert.equal(response.request_id, run.requestId);
      for (const uuid of collectPlacedUuids(response.outputs)) {
        assert.equal(owner.get(uuid) ?? run.requestId, run.requestId, `uuid ${uuid} belongs to one turn`);
        owner.set(uuid, run.requestId);
      }
    }
  }
}

async function postHop(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: JsonBody }> {
  const reply = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: reply.status, body: await reply.json() };
}
