// Co-editing over real HTTP (spec §16): what the model is told when the person edits during a turn, and that the
// person's work is never overwritten by a decision that did not know of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyOutputs, type CanvasDocument, findComponent, HopResponse, type ToolOutput } from '@canvas-ai/protocol';
import { driveScenario, type Scenario } from '@canvas-ai/protocol/scenario';
import { ScriptedProvider } from '../src/providers/scripted.js';
import type { ModelMessage } from '../src/providers/model-provider.js';
import {
  firstHop,
  type JsonBody,
  laterHop,
  openSession,
  sharedFixtures,
  startTestServer,
  type TestServer,
} from './support/harness.js';
import { RecordingProvider } from './support/providers.js';

const fixtures = await sharedFixtures();
const scenario = (id: string): Scenario => fixtures.scenarios.find((candidate) => candidate.id === id)!;

/** The notices the model was sent before decision `decision` of the last turn played, after the previous decision. */
function noticesBefore(model: RecordingProvider, userMessage: string, decision: number): string[] {
  const request = model.requests.findLast(
    (candidate) => candidate.turn.userMessage === userMessage && candidate.turn.decision === decision,
  );
  assert.ok(request, `decision ${decision} was made`);
  const since = request.messages.findLastIndex((message) => message.role === 'assistant') + 1;
  return request.messages
    .slice(since)
    .filter((message): message is Extract<ModelMessage, { role: 'notice' }> => message.role === 'notice')
    .map((message) => message.text);
}

