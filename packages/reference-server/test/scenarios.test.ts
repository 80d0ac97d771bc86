import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { applyOutputs, findComponent, HopResponse, type CanvasDocument } from '@canvas-ai/protocol';
import { answerResult, collectPlacedUuids } from '@canvas-ai/protocol/server';
import { driveScenario, type Scenario, scenarioAnswer, type ScenarioRun } from '@canvas-ai/protocol/scenario';
import { openSession, sharedFixtures, startTestServer, type TestServer } from './support/harness.js';

// Every scenario fixture, played over real HTTP against the real app (scripted provider, memory store), one
// request per hop, as the widget would: driveScenario builds each request from the document it keeps.
const fixtures = await sharedFixtures();

describe('every scenario fixture, driven through the HTTP server', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('has scenario files to play: one test per fixtures/scenarios/*.yaml', async () => {
    const files = (await readdir(join(fixtures.dir, 'scenarios'))).filter((name) => name.endsWith('.yaml'));
    assert.ok(files.length > 0, 'no scenario file');
    assert.equal(fixtures.scenarios.length, files.length);
  });

  for (const scenario of fixtures.scenarios) {
    it(`plays "${scenario.id}" hop by hop as the fixture expects`, async () => {
      const session = await openSession(server);
      const logsBefore = server.logs.length;
      const run = await driveScenario(scenario, {
        endpoint: server.hopUrl,
        fixtures,
        headers: () => session.headers(),
      });
      assert.deepEqual(
        run.hops.flatMap((hop) => hop.mismatches),
        [],
        'every hop matches the fixture',
      );
      assert.equal(run.passed, true);
      assert.equal(run.hops.length, scenario.hops.length);

      const responses = run.hops.map((hop) => HopResponse.parse(hop.body));
      assertHopSemantics(scenario, responses, run);
      assertEditsAndReferencesUseRealUuids(scenario, responses);

      const hopLogs = server.logs
        .slice(logsBefore)
        .filter((entry) => entry.event === 'hop' && entry.request_id === run.requestId);
      assert.deepEqual(
        hopLogs.map((entry) => [entry.hop, entry.should_continue]),
        responses.map((response) => [response.hop, response.should_continue]),
        'one structured log line per hop',
      );
    });
  }

  it('places the next row below the previous one by the uuid the server assigned (cookie-shop)', async () => {
    const scenario = fixtures.scenarios.find((s) => s.id === 'cookie-shop')!;
    const session = await openSession(server);
    const run = await driveScenario(scenario, { endpoint: server.hopUrl, fixtures, headers: () => session.headers() });
    const responses = run.hops.map((hop) => HopResponse.parse(hop.body));
    const heroUuid = collectPlacedUuids(responses[1]!.outputs)[0]!;
    assert.match(heroUuid, /^[0-9a-f-]{36}$/, 'the server assigned a uuid');
    const next = responses[2]!.outputs[0]!;
    assert.equal(next.type, 'place_components');
    assert.equal(next.type === 'place_components' && next.operations[0]!.reference_uuid, heroUuid);
    const regions = run.document.layout.regions.content!.components.map((node) => node.component);
    assert.deepEqual(regions, [
      'sdc.demo.hero',
      'sdc.demo.section',
      'sdc.demo.two_column',
      'sdc.demo.section',
      'sdc.demo.footer',
    ]);
    assert.equal(run.document.page.title, 'Crumb & Co. | Fresh cookies, baked every morning');
  });

  it('recovers from an invalid placement: no output in the failing hop, the corrected one next (validation-error-recovery)', async () => {
    const scenario = fixtures.scenarios.find((s) => s.id === 'validation-error-recovery')!;
    const session = await openSession(server);
    const run = await driveScenario(scenario, { endpoint: server.hopUrl, fixtures, headers: () => session.headers() });
    const responses = run.hops.map((hop) => HopResponse.parse(hop.body));
    assert.deepEqual(responses[1]!.outputs, [], 'the invalid placement yields no output');
    const log = server.logs.find(
      (entry) => entry.event === 'hop' && entry.request_id === run.requestId && entry.hop === 2,
    )!;
    assert.deepEqual(log.tools, ['place_components']);
    assert.equal(log.tool_errors, 1, 'the call ran and was refused');
    assert.equal(responses[2]!.outputs[0]!.call_id, 'call_fixed');
    assert.equal(run.document.layout.regions.content!.components[0]!.props.theme, 'dark');
  });
});

/**
 * The hop rules every scenario must show, stated independently of the fixture's expectations (spec §2): each hop
 * makes the next model decision, unless the turn only waits for the host's report on the last outputs; a reply
 * with tool calls goes on; an answer or the end of max_hops ends the turn only in a hop without outputs, else the
 * next hop ends it without a model call; a hop that asked the person makes none. Every scenario reports every output applied unless it says otherwise.
 */
