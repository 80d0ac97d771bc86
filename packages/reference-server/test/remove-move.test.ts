// Removing and moving over real HTTP (spec §11.4, §11.5, §12), and the negotiation that keeps them from clients that cannot
// apply them (spec §5.1, §14.2): the tools are offered only to a turn whose client declared their outputs on hop 1.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findComponent, HopResponse } from '@canvas-ai/protocol';
import { driveScenario, type Scenario } from '@canvas-ai/protocol/scenario';
import { ScriptedProvider } from '../src/providers/scripted.js';
import type { ModelMessage } from '../src/turn-state.js';
import { laterHop, openSession, sharedFixtures, startTestServer, type TestServer } from './support/harness.js';
import { RecordingProvider } from './support/providers.js';

const fixtures = await sharedFixtures();
const scenario = (id: string): Scenario => fixtures.scenarios.find((candidate) => candidate.id === id)!;
const cookieShop = fixtures.layouts['layouts/cookie-shop.yaml']!;

describe('remove_components and move_components over HTTP', () => {
  let server: TestServer;
  let model: RecordingProvider;
  before(async () => {
    model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    server = await startTestServer({ provider: model });
  });
  after(() => server.close());

  async function play(played: Scenario) {
    const session = await openSession(server);
    const run = await driveScenario(played, { endpoint: server.hopUrl, fixtures, headers: () => session.headers() });
    assert.deepEqual(
      run.hops.flatMap((hop) => [...hop.mismatches, ...hop.replacesProblems]),
      [],
    );
    return run;
  }

  it('gives the page builder the remove and move tools, and the copy editor neither', () => {
    const { page_builder, copy_editor } = fixtures.agents.agents;
    assert.ok(page_builder!.tools.includes('remove_components') && page_builder!.tools.includes('move_components'));
    assert.ok(!copy_editor!.tools.includes('remove_components') && !copy_editor!.tools.includes('move_components'));
  });

  it('drops the testimonials: one removal, its quotes with it, and the answer once it was reported applied', async () => {
    const run = await play(scenario('remove-testimonials'));
    const content = run.document.layout.regions.content!.components.map((node) => node.uuid);
    assert.deepEqual(content, ['hero-1', 'bestsellers-1', 'story-1', 'footer-1']);
    for (const gone of ['testimonials-grid', 'quote-1', 'quote-2'])
      assert.equal(findComponent(run.document.layout, gone), undefined, gone);
    const hop2 = HopResponse.parse(run.hops[1]!.body);
    const [output] = hop2.outputs;
    assert.equal(output?.type, 'remove_components');
    assert.deepEqual(output?.type === 'remove_components' ? output.replaces : undefined, {
      'testimonials-1': findComponent(cookieShop, 'testimonials-1'),
    });
    const request = model.requests.findLast((candidate) => candidate.turn.userMessage === 'Drop the testimonials');
    assert.ok(request?.tools.includes('remove_components') && request.tools.includes('move_components'));
    assert.match(request!.system, /take components off the page with remove_components/);
  });

  it('moves the testimonials below the hero after a move into their own grid was refused with a readable error', async () => {
    const played = scenario('move-testimonials-up');
    const run = await play(played);
    assert.deepEqual(
      run.document.layout.regions.content!.components.map((node) => node.uuid),
      ['hero-1', 'testimonials-1', 'bestsellers-1', 'story-1', 'footer-1'],
    );
    assert.deepEqual(findComponent(run.document.layout, 'testimonials-1'), findComponent(cookieShop, 'testimonials-1'));
    const decision2 = model.requests.findLast(
      (candidate) => candidate.turn.userMessage === played.user_message && candidate.turn.decision === 2,
    )!;
    const refused = decision2.messages.find(
      (message): message is Extract<ModelMessage, { role: 'tool' }> =>
        message.role === 'tool' && message.call_id === 'call_wrong',
    );
    assert.match(
      refused?.content ?? '',
      /cannot move into `testimonials-grid\/items`.*a component cannot go into itself/,
    );
  });

  it('removes the selected component ({{selected}})', async () => {
    const run = await play(scenario('remove-selected'));
    assert.equal(findComponent(run.document.layout, 'card-1'), undefined);
    assert.ok(findComponent(run.document.layout, 'card-2'));
  });

  it('does not offer the tools to a client that declared nothing (an older client): the turn still works', async () => {
    const played = scenario('remove-testimonials');
    const { capabilities: _, ...undeclared } = played;
    const session = await openSession(server);
    const run = await driveScenario(undeclared, {
      endpoint: server.hopUrl,
      fixtures,
      headers: () => session.headers(),
    });
    const responses = run.hops.map((hop) => HopResponse.parse(hop.body));
    // The scripted model calls remove_components anyway: the call is an unknown tool, nothing reaches the client,
    // and the model's next decision (its answer) ends the turn in hop 2, a hop without outputs.
    assert.deepEqual(
      responses.map((response) => [response.hop, response.outputs.length, response.should_continue]),
      [
        [1, 0, true],
        [2, 0, false],
      ],
    );
    assert.deepEqual(
      run.document.layout.regions.content!.components.map((node) => node.uuid),
      cookieShop.regions.content!.components.map((node) => node.uuid),
    );
    const requests = model.requests.filter((candidate) => candidate.turn.userMessage === played.user_message).slice(-2);
    for (const request of requests) {
      assert.ok(!request.tools.includes('remove_components') && !request.tools.includes('move_components'));
      assert.ok(!request.system.includes('remove_components'), 'the prompt says nothing of removing');
    }
    const toolResult = requests[1]!.messages.find(
      (message): message is Extract<ModelMessage, { role: 'tool' }> => message.role === 'tool',
    );
    assert.match(toolResult?.content ?? '', /^Unknown tool `remove_components`/);
  });

  it('keeps hop 1 capabilities for the whole turn: later hops need not repeat them, and cannot change them', async () => {
    const session = await openSession(server);
    const id = `caps-${crypto.randomUUID()}`;
    const hop1 = await session.hop({
      protocol: 'canvas-ai/1',
      request_id: id,
      hop: 1,
      agent: 'page_builder',
      messages: [{ role: 'user', text: 'Drop the testimonials' }],
      capabilities: { outputs: ['remove_components', 'move_components', 'teleport_components'] },
      context: { current_layout: cookieShop },
    });
    assert.equal(hop1.status, 200);
    // No capabilities on hop 2, as a client may send: the removal still comes, decided under hop 1's.
    const hop2 = await session.hop(laterHop(id, 2, cookieShop, { agent: 'page_builder' }));
    assert.equal(hop2.status, 200);
    assert.equal(hop2.body.outputs[0]?.type, 'remove_components');

    const other = `caps-${crypto.randomUUID()}`;
    await session.hop({
      protocol: 'canvas-ai/1',
      request_id: other,
      hop: 1,
      agent: 'page_builder',
      messages: [{ role: 'user', text: 'Drop the testimonials' }],
      context: { current_layout: cookieShop },
    });
    const late = await session.hop(
      laterHop(other, 2, cookieShop, {
        agent: 'page_builder',
        capabilities: { outputs: ['remove_components', 'move_components'] },
      }),
    );
    assert.equal(late.status, 200);
    assert.deepEqual(late.body.outputs, [], 'declaring on hop 2 changes nothing: the turn was started without');
  });

  it('refuses a parked removal of a component the person edited since the model decided it', async () => {
    const session = await openSession(server);
    const id = `person-${crypto.randomUUID()}`;
    await session.hop({
      protocol: 'canvas-ai/1',
      request_id: id,
      hop: 1,
      agent: 'page_builder',
      messages: [{ role: 'user', text: 'Drop the testimonials' }],
      capabilities: { outputs: ['remove_components'] },
      context: { current_layout: cookieShop },
    });
    const edited = structuredClone(cookieShop);
    findComponent(edited, 'testimonials-1')!.props.heading = 'What our neighbours say';
    const hop2 = await session.hop(laterHop(id, 2, edited, { agent: 'page_builder' }));
    assert.equal(hop2.status, 200);
    assert.deepEqual(hop2.body.outputs, [], 'the section the person just retitled is not removed');
    const decision2 = model.requests.findLast((candidate) => candidate.turn.userMessage === 'Drop the testimonials')!;
    const refused = decision2.messages.find(
      (message): message is Extract<ModelMessage, { role: 'tool' }> => message.role === 'tool',
    );
    assert.match(
      refused?.content ?? '',
      /^Not applied: after you decided this remove_components call, the person changed/,
    );
  });
});