describe('co-editing: the person edits during a turn', () => {
  let server: TestServer;
  let model: RecordingProvider;
  before(async () => {
    model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    server = await startTestServer({ provider: model });
  });
  after(() => server.close());

  async function play(id: string) {
    const session = await openSession(server);
    const run = await driveScenario(scenario(id), {
      endpoint: server.hopUrl,
      fixtures,
      headers: () => session.headers(),
    });
    assert.deepEqual(
      run.hops.flatMap((hop) => hop.mismatches),
      [],
    );
    return run;
  }

  it('keeps the heading the person typed while the edit ran, and tells the model before it decides again', async () => {
    const played = scenario('coedit-heading-conflict');
    const run = await play(played.id);

    const hero = run.document.layout.regions.content!.components[0]!;
    assert.equal(hero.props.heading, 'Fresh every day', "the person's heading stays");
    const [first] = run.hops[2]!.applyResults[0]!.conflicts ?? [];
    assert.equal(first && 'actual' in first ? first.actual : undefined, 'Fresh every day');
    const notices = noticesBefore(model, played.user_message, 4);
    const conflict = notices.find((text) => text.includes('could not apply'));
    assert.ok(conflict, `a rejection notice (got ${JSON.stringify(notices)})`);
    assert.match(conflict, /call_warm \(edit_components\)/);
    assert.match(
      conflict,
      /heading of [\w-]+: the person changed it to "Fresh every day" \(you expected to replace "Crumb & Co\."\)/,
    );
    assert.match(conflict, /You had already answered the person \("The hero now says/, 'the held answer is named');
    const last = HopResponse.parse(run.hops.at(-1)!.body);
    assert.ok(!last.should_continue && !last.message.includes('Warm cookies'), 'the answer does not claim the edit');
  });

  it('tells the model that the person removed a row, and a parked call naming it gets a readable tool error', async () => {
    const played = scenario('coedit-row-deleted');
    const run = await play(played.id);

    const request = model.requests.findLast(
      (candidate) => candidate.turn.userMessage === played.user_message && candidate.turn.decision === 4,
    )!;
    const toolResult = request.messages.findLast((message) => message.role === 'tool');
    assert.equal(toolResult?.role === 'tool' && toolResult.call_id, 'call_retitle');
    assert.match(toolResult?.role === 'tool' ? toolResult.content : '', /no component|not on the page|unknown/i);
    const [notice] = noticesBefore(model, played.user_message, 4);
    assert.match(notice!, /^While you worked, the person edited the page themselves/);
    assert.match(notice!, /- removed [\w-]+ \(sdc\.demo\.hero\), which was #1 in content/);
    assert.equal(request.messages.at(-1)?.role, 'notice', 'the notice comes after the tool results');
    assert.equal(run.document.layout.regions.content!.components.length, 0, 'the hero is gone and stays gone');
    assert.equal(run.document.page.title, 'Crumb & Co. | Cookies');
    const log = server.logs.findLast((entry) => entry.event === 'hop' && entry.request_id === run.requestId);
    assert.equal(log?.person_changes, 1, 'the hop logs how many changes the model was told about');
  });

  it('refuses a parked edit of a value the person changed after the model decided it, with no output', async () => {
    const played = scenario('coedit-edit-after-person');
    const run = await play(played.id);

    const hero = run.document.layout.regions.content!.components[0]!;
    assert.equal(findComponent(run.document.layout, hero.uuid)?.props.heading, 'Our own words');
    const request = model.requests.findLast(
      (candidate) => candidate.turn.userMessage === played.user_message && candidate.turn.decision === 3,
    )!;
    const refused = request.messages.find((message) => message.role === 'tool' && message.call_id === 'call_punch');
    assert.match(
      refused?.role === 'tool' ? refused.content : '',
      /^Not applied: after you decided this edit_components call, the person changed what it would overwrite \(heading of [\w-]+: "Crumb & Co\." → "Our own words"\)/,
    );
  });

  it('gives the model one more decision when the host rejects the output its answer described', async () => {
    const played = scenario('host-rejects-final-output');
    const run = await play(played.id);

    const decisions = model.requests.filter((request) => request.turn.userMessage === played.user_message);
    assert.equal(decisions.length, 3, 'decision 3 comes after the rejection');
    const [notice] = noticesBefore(model, played.user_message, 3);
    assert.match(notice!, /call_title \(set_page_value\): The page title is locked by the site's owner\./);
    const responses = run.hops.map((hop) => HopResponse.parse(hop.body));
    assert.ok(
      responses.every((response) => !response.progress.includes('The page title is now')),
      'the held answer is never shown',
    );
  });

  it('serves a revision 1.0 client: one that ignores replaces, reports nothing and just follows should_continue', async () => {
    const played = scenario('edit-selected');
    const session = await openSession(server);
    const id = `v10-${crypto.randomUUID()}`;
    let document: CanvasDocument = { layout: structuredClone(fixtures.layouts[played.layout]!), page: {} };
    let last: JsonBody;
    for (let hop = 1; ; hop += 1) {
      const reply = await session.hop({
        ...(hop === 1
          ? firstHop(id, played.user_message, { agent: played.agent })
          : laterHop(id, hop, document.layout, { agent: played.agent })),
        context: { current_layout: document.layout, selected_component: played.selected_component },
      });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      last = reply.body;
      // A 1.0 host applies every output as it comes, `replaces` unknown to it.
      const outputs = (last.outputs as Array<ToolOutput & { replaces?: unknown }>).map(
        ({ replaces: _, ...output }) => output as ToolOutput,
      );
      document = applyOutputs(document, outputs);
      if (!last.should_continue) break;
    }
    assert.equal(last.message, played.hops.at(-1)!.message, 'the answer comes, one hop after the edit');
    assert.equal(findComponent(document.layout, 'card-1')?.props.title, 'Gooey double chocolate chip');
  });

  it('ends a turn whose outputs were all applied one hop later, without another model call', async () => {
    const played = scenario('place-hero-two-hop');
    const before = model.requests.length;
    const run = await play(played.id);

    assert.equal(model.requests.length - before, played.replies.length, 'one decision per reply, none for the ending');
    const [, second, third] = run.hops.map((hop) => HopResponse.parse(hop.body));
    assert.equal(second!.should_continue, true);
    assert.equal(second!.outputs.length, 1);
    assert.ok(!third!.should_continue && third!.outputs.length === 0 && third!.message === played.replies[1]!.text);
  });
});
