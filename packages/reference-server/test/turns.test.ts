import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyOutputs } from '@canvas-ai/protocol';
import { HopError } from '@canvas-ai/protocol/server';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { MemoryTurnStore } from '../src/store/memory.js';
import { FailingSetStore } from './support/failing-store.js';
import {
  firstHop,
  laterHop,
  openSession,
  sharedFixtures,
  startTestServer,
  type TestServer,
  EMPTY_LAYOUT,
} from './support/harness.js';
import { ListProvider, RecordingProvider } from './support/providers.js';

const fixtures = await sharedFixtures();
const HERO = 'Add a hero for my bakery, Crumb & Co.';

describe('turn rules over HTTP: replay, 409, 410, cancel, failures', () => {
  let server: TestServer;
  let model: RecordingProvider;
  let now = 1_000_000;
  before(async () => {
    model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    server = await startTestServer({ provider: model, store: new MemoryTurnStore({ now: () => now }) });
  });
  after(() => server.close());

  it('answers a repeated hop from the stored response and executes nothing twice', async () => {
    const session = await openSession(server);
    const id = `replay-${crypto.randomUUID()}`;
    const decisions = model.requests.length;
    const hop1 = await session.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    const again1 = await session.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    assert.equal(again1.status, 200);
    assert.deepEqual(again1.body, hop1.body);

    const hop2 = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    const again2 = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.deepEqual(again2.body, hop2.body, 'the same outputs, with the same server-assigned uuid');
    assert.equal(model.requests.length - decisions, 2, 'one model decision per hop, none for the repeats');
    const executions = server.logs.filter((entry) => entry.event === 'hop' && entry.request_id === id);
    assert.equal(executions.length, 2);
    assert.equal(server.logs.filter((entry) => entry.event === 'hop_replayed' && entry.request_id === id).length, 2);
  });

  it('keeps the final response replayable for a short while, then answers 410', async () => {
    const session = await openSession(server);
    const id = `final-${crypto.randomUUID()}`;
    await session.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    const placing = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.equal(placing.body.should_continue, true, 'the answer waits for the report on the hero');
    // The last hop reports the hero applied, on the page the host holds now.
    const hop3 = laterHop(id, 3, applyOutputs({ layout: EMPTY_LAYOUT, page: {} }, placing.body.outputs).layout, {
      agent: 'page_builder',
      apply_results: [{ call_id: 'call_hero', status: 'applied' }],
    });
    const last = await session.hop(hop3);
    assert.equal(last.status, 200);
    assert.equal(last.body.should_continue, false);
    assert.deepEqual((await session.hop(hop3)).body, last.body);
    const beyond = await session.hop(laterHop(id, 4, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.equal(beyond.status, 410);
    assert.equal(beyond.body.error.code, 'turn_not_found');
    now += 61_000;
    const expired = await session.hop(hop3);
    assert.equal(expired.status, 410);
  });

  it('answers 410 to a later hop of a turn it never saw', async () => {
    const session = await openSession(server);
    const reply = await session.hop(laterHop('never-started', 2, EMPTY_LAYOUT));
    assert.equal(reply.status, 410);
    assert.equal(reply.body.error.code, 'turn_not_found');
    assert.equal(reply.body.request_id, 'never-started');
  });

  it('answers 409 to a hop while the previous hop of the same turn still runs, and the running hop completes', async () => {
    const session = await openSession(server);
    const id = `busy-${crypto.randomUUID()}`;
    const hold = model.holdNext();
    const running = session.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    await hold.entered;
    const concurrent = await session.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    assert.equal(concurrent.status, 409);
    assert.equal(concurrent.body.error.code, 'hop_in_progress');
    hold.release();
    const first = await running;
    assert.equal(first.status, 200);
    assert.equal(first.body.should_continue, true);
  });

  it('answers 409 to a hop out of order, and the turn carries on', async () => {
    const session = await openSession(server);
    const id = `order-${crypto.randomUUID()}`;
    await session.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    const skipped = await session.hop(laterHop(id, 3, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.equal(skipped.status, 409);
    assert.equal(skipped.body.error.code, 'hop_out_of_order');
    const next = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.equal(next.status, 200);
    assert.equal(next.body.outputs.length, 1);
  });

  it('answers 409 agent_changed when a later hop names another agent, and the turn carries on', async () => {
    const session = await openSession(server);
    const id = `agent-${crypto.randomUUID()}`;
    await session.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    const changed = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'copy_editor' }));
    assert.equal(changed.status, 409);
    assert.equal(changed.body.error.code, 'agent_changed');
    const omitted = await session.hop(laterHop(id, 2, EMPTY_LAYOUT));
    assert.equal(omitted.status, 409, 'no agent means the main agent, which is another agent');
    assert.equal((await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).status, 200);
  });

  it('cancels a turn: its parked calls are logged as cancelled, later hops get 410, cancelling again is a no-op', async () => {
    const session = await openSession(server);
    const id = `cancel-${crypto.randomUUID()}`;
    await session.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    const cancel = await session.cancel(id);
    assert.equal(cancel.status, 200);
    assert.deepEqual(cancel.body, { status: true, request_id: id, cancelled: true });
    const log = server.logs.find((entry) => entry.event === 'turn_cancelled' && entry.request_id === id)!;
    assert.deepEqual(log.cancelled_calls, [{ call_id: 'call_hero', name: 'place_components' }]);
    assert.equal((await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).status, 410);
    assert.deepEqual((await session.cancel(id)).body, { status: true, request_id: id, cancelled: false });
    assert.deepEqual((await session.cancel('no-such-turn')).body, {
      status: true,
      request_id: 'no-such-turn',
      cancelled: false,
    });
  });

  it('drops the result of a hop that was running when the turn was cancelled', async () => {
    const session = await openSession(server);
    const id = `cancel-running-${crypto.randomUUID()}`;
    const hold = model.holdNext();
    const running = session.hop(firstHop(id, HERO, { agent: 'page_builder' }));
    await hold.entered;
    assert.equal((await session.cancel(id)).body.cancelled, true);
    hold.release();
    const dropped = await running;
    assert.equal(dropped.status, 410);
    assert.equal((await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).status, 410);
  });
});

describe('a failing hop deletes the turn and keeps the narration', () => {
  const parked = {
    text: 'I will add a hero.',
    toolCalls: [
      {
        id: 'c1',
        name: 'place_components',
        arguments:
          '{"operations":[{"target":"content","placement":"inside","components":"- sdc.demo.hero:\\n    props:\\n      heading: Hi\\n"}]}',
      },
    ],
  };

  it('answers 502 provider_error when the model fails, with the progress so far, and the turn is gone', async () => {
    const server = await startTestServer({
      provider: new ListProvider([parked, new HopError('provider_error', 'The model endpoint answered 500.')]),
    });
    try {
      const session = await openSession(server);
      await session.hop(firstHop('fail-1', 'Add a hero', { agent: 'page_builder' }));
      const failed = await session.hop(laterHop('fail-1', 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
      assert.equal(failed.status, 502);
      assert.equal(failed.body.error.code, 'provider_error');
      assert.equal(failed.body.progress, 'I will add a hero.');
      assert.equal(failed.body.should_continue, false);
      assert.equal(
        (await session.hop(laterHop('fail-1', 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).status,
        410,
        'no retry into a broken turn',
      );
      assert.equal(server.store.size, 0);
    } finally {
      await server.close();
    }
  });

  it('treats any exception of a provider as a 502 provider_error', async () => {
    const server = await startTestServer({ provider: new ListProvider([new TypeError('socket hang up')]) });
    try {
      const session = await openSession(server);
      const failed = await session.hop(firstHop('fail-2', 'Hi'));
      assert.equal(failed.status, 502);
      assert.equal(failed.body.error.code, 'provider_error');
      assert.match(failed.body.message, /^The model is unavailable/);
      assert.doesNotMatch(failed.body.message, /socket hang up/, 'the provider’s own words are for the log');
      const logged = server.logs.find((entry) => entry.event === 'hop_failed');
      assert.match(String(logged?.detail), /The model provider failed: socket hang up/);
    } finally {
      await server.close();
    }
  });

  it('answers 500 internal_error when a tool crashes, logs it, and deletes the turn', async () => {
    const crashing = {
      name: 'crash',
      description: 'Always crashes.',
      input: (await import('zod')).z.object({}),
      allowParallel: true,
      execute(): never {
        throw new Error('disk on fire');
      },
    };
    const agents = structuredClone(fixtures.agents);
    agents.agents.page_builder!.tools.push('crash');
    const server = await startTestServer({
      agents,
      tools: [crashing],
      provider: new ListProvider([
        { text: 'Crashing now.', toolCalls: [{ id: 'k1', name: 'crash', arguments: '{}' }] },
      ]),
    });
    try {
      const session = await openSession(server);
      await session.hop(firstHop('crash-1', 'Crash', { agent: 'page_builder' }));
      const failed = await session.hop(laterHop('crash-1', 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
      assert.equal(failed.status, 500);
      assert.equal(failed.body.error.code, 'internal_error');
      assert.equal(failed.body.progress, 'Crashing now.');
      assert.doesNotMatch(failed.body.message, /disk on fire/, 'internals stay in the log');
      const log = server.logs.find((entry) => entry.event === 'hop_failed')!;
      assert.match(String(log.error), /disk on fire/);
      assert.equal(server.store.size, 0);
    } finally {
      await server.close();
    }
  });
});

describe('a store that cannot save a hop', () => {
  it("answers 503 store_unavailable, keeps the previous hop's turn, and the same hop sent again runs and the turn completes", async () => {
    const store = new FailingSetStore(new MemoryTurnStore());
    const server = await startTestServer({ store });
    try {
      const session = await openSession(server);
      const id = `unsaved-${crypto.randomUUID()}`;
      assert.equal((await session.hop(firstHop(id, HERO, { agent: 'page_builder' }))).status, 200);
      store.failNextSet();
      const failed = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
      assert.equal(failed.status, 503);
      assert.equal(failed.body.error.code, 'store_unavailable');
      const hero = fixtures.scenarios.find((scenario) => scenario.id === 'place-hero-two-hop')!;
      assert.equal(failed.body.progress, hero.replies[0]!.text, 'the narration so far');
      const retried = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
      assert.equal(retried.status, 200, 'nothing of the failed hop was delivered, so it runs again');
      assert.equal(retried.body.should_continue, true, 'the answer waits for the report on the hero');
      assert.equal(retried.body.outputs.length, 1, 'the hero is placed');
      const placed = applyOutputs({ layout: EMPTY_LAYOUT, page: {} }, retried.body.outputs).layout;
      const last = await session.hop(
        laterHop(id, 3, placed, {
          agent: 'page_builder',
          apply_results: [{ call_id: 'call_hero', status: 'applied' }],
        }),
      );
      assert.equal(last.status, 200);
      assert.equal(last.body.should_continue, false, 'the turn completes');
      assert.equal(last.body.message, hero.replies[1]!.text);
      assert.equal(
        server.logs.filter((entry) => entry.event === 'hop_failed' && entry.code === 'store_unavailable').length,
        1,
      );
    } finally {
      await server.close();
    }
  });
});
