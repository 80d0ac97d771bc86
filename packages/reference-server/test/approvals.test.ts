// Approval of destructive changes (spec/hop-protocol.md §20.5) over HTTP, in every state: a client that cannot ask
// never gets the change, the proposal waits with its changes named (no uuid) and calls no model, the status shows
// it, a rejection sends nothing, an approval sends the output with the hop that brings it, refused answers change
// nothing; on the memory store, and on Redis with the hops of one turn alternating between two instances.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HopResponse, type Layout, TurnStatusResponse } from '@canvas-ai/protocol';
import { APPROVAL_UNAVAILABLE_RESULT, APPROVED_RESULT, REJECTED_RESULT } from '@canvas-ai/protocol/server';
import type { AppOptions } from '../src/app.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { firstHop, laterHop, openSession, sharedFixtures, startTestServer } from './support/harness.js';
import type { JsonBody, TestServer, TestSession } from './support/harness.js';
import { startCluster } from './support/instances.js';
import { RecordingProvider } from './support/providers.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';

const fixtures = await sharedFixtures();
const REJECT = 'Remove the selected component, after asking me';
const APPROVE = 'Remove the testimonials once I approve';
const PAGE = fixtures.layouts['layouts/cookie-shop.yaml'] as Layout;
const OUTPUTS = ['remove_components', 'move_components'];
const context = { current_layout: PAGE, selected_component: 'testimonials-1' };
const agent = 'careful_builder';

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

/** Hops 1 and 2 of an approval scenario, declaring `waits`: hop 2 executes the removal. */
async function untilProposed(session: TestSession, id: string, message: string, waits = ['approval']) {
  const capabilities = { outputs: OUTPUTS, waits };
  const hop1 = await session.hop(firstHop(id, message, { agent, capabilities, context }));
  assert.equal(hop1.status, 200, JSON.stringify(hop1.body));
  const hop2 = await session.hop(laterHop(id, 2, PAGE, { agent, context }));
  assert.equal(hop2.status, 200, JSON.stringify(hop2.body));
  return HopResponse.parse(hop2.body);
}

const answerHop = (id: string, answer: Record<string, unknown>) =>
  laterHop(id, 3, PAGE, { agent, context, answer: { kind: 'approval', call_id: 'call_remove', ...answer } });

