import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyOutputs, HopResponse, LIMITS, type Layout } from '@canvas-ai/protocol';
import { outputLimitMessage } from '@canvas-ai/protocol/server';
import { PROMPT_PROPS_MAX_VALUES, PROMPT_STRING_MAX_CHARS } from '../src/agents/page-description.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import {
  firstHop,
  laterHop,
  openSession,
  sharedFixtures,
  startTestServer,
  type TestServer,
  EMPTY_LAYOUT,
  type JsonBody,
} from './support/harness.js';
import { ListProvider, RecordingProvider } from './support/providers.js';

const fixtures = await sharedFixtures();
const COOKIE_SHOP = 'Build a homepage for a cookie shop';

describe('what the model is told', () => {
  let server: TestServer;
  let model: RecordingProvider;
  before(async () => {
    model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    server = await startTestServer({ provider: model, docs: '## README.md\n\nCanvas AI DOCS SENTINEL' });
  });
  after(() => server.close());

  it('seeds hop 1 from the transcript text within history_limit, and never re-seeds later hops', async () => {
    const session = await openSession(server);
    const id = `seed-${crypto.randomUUID()}`;
    const history = Array.from({ length: 30 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      text: `old ${i}`,
    }));
    const start = model.requests.length;
    await session.hop({
      ...firstHop(id, COOKIE_SHOP, { agent: 'page_builder' }),
      messages: [...history, { role: 'user', text: COOKIE_SHOP }],
    });
    const hop1 = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    assert.equal(hop1.status, 200);
    const [first, second] = model.requests.slice(start);
    const firstTexts = first!.messages.map((message) => ('text' in message ? message.text : ''));
    assert.equal(
      first!.messages.length,
      fixtures.agents.history_limit + 2,
      'history_limit earlier messages, then the user message, then the page',
    );
    assert.equal(firstTexts[0], 'old 10');
    assert.equal(firstTexts.at(-2), COOKIE_SHOP);
    assert.match(firstTexts.at(-1)!, /^# The page now/);
    const userMessages = second!.messages.filter((message) => message.role === 'user' && message.text === COOKIE_SHOP);
    assert.equal(userMessages.length, 1, 'the user message is not duplicated on hop 2');
    assert.deepEqual(
      second!.messages.slice(-2).map((message) => message.role),
      ['assistant', 'tool'],
      'hop 2 appends the decision and the result of the parked call',
    );
  });

  it('gives the model the readable result of each parked call, with the uuid the server assigned', async () => {
    const session = await openSession(server);
    const id = `result-${crypto.randomUUID()}`;
    const start = model.requests.length;
    await session.hop(firstHop(id, COOKIE_SHOP, { agent: 'page_builder' }));
    const hop2 = HopResponse.parse((await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).body);
    const output = hop2.outputs[0]!;
    const uuid = output.type === 'place_components' ? output.operations[0]!.components[0]!.uuid : '';
    const toolMessage = model.requests[start + 1]!.messages.at(-1)!;
    assert.equal(toolMessage.role, 'tool');
    assert.ok(toolMessage.role === 'tool' && toolMessage.content.includes(uuid), 'the result names the assigned uuid');
  });

  it('writes the page’s values and host data as JSON, cutting a string no model reads whole, and summarizes huge props', async () => {
    const session = await openSession(server);
    const start = model.requests.length;
    const long = 'L'.repeat(PROMPT_STRING_MAX_CHARS + 500);
    const layout: Layout = {
      regions: {
        content: {
          components: [
            { uuid: 'small-1', component: 'sdc.demo.text', props: { body: 'SMALL-PROPS' } },
            {
              uuid: 'huge-1',
              component: 'sdc.demo.text',
              props: { body: 'HUGE-PROPS', rows: Array.from({ length: PROMPT_PROPS_MAX_VALUES }, () => 0) },
            },
          ],
        },
      },
    };
    const reply = await session.hop(
      firstHop(`bounded-${crypto.randomUUID()}`, COOKIE_SHOP, {
        agent: 'page_builder',
        context: { current_layout: layout, page: { title: 'PAGE-T' }, extra: { note: long, n: [1, 2] } },
      }),
    );
    assert.equal(reply.status, 200);
    const told = model.requests[start]!.messages.at(-1)!;
    const system = told.role === 'notice' ? told.text : '';
    assert.match(system, /^# The page now/, 'the page, told after the user message');
    assert.doesNotMatch(model.requests[start]!.system, /PAGE-T|SMALL-PROPS/, 'not in the system prompt');
    assert.match(system, /"title": "PAGE-T"/, 'page values as JSON');
    assert.match(system, /"n": \[\n\s+1,\n\s+2\n\s+\]/, 'host data as indented JSON');
    assert.ok(system.includes(`${'L'.repeat(PROMPT_STRING_MAX_CHARS)}… (500 more characters not shown)`));
    assert.ok(!system.includes('L'.repeat(PROMPT_STRING_MAX_CHARS + 1)), 'the long string is cut');
    assert.match(system, /small-1: \{"body":"SMALL-PROPS"\}/);
    assert.match(system, /huge-1: \{"\(props not shown\)":"more than 10000 JSON values"\}/);
    assert.doesNotMatch(system, /HUGE-PROPS/);
  });

  it('tells the model what changed in the context of each hop, and stores of it only what the model was told and fingerprints', async () => {
    const session = await openSession(server);
    const id = `context-${crypto.randomUUID()}`;
    const start = model.requests.length;
    await session.hop(
      firstHop(id, COOKIE_SHOP, {
        agent: 'page_builder',
        context: { current_layout: EMPTY_LAYOUT, extra: { note: 'EXTRA-ONE' } },
      }),
    );
    // Longer than the 48 characters of JSON a fingerprint keeps as they are: the store may hold only its hash.
    const typed = 'Typed by the user meanwhile, a sentence long enough to be hashed';
    const layout: Layout = {
      regions: {
        header: { components: [{ uuid: 'host-made-1', component: 'sdc.demo.text', props: { body: typed } }] },
        content: { components: [] },
      },
    };
    const hop2 = await session.hop(
      laterHop(id, 2, layout, {
        agent: 'page_builder',
        context: { current_layout: layout, page: { title: 'PAGE-TWO' }, selected_component: 'host-made-1' },
      }),
    );
    assert.equal(hop2.status, 200);
    const [one, two] = model.requests.slice(start);
    const noticesOf = (request: typeof one) =>
      request!.messages.flatMap((message) => (message.role === 'notice' ? [message.text] : []));
    assert.match(noticesOf(one).join('\n'), /EXTRA-ONE/);
    assert.match(one!.system, /sdc\.demo\.hero \(Hero\)/, 'the catalog is in the prompt');
    assert.equal(two!.system, one!.system, 'the system prompt holds no context');
    // Hop 2 is told what changed: the person's component and title; and, this page being shorter than that, the
    // page again, with the new selection and without the previous hop's host data.
    const told = noticesOf(two).slice(noticesOf(one).length);
    assert.equal(told.length, 2, JSON.stringify(told));
    assert.match(told[0]!, /added host-made-1 \(sdc\.demo\.text\) #1 in header with body: "Typed by the user/);
    assert.match(told[0]!, /page field title: \(not set\) → "PAGE-TWO"/);
    assert.match(told[1]!, /^# The page now \(shown whole again/);
    assert.match(told[1]!, /Selected component: host-made-1/);
    assert.doesNotMatch(told[1]!, /EXTRA-ONE|From the editor/, 'the previous hop’s host data is gone');
    const sessionId = session.id;
    const record: JsonBody = await server.store.get(`${sessionId}:${id}`);
    assert.equal(record?.kind, 'active', 'the turn is stored');
    const stored = JSON.stringify(record);
    assert.ok(!stored.includes('current_layout') && !stored.includes('selected_component'), 'no context copied');
    // Beside the transcript (what the model was told, sent again on every call), the turn keeps of the page only
    // the fingerprint (spec §16.1), which keeps short values as they are, hashes long ones, and what the model
    // was last told of the selection and host data (a fingerprint too).
    const { expected, messages, ...rest } = record;
    assert.ok(expected, 'the turn keeps the fingerprint of the document the next hop should carry');
    assert.ok(expected.uuids.includes('host-made-1'), 'the fingerprint covers the component of the long value');
    assert.ok(!JSON.stringify(expected).includes(typed), 'a long prop value is only fingerprinted');
    for (const value of ['PAGE-TWO', 'EXTRA-ONE', typed])
      assert.ok(!JSON.stringify(rest).includes(value), `${value} is not copied beside the transcript`);
    assert.deepEqual(rest.told?.selected, 'host-made-1');
    const mentions = (messages as JsonBody[]).filter((message) => JSON.stringify(message).includes('PAGE-TWO'));
    // Only where the model was told it: the person notice, then the page.
    assert.deepEqual(
      mentions.map((message) => message.role),
      ['notice', 'notice'],
    );
    assert.match(mentions[0].text, /^While you worked, the person edited the page themselves\./);
    assert.match(mentions[1].text, /^# The page now/);
  });

  it('tells the model about outputs the browser rejected before its next decision', async () => {
    const session = await openSession(server);
    const id = `rejected-${crypto.randomUUID()}`;
    const start = model.requests.length;
    await session.hop(firstHop(id, COOKIE_SHOP, { agent: 'page_builder' }));
    await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
    await session.hop(
      laterHop(id, 3, EMPTY_LAYOUT, {
        agent: 'page_builder',
        apply_results: [{ call_id: 'call_1', status: 'rejected', reason: 'The editor is read-only right now.' }],
      }),
    );
    const third = model.requests[start + 2]!;
    const notice = third.messages.findLast((message) => message.role === 'notice');
    assert.ok(notice && notice.role === 'notice');
    assert.match(notice.text, /call_1 \(place_components\): The editor is read-only right now\./);
    assert.ok(
      !model.requests[start + 1]!.messages.some(
        (message) => message.role === 'notice' && message.text.includes('could not apply'),
      ),
      'no rejection notice when all was applied',
    );
  });

  it('gives each call of one decision its own id, so outputs, results and a rejection name the right call', async () => {
    const heroArgs = JSON.stringify({
      operations: [{ target: 'content', placement: 'inside', components: '- sdc.demo.hero: {props: {heading: Hi}}' }],
    });
    const titleArgs = JSON.stringify({ field: 'title', value: 'Crumb & Co.' });
    const twice = new RecordingProvider(
      new ListProvider([
        {
          text: 'A hero and a title.',
          toolCalls: [
            { id: 'c1', name: 'place_components', arguments: heroArgs },
            { id: 'c1', name: 'set_page_value', arguments: titleArgs },
            {
              id: 'c1~2',
              name: 'get_component_details',
              arguments: JSON.stringify({ component_ids: ['sdc.demo.hero'] }),
            },
          ],
        },
        { text: 'Done.', toolCalls: [] },
      ]),
    );
    const own = await startTestServer({ provider: twice });
    try {
      const session = await openSession(own);
      const id = `same-ids-${crypto.randomUUID()}`;
      await session.hop(firstHop(id, 'Hero and title', { agent: 'page_builder' }));
      const hop2 = HopResponse.parse(
        (await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }))).body,
      );
      const ids = hop2.outputs.map((output) => [output.type, output.call_id]);
      assert.deepEqual(ids, [
        ['place_components', 'c1'],
        ['set_page_value', 'c1~3'],
      ]);
      const results = twice.requests[1]!.messages.filter((message) => message.role === 'tool');
      assert.deepEqual(
        results.map((message) => message.role === 'tool' && [message.call_id, message.name]),
        [
          ['c1', 'place_components'],
          ['c1~3', 'set_page_value'],
          ['c1~2', 'get_component_details'],
        ],
      );
      const assistant = twice.requests[1]!.messages.find((message) => message.role === 'assistant');
      assert.deepEqual(
        assistant?.role === 'assistant' && assistant.tool_calls.map((call) => call.id),
        ['c1', 'c1~3', 'c1~2'],
        'the stored decision carries the same ids as its results',
      );
    } finally {
      await own.close();
    }
  });

  it('adds the project documentation to the prompt of include_docs agents only', async () => {
    const session = await openSession(server);
    const start = model.requests.length;
    await session.hop(firstHop(`docs-${crypto.randomUUID()}`, 'How do I get the assistant to change my page?'));
    await session.hop(firstHop(`docs-${crypto.randomUUID()}`, COOKIE_SHOP, { agent: 'page_builder' }));
    const [qa, builder] = model.requests.slice(start);
    assert.match(qa!.system, /DOCS SENTINEL/);
    assert.deepEqual(qa!.tools, []);
    assert.doesNotMatch(builder!.system, /DOCS SENTINEL/);
    assert.deepEqual(builder!.tools, [
      'get_component_details',
      'place_components',
      'edit_components',
      'set_page_value',
    ]);
  });
});

describe('a tool added by a backend team', () => {
  it('is offered to the agents that list it, and its result reaches the model', async () => {
    const { z } = await import('zod');
    const { ListProvider } = await import('./support/providers.js');
    const countComponents = {
      name: 'count_components',
      description: 'Counts the components on the page.',
      input: z.object({ region: z.string() }),
      allowParallel: true,
      execute(input: { region: string }, context: import('../src/tools/index.js').ToolContext) {
        const region = context.document.layout.regions[input.region];
        return { result: `${region?.components.length ?? 0} components in ${input.region}` };
      },
    };
    const agents = structuredClone(fixtures.agents);
    agents.agents.copy_editor!.tools.push('count_components');
    const model = new RecordingProvider(
      new ListProvider([
        {
          text: 'Let me count.',
          toolCalls: [{ id: 'n1', name: 'count_components', arguments: '{"region":"content"}' }],
        },
        { text: '', toolCalls: [] },
      ]),
    );
    const server = await startTestServer({ agents, tools: [countComponents], provider: model });
    try {
      const session = await openSession(server);
      // The same layout on both hops: the person changed nothing, so the tool's result is the last thing told.
      const layout = fixtures.layouts['layouts/nested.yaml']!;
      await session.hop(
        firstHop('count-1', 'How many?', { agent: 'copy_editor', context: { current_layout: layout } }),
      );
      const last = await session.hop(laterHop('count-1', 2, layout, { agent: 'copy_editor' }));
      assert.deepEqual(model.requests[0]!.tools, [
        'get_component_details',
        'edit_components',
        'set_page_value',
        'count_components',
      ]);
      const result = model.requests[1]!.messages.at(-1)!;
      assert.deepEqual(result, {
        role: 'tool',
        call_id: 'n1',
        name: 'count_components',
        content: '2 components in content',
      });
      // An empty final answer strips nothing: the narration stays whole and the message is empty.
      assert.equal(last.body.should_continue, false);
      assert.equal(last.body.message, '');
      assert.equal(last.body.progress, 'Let me count.');
    } finally {
      await server.close();
    }
  });
});

describe('a reply with more calls than one response may carry', () => {
  it('sends at most maxOutputsPerHop outputs and tells the model, before its next decision, to make the rest in its next reply', async () => {
    const max = LIMITS.maxOutputsPerHop;
    const calls = Array.from({ length: max + 1 }, (_, index) => ({
      id: `t${index + 1}`,
      name: 'set_page_value',
      arguments: JSON.stringify({ field: 'title', value: `Title ${index + 1}` }),
    }));
    const inner = new ListProvider([
      { text: 'Retitling.', toolCalls: calls },
      { text: 'One more title.', toolCalls: [] },
    ]);
    const model = new RecordingProvider(inner);
    const server = await startTestServer({ provider: model });
    try {
      const session = await openSession(server);
      const id = `outputs-${crypto.randomUUID()}`;
      await session.hop(firstHop(id, 'Retitle the page', { agent: 'page_builder' }));
      const hop2 = await session.hop(laterHop(id, 2, EMPTY_LAYOUT, { agent: 'page_builder' }));
      assert.equal(hop2.status, 200);
      const response = HopResponse.parse(hop2.body);
      assert.equal(response.outputs.length, max);
      const told = model.requests[1]!.messages.filter((message) => message.role === 'tool');
      assert.equal(told.length, max + 1, 'every call gets a readable result');
      assert.equal(told.at(-1)!.role === 'tool' && told.at(-1)!.content, outputLimitMessage('set_page_value'));
      // The model answered after hearing it; the answer waits for the report on this hop's outputs (spec §2, step 7).
      assert.equal(response.should_continue, true, 'a response with outputs does not end the turn');
      assert.equal(response.progress, 'Retitling.', 'the held answer is not narration');
      const applied = applyOutputs({ layout: EMPTY_LAYOUT, page: {} }, response.outputs);
      const hop3 = await session.hop(
        laterHop(id, 3, applied.layout, {
          agent: 'page_builder',
          context: { current_layout: applied.layout, page: applied.page },
          apply_results: response.outputs.map((output) => ({ call_id: output.call_id, status: 'applied' })),
        }),
      );
      assert.equal(hop3.status, 200);
      const final = HopResponse.parse(hop3.body);
      assert.equal(final.should_continue, false, 'every output applied: the held answer ends the turn');
      assert.equal(final.should_continue === false && final.message, 'One more title.');
      assert.deepEqual(final.outputs, []);
      assert.equal(model.requests.length, 2, 'no model call for the held answer');
    } finally {
      await server.close();
    }
  });
});
