// Co-editing over real HTTP (spec §16): what the model is told when the person edits during a turn, and that the
// person's work is never overwritten by a decision that did not know of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  applyOutputs,
  type CanvasDocument,
  type ComponentNode,
  findComponent,
  HopResponse,
  type ToolOutput,
} from '@canvas-ai/protocol';
import { driveScenario, Scenario } from '@canvas-ai/protocol/scenario';
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

describe('derived props (spec §10.1): the host fills them in, and the model hears nothing of it', () => {
  // Decision 2 sets the page title, so decision 3 is made after the host filled in the placed heading's anchor: what
  // the model is told before it is the server's change detection at work.
  const anchored = Scenario.parse({
    id: 'derived-anchor-filled',
    title: 'The host fills in a placed heading’s anchor',
    agent: 'page_builder',
    max_hops: 12,
    user_message: 'Add an Our story heading and title the page',
    layout: 'layouts/empty.yaml',
    replies: [
      {
        text: 'The heading first.',
        tool_calls: [
          {
            id: 'call_heading',
            name: 'place_components',
            arguments: JSON.stringify({
              operations: [
                {
                  target: 'content',
                  placement: 'below',
                  reference_uuid: 'heading-0',
                  components: '- sdc.demo.heading:\n    props:\n      text: Our story\n',
                },
              ],
            }),
          },
        ],
      },
      {
        text: 'Now the title.',
        tool_calls: [
          {
            id: 'call_title',
            name: 'set_page_value',
            arguments: JSON.stringify({ field: 'title', value: 'Our story' }),
          },
        ],
      },
      { text: 'The Our story heading is in place, and the page is titled.' },
    ],
    // Played by hand below, not checked against these; the schema wants a last hop that ends the turn.
    hops: [
      {
        should_continue: false,
        outputs: [],
        progress: '',
        message: 'The Our story heading is in place, and the page is titled.',
        finish_reason: 'answer',
      },
    ],
  });
  let server: TestServer;
  let model: RecordingProvider;
  before(async () => {
    model = new RecordingProvider(new ScriptedProvider([anchored, ...fixtures.scenarios]));
    server = await startTestServer({ provider: model });
  });
  after(() => server.close());

  /**
   * Plays the turn on a page that starts with the person's heading `heading-0` (its anchor not filled in yet, so the
   * agent's placement does not touch it). Between hops 2 and 3 the host fills in both headings' anchors, and `host`
   * changes them as it likes (`placed` is the agent's heading, `own` the person's).
   */
  async function play(host: (headings: { placed: ComponentNode; own: ComponentNode }) => void, listed = true) {
    const session = await openSession(server);
    const id = `derived-${crypto.randomUUID()}`;
    const own: ComponentNode = {
      uuid: 'heading-0',
      component: 'sdc.demo.heading',
      props: { text: 'Our cookies', level: 2, align: 'left' },
      ...(listed ? { derived: ['anchor'] } : {}),
    };
    let document: CanvasDocument = { layout: { regions: { content: { components: [own] } } }, page: {} };
    const send = (hop: number) =>
      session.hop(
        hop === 1
          ? {
              ...firstHop(id, anchored.user_message, { agent: 'page_builder' }),
              context: { current_layout: document.layout },
            }
          : laterHop(id, hop, document.layout, { agent: 'page_builder' }),
      );
    assert.equal((await send(1)).status, 200);
    const second = HopResponse.parse((await send(2)).body);
    document = applyOutputs(document, second.outputs);
    const [person, placed] = structuredClone(document.layout.regions.content!.components) as [
      ComponentNode,
      ComponentNode,
    ];
    assert.deepEqual(placed.derived, ['anchor'], 'the placed heading lists its derived anchor');
    person.props.anchor = 'our-cookies';
    placed.props.anchor = 'our-story';
    if (!listed) delete placed.derived;
    host({ placed, own: person });
    document = { ...document, layout: { regions: { content: { components: [person, placed] } } } };
    const third = await send(3);
    assert.equal(third.status, 200, JSON.stringify(third.body));
    const log = server.logs.findLast((entry) => entry.event === 'hop' && entry.request_id === id && entry.hop === 3);
    const decision3 = model.requests.findLast(
      (request) => request.turn.userMessage === anchored.user_message && request.turn.decision === 3,
    );
    return { log, decision3 };
  }

  const told = (request: { messages: readonly ModelMessage[] } | undefined) =>
    (request?.messages ?? []).filter((message) => message.role === 'notice').map((message) => message.text);

  it('does not tell the model of the anchors a 1.6 host filled in, keeping `derived` on the nodes', async () => {
    const { log, decision3 } = await play(() => undefined);
    assert.equal(log?.person_changes, 0);
    assert.deepEqual(
      told(decision3).filter((text) => text.includes('the person edited')),
      [],
    );
  });

  it('does not tell it either when a 1.5 host sends no `derived`: the catalog marks the anchor derived', async () => {
    const { log } = await play(() => undefined, false);
    assert.equal(log?.person_changes, 0);
  });

  it('tells it of the text the person retyped, and not of the anchor that came with it (the control)', async () => {
    const { log, decision3 } = await play(({ placed, own }) => {
      placed.props.text = 'Our history';
      placed.props.anchor = 'our-history';
      own.props.text = 'Our biscuits';
      own.props.anchor = 'our-biscuits';
    });
    assert.equal(log?.person_changes, 2);
    const [notice] = told(decision3).filter((text) => text.includes('the person edited'));
    assert.match(notice ?? '', /Our history/);
    assert.match(notice ?? '', /Our biscuits/);
    assert.doesNotMatch(notice ?? '', /anchor|our-history|our-biscuits/);
  });
});
