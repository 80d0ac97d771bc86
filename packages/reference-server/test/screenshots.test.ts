// A look at the page (spec/hop-protocol.md §20.3) over HTTP, in every state: offered only when declared, the waiting
// hop and its status, the image as the one attachment of the answer (multipart) given to the model, the host that
// cannot, refused answers, a component the page does not hold, and cancel; on the memory store, and on Redis with the
// hops of one turn alternating between two instances.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HopResponse, type Layout, TurnStatusResponse } from '@canvas-ai/protocol';
import { SCREENSHOT_SENT_RESULT, SCREENSHOT_UNAVAILABLE_RESULT } from '@canvas-ai/protocol/server';
import type { AppOptions } from '../src/app.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { EMPTY_LAYOUT, firstHop, laterHop, openSession, sharedFixtures, startTestServer } from './support/harness.js';
import type { JsonBody, TestServer, TestSession } from './support/harness.js';
import { startCluster } from './support/instances.js';
import { RecordingProvider } from './support/providers.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';

const fixtures = await sharedFixtures();
const PAGE = 'Take a look at my page and tell me how it looks';
const HERO = 'Look at the hero and tell me whether it works';
const COOKIE_SHOP = fixtures.layouts['layouts/cookie-shop.yaml'] as Layout;
const PNG = fixtures.attachments['attachments/cookie.png']!;
const DECLARES = { capabilities: { waits: ['screenshot'] } };

interface Place {
  first: TestServer;
  second: TestServer;
  model: RecordingProvider;
  close(): Promise<void>;
}

/** POSTs `body` to `server` as multipart with `files` as its `attachments` parts (spec §4.3). */
async function postMultipart(server: TestServer, session: TestSession, body: unknown, files: Blob[]) {
  const form = new FormData();
  form.append('request', JSON.stringify(body));
  for (const [index, file] of files.entries()) form.append('attachments', file, `screenshot-${index}.png`);
  const reply = await fetch(`${server.url}/api/hop`, { method: 'POST', headers: session.headers(), body: form });
  return { status: reply.status, body: (await reply.json()) as JsonBody };
}

