// Waiting turns and questions (spec/hop-protocol.md §20) over HTTP, in every state: offered only when declared, the
// waiting hop, the answer, a dismissal, refused answers, replay, status, expiry, cancel and quotas; on the memory
// store, and on Redis with the hops of one turn alternating between two instances.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HopResponse, TurnStatusResponse } from '@canvas-ai/protocol';
import type { AppOptions } from '../src/app.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { EMPTY_LAYOUT, firstHop, laterHop, openSession, sharedFixtures, startTestServer } from './support/harness.js';
import type { JsonBody, TestServer, TestSession } from './support/harness.js';
import { startCluster } from './support/instances.js';
import { RecordingProvider } from './support/providers.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';

const fixtures = await sharedFixtures();
const TONE = 'Add a hero for my tea shop, but ask me about the tone first';
const SECTIONS = 'Which sections should my page have? Ask me';
const DECLARES = { capabilities: { waits: ['question'] } };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Where a suite's turns run: `first` serves a turn's first hops, `second` the status and the answer. */
interface Place {
  first: TestServer;
  second: TestServer;
  model: RecordingProvider;
  close(): Promise<void>;
}

/** GET the status of `requestId` from `server` with the session's cookie. */
async function status(server: { url: string }, session: TestSession, requestId: string) {
  const reply = await fetch(`${server.url}/api/hop/${encodeURIComponent(requestId)}`, {
    headers: { cookie: session.cookie },
  });
  return { status: reply.status, body: (await reply.json()) as JsonBody };
}

/** A session of `server` whose requests go to `server` (a second instance shares the secret, so the cookie too). */
async function sessionAt(server: TestServer, other: TestServer): Promise<{ at: TestSession; there: TestSession }> {
  const at = await openSession(server);
  const there = { ...at, hop: (body: unknown) => post(other, at, body) };
  return { at, there };
}

async function post(server: TestServer, session: TestSession, body: unknown) {
  const reply = await fetch(`${server.url}/api/hop`, {
    method: 'POST',
    headers: session.headers({ 'content-type': 'application/json' }),
    body: JSON.stringify(body),
  });
  return { status: reply.status, body: (await reply.json()) as JsonBody };
}