function approvalSuite(name: string, start: (overrides: Partial<AppOptions>) => Promise<Place>): void {
  describe(`approval of destructive changes, ${name}`, () => {
    let place: Place;
    before(async () => {
      place = await start({});
    });
    after(() => place.close());

    it('never sends a marked output to a client that did not declare the wait; the model is told why', async () => {
      const session = await openSession(place.first);
      const id = `a-undeclared-${crypto.randomUUID()}`;
      const before = place.model.requests.length;
      const hop2 = await untilProposed(session, id, REJECT, ['question']);
      assert.deepEqual(hop2.outputs, [], 'the removal was not sent');
      assert.equal(hop2.should_continue ? hop2.waiting : undefined, undefined);
      const told = place.model.requests[before + 1]!.messages.find((message) => message.role === 'tool');
      assert.equal(told?.role === 'tool' && told.content, APPROVAL_UNAVAILABLE_RESULT);
    });

    it('holds the removal as a proposal named by its component, calls no model, and shows it in the status', async () => {
      const session = await openSession(place.first);
      const id = `a-waits-${crypto.randomUUID()}`;
      const before = place.model.requests.length;
      const hop2 = await untilProposed(session, id, REJECT);
      assert.equal(place.model.requests.length - before, 1, 'only hop 1 called the model');
      assert.deepEqual(hop2.outputs, []);
      const waiting = hop2.should_continue ? hop2.waiting : undefined;
      assert.deepEqual(waiting && { ...waiting, expires_at: 'a date' }, {
        kind: 'approval',
        call_id: 'call_remove',
        expires_at: 'a date',
        approval: {
          changes: [
            {
              call_id: 'call_remove',
              type: 'remove_components',
              components: [{ component: 'sdc.demo.section', name: 'Section', text: 'Why people love us', inside: 3 }],
            },
          ],
        },
      });
      assert.ok(!JSON.stringify(waiting).includes('testimonials-1'), 'no uuid is shown to the person');
      const seen = TurnStatusResponse.parse((await status(place.second, session, id)).body);
      assert.deepEqual(seen.state === 'active' && seen.waiting, waiting);
      await session.cancel(id);
    });

    it('sends nothing of a rejected change, and tells the model it was rejected', async () => {
      const session = await openSession(place.first);
      const id = `a-reject-${crypto.randomUUID()}`;
      await untilProposed(session, id, REJECT);
      const before = place.model.requests.length;
      const hop3 = await post(place.second, session, answerHop(id, { approved: [] }));
      assert.equal(hop3.status, 200, JSON.stringify(hop3.body));
      assert.deepEqual([hop3.body.outputs, hop3.body.should_continue], [[], false]);
      assert.equal(hop3.body.message, `${REJECTED_RESULT} It stays on the page.`);
      const told = place.model.requests[before]!.messages.find((message) => message.role === 'tool');
      assert.equal(told?.role === 'tool' && told.content, REJECTED_RESULT);
    });

    it('sends an approved change with the hop that brings the approval, and tells the model', async () => {
      const session = await openSession(place.first);
      const id = `a-approve-${crypto.randomUUID()}`;
      await untilProposed(session, id, APPROVE);
      const before = place.model.requests.length;
      const hop3 = await post(place.second, session, answerHop(id, { approved: ['call_remove'] }));
      assert.equal(hop3.status, 200, JSON.stringify(hop3.body));
      assert.deepEqual(
        hop3.body.outputs.map((output: JsonBody) => [output.type, output.uuids]),
        [['remove_components', ['testimonials-1']]],
      );
      const told = place.model.requests[before]!.messages.find((message) => message.role === 'tool');
      assert.match(told?.role === 'tool' ? told.content : '', new RegExp(`^${APPROVED_RESULT}\\nRemoved 1 component:`));
      const after = structuredClone(PAGE);
      after.regions.content!.components = after.regions.content!.components.filter(
        (node) => node.uuid !== 'testimonials-1',
      );
      const results = [{ call_id: 'call_remove', status: 'applied' }];
      const hop4 = await session.hop(laterHop(id, 4, after, { agent, context, apply_results: results }));
      assert.equal(hop4.status, 200, JSON.stringify(hop4.body));
      assert.equal(hop4.body.message, `${APPROVED_RESULT} The testimonials are gone.`);
    });

    it('refuses, changing nothing, an approval of a change not proposed and an answer of another kind', async () => {
      const session = await openSession(place.first);
      const id = `a-refused-${crypto.randomUUID()}`;
      await untilProposed(session, id, REJECT);
      const stray = await session.hop(answerHop(id, { approved: ['call_other'] }));
      assert.deepEqual(
        [stray.status, stray.body.error.code, stray.body.error.field],
        [400, 'invalid_request', 'answer.approved.0'],
      );
      const question = await session.hop(
        laterHop(id, 3, PAGE, { agent, context, answer: { kind: 'question', call_id: 'call_remove', choices: [0] } }),
      );
      assert.deepEqual([question.status, question.body.error.field], [400, 'answer.kind']);
      const right = await session.hop(answerHop(id, { approved: [] }));
      assert.equal(right.status, 200, JSON.stringify(right.body));
    });
  });
}

approvalSuite('on the memory store', async (overrides) => {
  const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
  const server = await startTestServer({ provider: model, ...overrides });
  return { first: server, second: server, model, close: () => server.close() };
});

let redis: RedisServer | undefined;
after(() => redis?.close());
approvalSuite('on Redis, each turn served by two instances', async (overrides) => {
  redis ??= await startRedisServer();
  const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
  const cluster = await startCluster(redis.url, 2, () => ({ provider: model, ...overrides }));
  const [first, second] = cluster.instances as [TestServer, TestServer];
  return { first, second, model, close: () => cluster.close() };
});