async function postJson(server: TestServer, session: TestSession, body: unknown) {
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

const png = () => new Blob([PNG.slice()], { type: 'image/png' });

/** Hops 1 and 2 of a screenshot scenario on `layout`: hop 2 is the waiting hop. */
async function untilWaiting(session: TestSession, id: string, message = PAGE, layout: Layout = EMPTY_LAYOUT) {
  const context = { current_layout: structuredClone(layout) };
  const hop1 = await session.hop(firstHop(id, message, { agent: 'page_builder', ...DECLARES, context }));
  assert.equal(hop1.status, 200, JSON.stringify(hop1.body));
  const hop2 = await session.hop(laterHop(id, 2, layout, { agent: 'page_builder' }));
  assert.equal(hop2.status, 200, JSON.stringify(hop2.body));
  return HopResponse.parse(hop2.body);
}

/** The answer hop (hop 3) of a turn waiting on `callId`. */
function answerHop(id: string, answer: Record<string, unknown>, layout: Layout = EMPTY_LAYOUT) {
  return laterHop(id, 3, layout, { agent: 'page_builder', answer: { kind: 'screenshot', ...answer } });
}

function screenshotSuite(name: string, start: (overrides: Partial<AppOptions>) => Promise<Place>): void {
  describe(`a look at the page, ${name}`, () => {
    let place: Place;
    before(async () => {
      place = await start({});
    });
    after(() => place.close());

    it('offers request_screenshot only to a client that declared the wait `screenshot`', async () => {
      const session = await openSession(place.first);
      const id = `s-undeclared-${crypto.randomUUID()}`;
      const before = place.model.requests.length;
      const asks = { agent: 'page_builder', capabilities: { waits: ['question'] } };
      assert.equal((await session.hop(firstHop(id, PAGE, asks))).status, 200);
      const hop2 = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
      assert.equal(hop2.status, 200);
      assert.equal(hop2.body.waiting, undefined, 'nothing waits');
      const asked = place.model.requests.slice(before);
      assert.equal(asked.length, 2, 'hop 2 made its decision');
      assert.ok(asked.every((request) => !request.tools.includes('request_screenshot')));
      assert.ok(asked[0]!.tools.includes('ask_question'), 'the declared kind is still offered');
      const result = asked[1]!.messages.findLast((message) => message.role === 'tool');
      assert.match(result?.role === 'tool' ? result.content : '', /^Unknown tool `request_screenshot`/);
      await session.cancel(id);
    });

    it('answers the hop that executes the call with `waiting` and no model call; the status shows it', async () => {
      const session = await openSession(place.first);
      const id = `s-waits-${crypto.randomUUID()}`;
      const before = place.model.requests.length;
      const hop2 = await untilWaiting(session, id);
      assert.equal(place.model.requests.length - before, 1, 'only hop 1 called the model');
      assert.ok(place.model.requests.at(-1)!.tools.includes('request_screenshot'), 'offered to a declaring client');
      const waiting = hop2.should_continue ? hop2.waiting : undefined;
      assert.deepEqual(waiting && { ...waiting, expires_at: 'a date' }, {
        kind: 'screenshot',
        call_id: 'call_look',
        expires_at: 'a date',
        screenshot: { component_uuid: null },
      });
      const seen = TurnStatusResponse.parse((await status(place.second, session, id)).body);
      assert.deepEqual(seen.state === 'active' && { hop: seen.hop, waiting: seen.waiting }, { hop: 2, waiting });
      assert.equal(place.model.requests.length - before, 1, 'the status called no model');
      await session.cancel(id);
    });

    it('gives the model the image after the call’s fixed result; the turn answers', async () => {
      const session = await openSession(place.first);
      const id = `s-image-${crypto.randomUUID()}`;
      await untilWaiting(session, id);
      const before = place.model.requests.length;
      const hop3 = await postMultipart(place.second, session, answerHop(id, { call_id: 'call_look' }), [png()]);
      assert.equal(hop3.status, 200, JSON.stringify(hop3.body));
      assert.equal(hop3.body.should_continue, false);
      assert.equal(hop3.body.message.startsWith(`${SCREENSHOT_SENT_RESULT} `), true, hop3.body.message);
      const decided = place.model.requests.slice(before);
      assert.equal(decided.length, 1);
      const messages = decided[0]!.messages;
      const result = messages.findIndex((message) => message.role === 'tool' && message.call_id === 'call_look');
      assert.deepEqual(messages[result], {
        role: 'tool',
        call_id: 'call_look',
        name: 'request_screenshot',
        content: SCREENSHOT_SENT_RESULT,
      });
      const image = messages.slice(result + 1).find((message) => message.role === 'user');
      assert.ok(image?.role === 'user', 'a user message after the result holds the image');
      assert.deepEqual(
        image.attachments.map((file) => [file.media_type, file.data]),
        [['image/png', Buffer.from(PNG).toString('base64')]],
      );
    });

    it('tells the model in fixed words when the host cannot take one, for a region around a component', async () => {
      const session = await openSession(place.first);
      const id = `s-unavailable-${crypto.randomUUID()}`;
      const hop2 = await untilWaiting(session, id, HERO, COOKIE_SHOP);
      assert.deepEqual(hop2.should_continue && hop2.waiting?.kind === 'screenshot' && hop2.waiting.screenshot, {
        component_uuid: 'hero-1',
      });
      const before = place.model.requests.length;
      const hop3 = await postJson(
        place.second,
        session,
        answerHop(id, { call_id: 'call_hero_look', unavailable: true }, COOKIE_SHOP),
      );
      assert.equal(hop3.status, 200, JSON.stringify(hop3.body));
      const messages = place.model.requests[before]!.messages;
      const result = messages.find((message) => message.role === 'tool' && message.call_id === 'call_hero_look');
      assert.equal(result?.role === 'tool' && result.content, SCREENSHOT_UNAVAILABLE_RESULT);
      assert.ok(!messages.some((message) => message.role === 'user' && message.attachments.length > 0), 'no image');
      assert.equal(hop3.body.message.startsWith(`${SCREENSHOT_UNAVAILABLE_RESULT} `), true);
    });

    it('makes nothing wait for a component the page does not hold: the model hears why', async () => {
      const session = await openSession(place.first);
      const id = `s-unknown-${crypto.randomUUID()}`;
      assert.equal((await session.hop(firstHop(id, HERO, { agent: 'page_builder', ...DECLARES }))).status, 200);
      const before = place.model.requests.length;
      const hop2 = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
      assert.equal(hop2.status, 200);
      assert.equal(hop2.body.waiting, undefined);
      const result = place.model.requests[before]!.messages.findLast((message) => message.role === 'tool');
      assert.match(result?.role === 'tool' ? result.content : '', /no component with uuid `hero-1`/);
    });

    it('refuses, changing nothing, answers that do not fit; then takes the image', async () => {
      const session = await openSession(place.first);
      const id = `s-refused-${crypto.randomUUID()}`;
      await untilWaiting(session, id);
      const answer = { call_id: 'call_look' };
      const refusals: Array<[() => Promise<{ status: number; body: JsonBody }>, string, string]> = [
        [() => session.hop(laterHop(id, 3, EMPTY_LAYOUT, { agent: 'page_builder' })), 'missing_field', 'answer'],
        [
          () =>
            session.hop(
              laterHop(id, 3, EMPTY_LAYOUT, {
                agent: 'page_builder',
                answer: { kind: 'question', call_id: 'call_look', choices: [0] },
              }),
            ),
          'invalid_request',
          'answer.kind',
        ],
        [
          () => session.hop(answerHop(id, { call_id: 'call_other', unavailable: true })),
          'invalid_request',
          'answer.call_id',
        ],
        [() => session.hop(answerHop(id, answer)), 'missing_field', 'attachments'],
        [
          () => postMultipart(place.first, session, answerHop(id, { ...answer, unavailable: true }), [png()]),
          'invalid_request',
          'answer.unavailable',
        ],
        [
          () => postMultipart(place.first, session, answerHop(id, answer), [png(), png()]),
          'attachment_rejected',
          'attachments',
        ],
        [
          () => postMultipart(place.first, session, answerHop(id, answer), [new Blob(['not an image'])]),
          'attachment_rejected',
          'attachments.0',
        ],
        [
          () => postMultipart(place.first, session, laterHop(id, 3, EMPTY_LAYOUT, { agent: 'page_builder' }), [png()]),
          'attachment_rejected',
          'attachments',
        ],
      ];
      for (const [sent, code, field] of refusals) {
        const refused = await sent();
        assert.deepEqual([refused.status, refused.body.error.code, refused.body.error.field], [400, code, field]);
      }
      const seen = TurnStatusResponse.parse((await status(place.first, session, id)).body);
      assert.equal(seen.state === 'active' && seen.waiting?.call_id, 'call_look', 'still waiting');
      const accepted = await postMultipart(place.second, session, answerHop(id, answer), [png()]);
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    });

    it('cancels a turn waiting for a screenshot: the image sent after it gets 410', async () => {
      const session = await openSession(place.first);
      const id = `s-cancel-${crypto.randomUUID()}`;
      await untilWaiting(session, id);
      const cancelled = await session.cancel(id);
      assert.deepEqual([cancelled.status, cancelled.body.cancelled], [200, true]);
      const late = await postMultipart(place.second, session, answerHop(id, { call_id: 'call_look' }), [png()]);
      assert.deepEqual([late.status, late.body.error.code], [410, 'turn_not_found']);
    });
  });
}

screenshotSuite('on the memory store', async (overrides) => {
  const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
  const server = await startTestServer({ provider: model, ...overrides });
  return { first: server, second: server, model, close: () => server.close() };
});

let redis: RedisServer | undefined;
after(() => redis?.close());
screenshotSuite('on Redis, each turn served by two instances', async (overrides) => {
  redis ??= await startRedisServer();
  const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
  const cluster = await startCluster(redis.url, 2, () => ({ provider: model, ...overrides }));
  const [first, second] = cluster.instances as [TestServer, TestServer];
  return { first, second, model, close: () => cluster.close() };
});
