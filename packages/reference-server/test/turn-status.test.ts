// GET /api/hop/{request_id} (spec §8.6): where a turn of the caller's session stands, for every state, read-only,
// scoped to the session, on the memory store and across two instances sharing Redis.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FinalHopResponse, TurnStatusResponse } from '@canvas-ai/protocol';
import { ScriptedProvider } from '../src/providers/scripted.js';
import {
  EMPTY_LAYOUT,
  firstHop,
  laterHop,
  openSession,
  sharedFixtures,
  startTestServer,
  type JsonBody,
  type TestServer,
  type TestSession,
} from './support/harness.js';
import { eventually } from './support/eventually.js';
import { startCluster, type Cluster } from './support/instances.js';
import { ListProvider, RecordingProvider } from './support/providers.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';

const fixtures = await sharedFixtures();
const HERO = 'Add a hero for my bakery, Crumb & Co.';

/** GET the status of `requestId` with `cookie` (or none), as the widget does after a reload. */
async function status(server: { url: string }, requestId: string, cookie?: string) {
  const reply = await fetch(`${server.url}/api/hop/${encodeURIComponent(requestId)}`, {
    headers: cookie === undefined ? {} : { cookie },
  });
  return { status: reply.status, body: (await reply.json()) as JsonBody, headers: reply.headers };
}

/** Plays hop 1 (and more) of the two-hop hero scenario; returns the responses. */
async function hops(session: TestSession, requestId: string, count: number): Promise<JsonBody[]> {
  const bodies: JsonBody[] = [];
  let layout: unknown = structuredClone(EMPTY_LAYOUT);
  for (let hop = 1; hop <= count; hop += 1) {
    const sent = await session.hop(
      hop === 1
        ? firstHop(requestId, HERO, { agent: 'page_builder' })
        : laterHop(requestId, hop, layout, { agent: 'page_builder' }),
    );
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    bodies.push(sent.body);
    const outputs = sent.body.outputs as Array<{ type: string; operations: Array<{ components: unknown[] }> }>;
    if (outputs.length > 0)
      layout = { regions: { content: { components: outputs.flatMap((output) => output.operations[0]!.components) } } };
  }
  return bodies;
}