function assertHopSemantics(scenario: Scenario, responses: HopResponse[], run: ScenarioRun): void {
  const maxHops = scenario.max_hops ?? Infinity;
  let decisions = 0;
  let held: { kind: 'answer'; text: string } | { kind: 'max_hops' } | undefined;
  let parkedBefore = new Set<string>();
  responses.forEach((response, index) => {
    const hop = index + 1;
    // What the client really reported: the scenario's own apply_results, or the reducer's (conflicts included).
    const rejectedBefore = (run.hops[index - 1]?.applyResults ?? []).some((r) => r.status === 'rejected');
    // A tool decided in hop N yields its output in hop N+1, never before.
    for (const output of response.outputs) {
      assert.ok(parkedBefore.has(output.call_id), `hop ${hop}: output ${output.call_id} was decided in hop ${hop - 1}`);
    }
    if (hop === 1) assert.deepEqual(response.outputs, [], 'hop 1 has nothing parked to execute');
    if (index > 0) {
      assert.ok(response.progress.startsWith(responses[index - 1]!.progress), `hop ${hop}: progress accumulates`);
    }
    parkedBefore = new Set();
    // A hop that executed a question waits for the person: it makes no decision (spec §20.1). The changes it holds
    // for approval come with the next hop, the one that brings the decision (spec §20.5).
    if (response.should_continue && response.waiting) {
      if (response.waiting.kind === 'approval')
        parkedBefore = new Set(response.waiting.approval.changes.map((change) => change.call_id));
      return;
    }

    if (held && !(held.kind === 'answer' && rejectedBefore)) {
      assert.equal(response.should_continue, false, `hop ${hop}: the held ending ends the turn`);
      assert.deepEqual(response.outputs, [], `hop ${hop}: the hop that ends the turn carries no outputs`);
      if (held.kind === 'answer' && !response.should_continue)
        assert.equal(response.message, withAnswer(scenario, held.text).trim());
      held = undefined;
      return;
    }
    held = undefined;
    if (decisions >= maxHops) {
      assert.equal(response.should_continue, response.outputs.length > 0, `hop ${hop}: max_hops ends where no outputs`);
      if (response.should_continue) held = { kind: 'max_hops' };
      return;
    }
    const reply = scenario.replies[decisions]!;
    decisions += 1;
    if (reply.tool_calls.length > 0) {
      assert.equal(response.should_continue, true, `hop ${hop}: a reply with tool calls goes on`);
      parkedBefore = new Set(reply.tool_calls.map((call) => call.id));
      return;
    }
    const carriesOutputs = response.outputs.length > 0;
    assert.equal(
      response.should_continue,
      carriesOutputs,
      `hop ${hop}: an answer ends the turn in a hop without outputs`,
    );
    if (carriesOutputs) {
      held = { kind: 'answer', text: reply.text };
      assert.ok(
        !response.progress.includes(reply.text.trim()) || reply.text.trim() === '',
        'a held answer is not narrated',
      );
    }
  });
  const last = responses.at(-1)!;
  assert.equal(last.should_continue, false);
  assert.deepEqual(last.outputs, [], 'the response that ends the turn carries no outputs');
  if (!last.should_continue && last.finish_reason === 'answer' && last.message) {
    assert.ok(!last.progress.includes(last.message), 'the final answer is not repeated in progress');
  }
}

/** Edits name uuids that exist when they are applied; placements reference uuids on the page. */
function assertEditsAndReferencesUseRealUuids(scenario: Scenario, responses: HopResponse[]): void {
  let document: CanvasDocument = {
    layout: structuredClone(fixtures.layouts[scenario.layout]!),
    page: structuredClone(scenario.page),
  };
  for (const response of responses) {
    for (const output of response.outputs) {
      if (output.type === 'edit_components') {
        for (const uuid of Object.keys(output.component_updates)) {
          assert.ok(findComponent(document.layout, uuid), `edit of ${uuid}: the component is on the page`);
        }
      }
      if (output.type === 'place_components') {
        for (const operation of output.operations) {
          if (operation.reference_uuid) {
            assert.ok(
              findComponent(document.layout, operation.reference_uuid),
              `reference ${operation.reference_uuid} is on the page`,
            );
          }
        }
      }
      document = applyOutputs(document, [output]);
    }
  }
}

/** A reply's text with `{{answer}}` as the scripted model resolves it: the result of the scenario's latest wait. */
function withAnswer(scenario: Scenario, text: string): string {
  const asked = scenario.hops.findLast((hop) => hop.waiting !== undefined && hop.answer !== undefined);
  if (!text.includes('{{answer}}') || !asked?.waiting || !asked.answer) return text;
  return text.replaceAll('{{answer}}', answerResult(asked.waiting, scenarioAnswer(asked.waiting, asked.answer)));
}