/** Hops 1 and 2 of a question scenario: hop 2 is the waiting hop. */
async function untilWaiting(session: TestSession, requestId: string, message = TONE) {
  const hop1 = await session.hop(firstHop(requestId, message, { agent: 'page_builder', ...DECLARES }));
  assert.equal(hop1.status, 200, JSON.stringify(hop1.body));
  const hop2 = await session.hop(laterHop(requestId, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
  assert.equal(hop2.status, 200, JSON.stringify(hop2.body));
  return { hop1: hop1.body, hop2: HopResponse.parse(hop2.body) };
}

/** The answer hop (hop 3) of a turn waiting on `callId`. */
function answerHop(requestId: string, answer: Record<string, unknown>) {
  return laterHop(requestId, 3, EMPTY_LAYOUT, { agent: 'page_builder', answer: { kind: 'question', ...answer } });
}

function questionSuite(name: string, start: (overrides: Partial<AppOptions>) => Promise<Place>): void {
  describe(`questions inside a turn, ${name}`, () => {
    let place: Place;
    before(async () => {
      place = await start({});
    });
    after(() => place.close());

    it('offers ask_question only to a client that declared the wait: without it no hop waits', async () => {
      const session = await openSession(place.first);
      const id = `q-undeclared-${crypto.randomUUID()}`;
      const before = place.model.requests.length;
      const hop1 = await session.hop(firstHop(id, TONE, { agent: 'page_builder' }));
      assert.equal(hop1.status, 200);
      const hop2 = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
      assert.equal(hop2.status, 200);
      assert.equal(hop2.body.waiting, undefined, 'nothing waits');
      const asked = place.model.requests.slice(before);
      assert.equal(asked.length, 2, 'hop 2 made its decision: the unknown tool did not stop it');
      assert.ok(asked.every((request) => !request.tools.includes('ask_question')));
      const result = asked[1]!.messages.findLast((message) => message.role === 'tool');
      assert.match(result?.role === 'tool' ? result.content : '', /^Unknown tool `ask_question`/);
      await session.cancel(id);
    });

    it('answers the hop that executes the question with `waiting` and no model call; the status shows it', async () => {
      const { at: session } = await sessionAt(place.first, place.second);
      const id = `q-waits-${crypto.randomUUID()}`;
      const before = place.model.requests.length;
      const { hop1, hop2 } = await untilWaiting(session, id);
      assert.equal(place.model.requests.length - before, 1, 'only hop 1 called the model');
      assert.ok(place.model.requests.at(-1)!.tools.includes('ask_question'), 'offered to a declaring client');
      assert.ok(hop2.should_continue);
      assert.deepEqual(hop2.outputs, []);
      assert.equal(hop2.progress, hop1.progress, 'the waiting hop adds no narration');
      const waiting = hop2.should_continue ? hop2.waiting : undefined;
      assert.deepEqual(waiting && { ...waiting, expires_at: 'checked below' }, {
        kind: 'question',
        call_id: 'call_tone',
        expires_at: 'checked below',
        question: {
          text: 'Which tone should the hero have?',
          choices: ['Playful', 'Elegant', 'Bold'],
          multiple: false,
          free_text: true,
        },
      });
      const expires = Date.parse(waiting!.expires_at) - Date.now();
      assert.ok(expires > 14 * 60_000 && expires <= 15 * 60_000, `waits 15 minutes (${expires} ms left)`);
      // Another instance (on Redis) sees the same question, and a repeat of the waiting hop gets it again.
      const seen = TurnStatusResponse.parse((await status(place.second, session, id)).body);
      assert.equal(seen.state, 'active');
      assert.deepEqual(seen.state === 'active' && { hop: seen.hop, waiting: seen.waiting }, { hop: 2, waiting });
      const repeat = await post(place.second, session, laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
      assert.deepEqual(repeat.body, hop2);
      assert.equal(place.model.requests.length - before, 1, 'neither the status nor the repeat called the model');
      await session.cancel(id);
    });

    it('turns the answer into the question’s result, which the model reads before its next decision', async () => {
      const { at: session, there } = await sessionAt(place.first, place.second);
      const id = `q-answer-${crypto.randomUUID()}`;
      await untilWaiting(session, id);
      const before = place.model.requests.length;
      const hop3 = await there.hop(answerHop(id, { call_id: 'call_tone', choices: [1] }));
      assert.equal(hop3.status, 200, JSON.stringify(hop3.body));
      assert.equal(hop3.body.waiting, undefined);
      const decided = place.model.requests.slice(before);
      assert.equal(decided.length, 1);
      const result = decided[0]!.messages.find((message) => message.role === 'tool' && message.call_id === 'call_tone');
      assert.deepEqual(result, {
        role: 'tool',
        call_id: 'call_tone',
        name: 'ask_question',
        content: 'The person answered: Elegant',
      });
      assert.match(hop3.body.progress, /The person answered: Elegant\. I'll add an elegant hero\.$/);
      const status3 = TurnStatusResponse.parse((await status(place.first, session, id)).body);
      assert.equal(status3.state === 'active' ? status3.waiting : 'finished', undefined, 'no longer waiting');
      await session.cancel(id);
    });

    it('words several picks and a text of their own in choice order, joined by "; "', async () => {
      const session = await openSession(place.first);
      const id = `q-text-${crypto.randomUUID()}`;
      await untilWaiting(session, id);
      const before = place.model.requests.length;
      const hop3 = await session.hop(answerHop(id, { call_id: 'call_tone', choices: [2], text: '  calm, please ' }));
      assert.equal(hop3.status, 200, JSON.stringify(hop3.body));
      const result = place.model.requests[before]!.messages.find((message) => message.role === 'tool');
      assert.equal(result?.role === 'tool' && result.content, 'The person answered: Bold; calm, please');
      await session.cancel(id);
    });

    it('tells the model of a dismissal, and the turn ends with its answer', async () => {
      const session = await openSession(place.first);
      const id = `q-dismiss-${crypto.randomUUID()}`;
      await untilWaiting(session, id, SECTIONS);
      const hop3 = await session.hop(answerHop(id, { call_id: 'call_sections', dismissed: true }));
      assert.equal(hop3.status, 200, JSON.stringify(hop3.body));
      assert.equal(hop3.body.should_continue, false);
      assert.match(hop3.body.message, /^The person dismissed the question without answering\. /);
    });

    it('refuses, changing nothing, a hop without the answer and answers that do not fit; then takes the right one', async () => {
      const session = await openSession(place.first);
      const id = `q-refused-${crypto.randomUUID()}`;
      await untilWaiting(session, id, SECTIONS);
      const refusals: Array<[unknown, number, string, string]> = [
        [laterHop(id, 3, EMPTY_LAYOUT, { agent: 'page_builder' }), 400, 'missing_field', 'answer'],
        [answerHop(id, { call_id: 'call_other', choices: [0] }), 400, 'invalid_request', 'answer.call_id'],
        [answerHop(id, { call_id: 'call_sections', choices: [0, 4] }), 400, 'invalid_request', 'answer.choices.1'],
        [answerHop(id, { call_id: 'call_sections', text: 'a hero' }), 400, 'invalid_request', 'answer.text'],
        [answerHop(id, { call_id: 'call_sections', choices: [] }), 400, 'invalid_request', 'answer'],
        [
          answerHop(id, { call_id: 'call_sections', dismissed: true, choices: [1] }),
          400,
          'invalid_request',
          'answer.dismissed',
        ],
        [answerHop(id, { call_id: 'call_sections', choices: [1, 1] }), 400, 'invalid_request', 'answer.choices'],
      ];
      for (const [body, code, error, field] of refusals) {
        const refused = await session.hop(body);
        assert.deepEqual(
          [refused.status, refused.body.error.code, refused.body.error.field, refused.body.progress],
          [code, error, field, ''],
          JSON.stringify(body),
        );
      }
      const seen = TurnStatusResponse.parse((await status(place.first, session, id)).body);
      assert.equal(seen.state === 'active' && seen.waiting?.call_id, 'call_sections', 'still waiting');
      const accepted = await session.hop(answerHop(id, { call_id: 'call_sections', choices: [0, 3] }));
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.match(accepted.body.message, /^The person answered: Hero; Contact /);
    });

    it('refuses an answer on a turn that waits for nothing', async () => {
      const session = await openSession(place.first);
      const id = `q-stray-${crypto.randomUUID()}`;
      const hop1 = await session.hop(
        firstHop(id, TONE, { agent: 'page_builder', ...DECLARES, answer: { kind: 'question', call_id: 'x' } }),
      );
      assert.deepEqual([hop1.status, hop1.body.error.code, hop1.body.error.field], [400, 'invalid_request', 'answer']);
      assert.equal((await status(place.first, session, id)).status, 410, 'no turn started');
    });

    it('cancels a waiting turn: DELETE says it was running, and the answer then gets 410', async () => {
      const session = await openSession(place.first);
      const id = `q-cancel-${crypto.randomUUID()}`;
      await untilWaiting(session, id);
      const cancelled = await session.cancel(id);
      assert.deepEqual([cancelled.status, cancelled.body.cancelled], [200, true]);
      assert.equal((await status(place.second, session, id)).body.error.code, 'turn_not_found');
      const late = await session.hop(answerHop(id, { call_id: 'call_tone', choices: [0] }));
      assert.deepEqual([late.status, late.body.error.code], [410, 'turn_not_found']);
    });

    it('expires a wait after its time: the status and the answer get 410 wait_expired, then nothing is left', async () => {
      const short = await start({ ttl: { waitMs: 300 } });
      try {
        const session = await openSession(short.first);
        const id = `q-expire-${crypto.randomUUID()}`;
        const { hop2 } = await untilWaiting(session, id);
        const waiting = hop2.should_continue ? hop2.waiting : undefined;
        await sleep(Math.max(0, Date.parse(waiting!.expires_at) - Date.now()) + 100);
        const seen = await status(short.second, session, id);
        assert.deepEqual([seen.status, seen.body.error.code], [410, 'wait_expired']);
        assert.match(seen.body.message, /waited too long/);
        const late = await post(short.second, session, answerHop(id, { call_id: 'call_tone', choices: [0] }));
        assert.deepEqual([late.status, late.body.error.code, late.body.progress], [410, 'wait_expired', '']);
        assert.equal((await status(short.first, session, id)).body.error.code, 'turn_not_found', 'the turn is gone');
        const again = await session.hop(answerHop(id, { call_id: 'call_tone', choices: [0] }));
        assert.equal(again.body.error.code, 'turn_not_found');
      } finally {
        await short.close();
      }
    });

    it('counts a waiting turn against its session’s quota until it ends', async () => {
      const small = await start({ quotas: { session: { maxTurns: 1 } } });
      try {
        const session = await openSession(small.first);
        const id = `q-quota-${crypto.randomUUID()}`;
        await untilWaiting(session, id);
        const other = await session.hop(firstHop(`q-quota-other-${crypto.randomUUID()}`, 'Hello'));
        assert.deepEqual([other.status, other.body.error.code], [429, 'quota_exceeded']);
        await session.cancel(id);
        const freed = await session.hop(firstHop(`q-quota-freed-${crypto.randomUUID()}`, 'Hello'));
        assert.equal(freed.status, 200, 'the cancelled waiting turn freed its share');
      } finally {
        await small.close();
      }
    });
  });
}

questionSuite('on the memory store', async (overrides) => {
  const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
  const server = await startTestServer({ provider: model, ...overrides });
  return { first: server, second: server, model, close: () => server.close() };
});

let redis: RedisServer | undefined;
after(() => redis?.close());
questionSuite('on Redis, each turn served by two instances', async (overrides) => {
  redis ??= await startRedisServer();
  const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
  const cluster = await startCluster(redis.url, 2, () => ({ provider: model, ...overrides }));
  const [first, second] = cluster.instances as [TestServer, TestServer];
  return { first, second, model, close: () => cluster.close() };
});
