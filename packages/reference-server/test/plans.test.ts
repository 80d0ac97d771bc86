// Plans (spec/hop-protocol.md §20.4) over HTTP, in every state: offered only to a client that declared the wait and
// an agent that plans first, the waiting hop, a revision with feedback and the new plan, an approval and the rows
// built, refused decisions, cancel; on the memory store, and on Redis with the hops of one turn alternating between
// two instances.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyOutputs, HopResponse, type Layout, TurnStatusResponse } from '@canvas-ai/protocol';
import { PLAN_APPROVED_RESULT, PLAN_REVISE_RESULT } from '@canvas-ai/protocol/server';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { EMPTY_LAYOUT, firstHop, laterHop, openSession, sharedFixtures, startTestServer } from './support/harness.js';
import type { JsonBody, TestServer, TestSession } from './support/harness.js';
import { startCluster } from './support/instances.js';
import { RecordingProvider } from './support/providers.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';

const fixtures = await sharedFixtures();
const PLAN = 'Plan a homepage for my bakery, then build it';
const AGENT = { agent: 'page_builder' };
const FIRST_PLAN = {
  rows: [
    { title: "Hero with the bakery's name", components: ['sdc.demo.hero'] },
    { title: 'Best sellers on cards', components: ['sdc.demo.section', 'sdc.demo.grid', 'sdc.demo.card'] },
  ],
};

/** Where a suite's turns run: `first` serves a turn's odd hops, `second` its even ones and the statuses. */
interface Place {
  first: TestServer;
  second: TestServer;
  model: RecordingProvider;
  close(): Promise<void>;
}

async function post(server: TestServer, session: TestSession, body: unknown) {
  const reply = await fetch(`${server.url}/api/hop`, {
    method: 'POST',
    headers: session.headers({ 'content-type': 'application/json' }),
    body: JSON.stringify(body),
  });
  return { status: reply.status, body: (await reply.json()) as JsonBody };
}

async function status(server: TestServer, session: TestSession, requestId: string) {
  const reply = await fetch(`${server.url}/api/hop/${encodeURIComponent(requestId)}`, {
    headers: { cookie: session.cookie },
  });
  return { status: reply.status, body: (await reply.json()) as JsonBody };
}

/**
 * One turn of the plan scenario as a client plays it: each hop to the instance its number picks, the layout rebuilt
 * from the outputs applied so far.
 */
class PlanTurn {
  readonly id = `plan-${crypto.randomUUID()}`;
  hop = 0;
  layout: Layout = structuredClone(EMPTY_LAYOUT);
  constructor(
    private readonly place: Place,
    private readonly session: TestSession,
  ) {}

  server(hop: number): TestServer {
    return hop % 2 === 1 ? this.place.first : this.place.second;
  }

  /** Sends the next hop with `extra`; a 200 answer's outputs are applied. */
  async next(extra: Record<string, unknown> = {}, capabilities: unknown = { waits: ['plan', 'question'] }) {
    const hop = this.hop + 1;
    const body =
      hop === 1
        ? firstHop(this.id, PLAN, { ...AGENT, capabilities, ...extra })
        : laterHop(this.id, hop, this.layout, { ...AGENT, ...extra });
    const sent = await post(this.server(hop), this.session, body);
    if (sent.status === 200) {
      this.hop = hop;
      this.layout = applyOutputs({ layout: this.layout, page: {} }, sent.body.outputs).layout;
    }
    return sent;
  }

  /** The next hop, which must answer 200. */
  async ok(extra: Record<string, unknown> = {}) {
    const sent = await this.next(extra);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    return HopResponse.parse(sent.body);
  }

  answer(callId: string, fields: Record<string, unknown>) {
    return { answer: { kind: 'plan', call_id: callId, ...fields } };
  }
}

/** The tool result the model read for `callId` in its latest decision. */
function resultOf(model: RecordingProvider, callId: string): string | undefined {
  const message = model.requests.at(-1)!.messages.find((m) => m.role === 'tool' && m.call_id === callId);
  return message?.role === 'tool' ? message.content : undefined;
}