describe('GET /api/hop/{request_id}', () => {
  let server: TestServer;
  let session: TestSession;
  before(async () => {
    server = await startTestServer();
    session = await openSession(server);
  });
  after(() => server.close());

  it('says a running turn is active, with the latest hop answered and its narration, and changes nothing', async () => {
    const id = `status-active-${crypto.randomUUID()}`;
    const [hop1] = await hops(session, id, 1);
    const answer = await status(server, id, session.cookie);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    const parsed = TurnStatusResponse.parse(answer.body);
    assert.deepEqual(parsed, {
      status: true,
      protocol: 'canvas-ai/1',
      request_id: id,
      agent: { id: 'page_builder', label: 'Page builder' },
      hop: 1,
      state: 'active',
      progress: hop1.progress,
    });
    // Read-only: asked twice, the turn is the same, and its hop 2 is served as if nobody had asked.
    assert.deepEqual((await status(server, id, session.cookie)).body, answer.body);
    const hop2 = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.equal(hop2.status, 200);
    assert.equal(TurnStatusResponse.parse((await status(server, id, session.cookie)).body).hop, 2);
  });

  it('gives a finished turn its final response, exactly as the last hop was answered', async () => {
    const id = `status-finished-${crypto.randomUUID()}`;
    const bodies = await hops(session, id, 3);
    const last = FinalHopResponse.parse(bodies.at(-1));
    const parsed = TurnStatusResponse.parse((await status(server, id, session.cookie)).body);
    assert.equal(parsed.state, 'finished');
    assert.equal(parsed.hop, 3);
    assert.deepEqual(parsed.state === 'finished' ? parsed.response : undefined, last);
  });

  it('answers 410 for a turn it never saw, a cancelled one, another session’s, and without a session at all', async () => {
    const unknown = await status(server, 'never-started', session.cookie);
    assert.equal(unknown.status, 410);
    assert.equal(unknown.body.error.code, 'turn_not_found');

    const cancelled = `status-cancelled-${crypto.randomUUID()}`;
    await hops(session, cancelled, 1);
    await session.cancel(cancelled);
    assert.equal((await status(server, cancelled, session.cookie)).status, 410);

    const mine = `status-mine-${crypto.randomUUID()}`;
    await hops(session, mine, 1);
    const stranger = await openSession(server);
    const theirs = await status(server, mine, stranger.cookie);
    assert.equal(theirs.status, 410);
    assert.equal(theirs.body.error.code, 'turn_not_found');
    assert.equal((await status(server, mine)).status, 410, 'no cookie, no turn');
    assert.equal((await status(server, mine, session.cookie)).status, 200, 'the own session still sees it');
  });

  it('answers 410 for a turn that failed, and once the final response is past its replay window', async () => {
    const failing = await startTestServer({
      provider: new ListProvider([{ text: 'One.', toolCalls: [] }, new Error('model down')]),
      ttl: { finishedMs: 1_000 },
    });
    try {
      const own = await openSession(failing);
      const ended = `status-expired-${crypto.randomUUID()}`;
      const first = await own.hop(firstHop(ended, 'Hello'));
      assert.equal(first.body.should_continue, false);
      assert.equal((await status(failing, ended, own.cookie)).body.state, 'finished');
      // Once the replay window is over the final response is gone, and so is the turn.
      await eventually(async () => assert.equal((await status(failing, ended, own.cookie)).status, 410));

      const broken = `status-failed-${crypto.randomUUID()}`;
      const failed = await own.hop(firstHop(broken, 'Hello'));
      assert.equal(failed.status, 502);
      assert.equal((await status(failing, broken, own.cookie)).status, 410);
    } finally {
      await failing.close();
    }
  });

  it('answers 400 naming request_id for an invalid one, and 405 for another method', async () => {
    const invalid = await status(server, 'a'.repeat(129), session.cookie);
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.error.field, 'request_id');
    const put = await fetch(`${server.url}/api/hop/x`, { method: 'PUT', headers: session.headers() });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, DELETE');
  });

  it('answers 410 while hop 1 still runs (no hop answered yet), and active at hop 1 once it was answered', async () => {
    const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    const slow = await startTestServer({ provider: model });
    try {
      const own = await openSession(slow);
      const id = `status-first-${crypto.randomUUID()}`;
      const held = model.holdNext();
      const running = own.hop(firstHop(id, HERO, { agent: 'page_builder' }));
      await held.entered;
      const during = await status(slow, id, own.cookie);
      assert.equal(during.status, 410, 'nothing of the turn is answered yet');
      assert.equal(during.body.error.code, 'turn_not_found');
      const repeat = await own.hop(firstHop(id, HERO, { agent: 'page_builder' }));
      assert.equal(repeat.status, 409, 'hop 1 sent again while it runs');
      assert.equal(repeat.body.error.code, 'hop_in_progress');
      held.release();
      assert.equal((await running).status, 200);
      const after = TurnStatusResponse.parse((await status(slow, id, own.cookie)).body);
      assert.equal(after.state, 'active');
      assert.equal(after.hop, 1);
    } finally {
      await slow.close();
    }
  });

  it('does not wait for a running hop, nor take its lock: it answers the state that hop started from', async () => {
    const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    const slow = await startTestServer({ provider: model });
    try {
      const own = await openSession(slow);
      const id = `status-running-${crypto.randomUUID()}`;
      await hops(own, id, 1);
      const held = model.holdNext();
      const running = own.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
      await held.entered;
      const during = TurnStatusResponse.parse((await status(slow, id, own.cookie)).body);
      assert.equal(during.hop, 1, 'hop 2 is still running: the turn is at hop 1');
      held.release();
      assert.equal((await running).status, 200, 'the status read did not get in the way of the hop');
    } finally {
      await slow.close();
    }
  });
});

describe('GET /api/hop/{request_id} across two instances sharing Redis', () => {
  let redis: RedisServer;
  let cluster: Cluster;
  before(async () => {
    redis = await startRedisServer();
    cluster = await startCluster(redis.url, 2);
  });
  after(async () => {
    await cluster?.close();
    await redis?.close();
  });

  it('reads on one instance the turn another one runs, and keeps it to its session', async () => {
    const [a, b] = cluster.instances as [TestServer, TestServer];
    const own = await openSession(a);
    const id = `status-redis-${crypto.randomUUID()}`;
    await hops(own, id, 1);
    const active = TurnStatusResponse.parse((await status(b, id, own.cookie)).body);
    assert.equal(active.state, 'active');
    const stranger = await openSession(b);
    assert.equal((await status(b, id, stranger.cookie)).status, 410);
    await own.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    await own.hop(laterHop(id, 3, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.equal(TurnStatusResponse.parse((await status(b, id, own.cookie)).body).state, 'finished');
  });
});