function planSuite(name: string, start: () => Promise<Place>): void {
  describe(`plans inside a turn, ${name}`, () => {
    let place: Place;
    before(async () => {
      place = await start();
    });
    after(() => place.close());

    it('offers propose_plan only to a client that declared the wait: a 1.7 client gets no plan, nor its prompt', async () => {
      const session = await openSession(place.first);
      const turn = new PlanTurn(place, session);
      const before = place.model.requests.length;
      const hop1 = await turn.next({}, { waits: ['question'] });
      assert.equal(hop1.status, 200);
      const hop2 = await turn.ok();
      assert.equal(hop2.should_continue && hop2.waiting, undefined, 'nothing waits');
      const asked = place.model.requests.slice(before);
      assert.equal(asked.length, 2, 'hop 2 made its decision');
      assert.ok(asked.every((request) => !request.tools.includes('propose_plan')));
      assert.ok(
        asked.every((request) => !request.system.includes('# Plan first')),
        'told nothing of plans',
      );
      assert.match(resultOf(place.model, 'call_plan') ?? '', /^Unknown tool `propose_plan`/);
      await session.cancel(turn.id);
    });

    it('answers the hop that executes the plan with `waiting.plan` and no model call; the status shows it', async () => {
      const session = await openSession(place.first);
      const turn = new PlanTurn(place, session);
      const before = place.model.requests.length;
      const hop1 = await turn.ok();
      assert.ok(place.model.requests.at(-1)!.tools.includes('propose_plan'), 'offered to a declaring client');
      assert.match(place.model.requests.at(-1)!.system, /# Plan first/);
      const hop2 = await turn.ok();
      assert.equal(place.model.requests.length - before, 1, 'only hop 1 called the model');
      assert.deepEqual(hop2.outputs, []);
      assert.equal(hop2.progress, hop1.progress, 'the waiting hop adds no narration');
      const waiting = hop2.should_continue ? hop2.waiting : undefined;
      assert.deepEqual(waiting && { ...waiting, expires_at: '' }, {
        kind: 'plan',
        call_id: 'call_plan',
        expires_at: '',
        plan: FIRST_PLAN,
      });
      // The other instance (on Redis) sees the same plan, and a repeat of the waiting hop gets it again.
      const seen = TurnStatusResponse.parse((await status(place.first, session, turn.id)).body);
      assert.deepEqual(seen.state === 'active' && { hop: seen.hop, waiting: seen.waiting }, { hop: 2, waiting });
      const repeat = await post(place.first, session, laterHop(turn.id, 2, turn.layout, AGENT));
      assert.deepEqual(repeat.body, hop2);
      assert.equal(place.model.requests.length - before, 1, 'neither the status nor the repeat called the model');
      await session.cancel(turn.id);
    });

    it('tells the model the feedback of a revision, waits for the new plan, then builds the approved one row by row', async () => {
      const session = await openSession(place.first);
      const turn = new PlanTurn(place, session);
      await turn.ok();
      await turn.ok();
      const revised = await turn.ok(turn.answer('call_plan', { decision: 'revise', feedback: ' Add a footer. ' }));
      assert.equal(resultOf(place.model, 'call_plan'), `${PLAN_REVISE_RESULT}Add a footer.`);
      assert.equal(revised.should_continue && revised.waiting, undefined, 'the answer hop decides again');
      const second = await turn.ok();
      const waiting = second.should_continue ? second.waiting : undefined;
      assert.equal(waiting?.kind === 'plan' && waiting.call_id, 'call_plan_2');
      assert.deepEqual(waiting?.kind === 'plan' && waiting.plan.rows.map((row) => row.title), [
        "Hero with the bakery's name",
        'Best sellers on cards',
        'Footer with the address',
      ]);
      await turn.ok(turn.answer('call_plan_2', { decision: 'approve' }));
      assert.equal(resultOf(place.model, 'call_plan_2'), PLAN_APPROVED_RESULT);
      let last = await turn.ok();
      while (last.should_continue) last = await turn.ok();
      assert.equal(turn.hop, 9);
      assert.deepEqual(
        turn.layout.regions.content!.components.map((row) => row.component),
        ['sdc.demo.hero', 'sdc.demo.section', 'sdc.demo.footer'],
        'the three planned rows, top-level in content, in the planned order',
      );
      assert.equal(last.message, 'Your homepage is built as planned, a hero, your best sellers and a footer.');
    });

    it('refuses, changing nothing, decisions that do not fit the plan; then takes the right one', async () => {
      const session = await openSession(place.first);
      const turn = new PlanTurn(place, session);
      await turn.ok();
      await turn.ok();
      const refusals: Array<[Record<string, unknown>, string, string]> = [
        [{}, 'missing_field', 'answer'],
        [turn.answer('call_plan', { decision: 'revise' }), 'invalid_request', 'answer.feedback'],
        [turn.answer('call_plan', { decision: 'revise', feedback: '   ' }), 'invalid_request', 'answer.feedback'],
        [turn.answer('call_plan', { decision: 'approve', feedback: 'yes' }), 'invalid_request', 'answer.feedback'],
        [turn.answer('call_other', { decision: 'approve' }), 'invalid_request', 'answer.call_id'],
        [{ answer: { kind: 'question', call_id: 'call_plan', choices: [0] } }, 'invalid_request', 'answer.kind'],
        [turn.answer('call_plan', { decision: 'build' }), 'invalid_request', 'answer.decision'],
      ];
      for (const [extra, code, field] of refusals) {
        const refused = await turn.next(extra);
        assert.deepEqual(
          [refused.status, refused.body.error.code, refused.body.error.field, refused.body.progress],
          [400, code, field, ''],
          JSON.stringify(extra),
        );
      }
      const seen = TurnStatusResponse.parse((await status(place.second, session, turn.id)).body);
      assert.equal(seen.state === 'active' && seen.waiting?.call_id, 'call_plan', 'still waiting');
      await turn.ok(turn.answer('call_plan', { decision: 'approve' }));
      assert.equal(resultOf(place.model, 'call_plan'), PLAN_APPROVED_RESULT);
      await session.cancel(turn.id);
    });

    it('cancels a turn whose plan waits (the Cancel of the plan): the decision then gets 410', async () => {
      const session = await openSession(place.first);
      const turn = new PlanTurn(place, session);
      await turn.ok();
      await turn.ok();
      const cancelled = await session.cancel(turn.id);
      assert.deepEqual([cancelled.status, cancelled.body.cancelled], [200, true]);
      const late = await turn.next(turn.answer('call_plan', { decision: 'approve' }));
      assert.deepEqual([late.status, late.body.error.code], [410, 'turn_not_found']);
    });
  });
}

planSuite('on the memory store', async () => {
  const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
  const server = await startTestServer({ provider: model });
  return { first: server, second: server, model, close: () => server.close() };
});

let redis: RedisServer | undefined;
after(() => redis?.close());
planSuite('on Redis, each turn served by two instances', async () => {
  redis ??= await startRedisServer();
  const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
  const cluster = await startCluster(redis.url, 2, () => ({ provider: model }));
  const [first, second] = cluster.instances as [TestServer, TestServer];
  return { first, second, model, close: () => cluster.close() };
});
