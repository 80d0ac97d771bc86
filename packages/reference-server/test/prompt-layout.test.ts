// The prompt as a provider's prompt cache sees it (README.md, "What the model is told"): one system prompt without
// the page, a conversation that only grows, the page shown whole once and then only what changed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JsonValue, Layout } from '@canvas-ai/protocol';
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
import { ListProvider, type RecordedRequest, RecordingProvider } from './support/providers.js';

const fixtures = await sharedFixtures();
const COOKIE_SHOP = fixtures.layouts['layouts/cookie-shop.yaml']!;
const scenario = (id: string): Scenario => fixtures.scenarios.find((candidate) => candidate.id === id)!;
const notices = (request: RecordedRequest) =>
  request.messages
    .filter((message): message is Extract<ModelMessage, { role: 'notice' }> => message.role === 'notice')
    .map((message) => message.text);
const WHOLE_PAGE = /^# The page now/;

describe('the prompt a provider’s cache can reuse', () => {
  let server: TestServer;
  let model: RecordingProvider;
  before(async () => {
    model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    server = await startTestServer({ provider: model });
  });
  after(() => server.close());

  it('keeps the page out of the system prompt, the same for every call of a turn and for the next turn', async () => {
    const session = await openSession(server);
    const start = model.requests.length;
    const run = await driveScenario(scenario('cookie-shop'), {
      endpoint: server.hopUrl,
      fixtures,
      headers: () => session.headers(),
    });
    assert.ok(run.passed, JSON.stringify(run.hops.flatMap((hop) => hop.mismatches)));
    await session.hop(
      firstHop(`next-${crypto.randomUUID()}`, 'Make the hero darker', {
        agent: 'page_builder',
        context: { current_layout: COOKIE_SHOP, page: { title: 'T' }, selected_component: 'hero-1', extra: { a: 1 } },
      }),
    );
    const requests = model.requests.slice(start);
    assert.equal(requests.length, 8, 'seven decisions of the cookie-shop turn, one of the next turn');
    const systems = new Set(requests.map((request) => request.system));
    assert.equal(systems.size, 1, 'one system prompt, byte for byte');
    const [system] = systems;
    assert.match(system!, /sdc\.demo\.hero \(Hero\)/, 'the catalog is in it');
    assert.doesNotMatch(system!, /Layout \(uuid component_id\)|Selected component:|hero-1/, 'no page in it');
    for (const uuid of run.hops.flatMap((hop) => JSON.stringify(hop.body).match(/[0-9a-f]{8}-[0-9a-f-]{27}/g) ?? []))
      assert.ok(!system!.includes(uuid), `no placed uuid (${uuid}) in it`);
  });

  it('shows the whole page in the turn’s first call, after the person’s message', async () => {
    const session = await openSession(server);
    const start = model.requests.length;
    await session.hop(
      firstHop(`first-${crypto.randomUUID()}`, 'Make the hero darker', {
        agent: 'page_builder',
        context: {
          current_layout: COOKIE_SHOP,
          page: { title: 'PAGE-TITLE' },
          selected_component: 'card-2',
          extra: { locale: 'EXTRA-LOCALE' },
        },
      }),
    );
    const [first] = model.requests.slice(start);
    const [user, page] = first!.messages.slice(-2);
    assert.deepEqual(user, { role: 'user', text: 'Make the hero darker', attachments: [] });
    assert.equal(page?.role, 'notice');
    const text = page?.role === 'notice' ? page.text : '';
    assert.match(text, WHOLE_PAGE);
    assert.match(text, /region content\n {2}hero-1 sdc\.demo\.hero\n/, 'the uuid tree');
    assert.match(text, /hero-1: \{"heading":"Fresh cookies, baked every morning",/, 'the props by uuid');
    assert.match(text, /"title": "PAGE-TITLE"/, 'the page values');
    assert.match(text, /Selected component: card-2/);
    assert.match(text, /"locale": "EXTRA-LOCALE"/, 'the host’s data');
  });

  it('only appends: each call’s messages start with all of the previous call’s, and the page is shown once', async () => {
    const session = await openSession(server);
    const start = model.requests.length;
    const run = await driveScenario(scenario('cookie-shop'), {
      endpoint: server.hopUrl,
      fixtures,
      headers: () => session.headers(),
    });
    assert.ok(run.passed);
    const requests = model.requests.slice(start);
    assert.equal(requests.length, 7);
    for (const [index, request] of requests.slice(1).entries()) {
      const previous = requests[index]!.messages;
      assert.deepEqual(
        request.messages.slice(0, previous.length),
        previous,
        `call ${index + 2} starts with call ${index + 1}`,
      );
      assert.ok(request.messages.length > previous.length);
    }
    const last = requests.at(-1)!;
    assert.equal(notices(last).filter((text) => WHOLE_PAGE.test(text)).length, 1, 'the page is shown once');
    const results = last.messages.flatMap((message) => (message.role === 'tool' ? [message.content] : []));
    assert.equal(results.length, 7);
    assert.ok(
      results.every((result) => !result.includes('region content')),
      'no result repeats the layout: the model has the page and every change',
    );
  });
});

/** A server whose model looks up a component, then answers: a two-decision turn with no output. */
async function lookingModel() {
  const model = new RecordingProvider(
    new ListProvider([
      {
        text: 'Looking at the hero first.',
        toolCalls: [
          { id: 'd1', name: 'get_component_details', arguments: JSON.stringify({ component_ids: ['sdc.demo.hero'] }) },
        ],
      },
      { text: 'Done.', toolCalls: [] },
    ]),
  );
  const server = await startTestServer({ provider: model });
  const session = await openSession(server);
  const id = `looking-${crypto.randomUUID()}`;
  await session.hop(
    firstHop(id, 'Make the hero darker', { agent: 'page_builder', context: { current_layout: COOKIE_SHOP } }),
  );
  /** Hop 2, with the page as the person left it; the model's second call. */
  const secondCall = async (layout: Layout, extra: Record<string, unknown> = {}) => {
    const reply = await session.hop(
      laterHop(id, 2, layout, { agent: 'page_builder', context: { current_layout: layout, ...extra } }),
    );
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const [first, second] = model.requests;
    assert.deepEqual(second!.messages.slice(0, first!.messages.length), first!.messages, 'it only appends');
    return { first: first!, second: second!, added: second!.messages.slice(first!.messages.length) };
  };
  return { server, session, id, model, secondCall };
}

/** The cookie-shop page with the hero's props replaced. */
function withHero(props: Record<string, JsonValue>): Layout {
  const layout = structuredClone(COOKIE_SHOP);
  layout.regions.content!.components[0]!.props = { ...layout.regions.content!.components[0]!.props, ...props };
  return layout;
}

describe('what changed between two calls', () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) await server.close();
  });

  it('tells the person’s edit and a new selection after the tool result, without showing the page again', async () => {
    const { server, secondCall } = await lookingModel();
    servers.push(server);
    const { added } = await secondCall(withHero({ heading: 'Warm from the oven' }), { selected_component: 'card-2' });
    assert.deepEqual(
      added.map((message) => message.role),
      ['assistant', 'tool', 'notice', 'notice'],
      'the decision, its result, then the notices (never between a call and its result)',
    );
    const [person, page] = added.slice(2).map((message) => (message.role === 'notice' ? message.text : ''));
    assert.match(person!, /^While you worked, the person edited the page themselves\. These are their changes/);
    assert.match(person!, /hero-1 \(sdc\.demo\.hero\) props changed; now heading: "Warm from the oven"/);
    assert.match(page!, /^The page changed since you last saw it:\n\nSelected component: card-2/);
    assert.ok(!added.some((message) => message.role === 'notice' && WHOLE_PAGE.test(message.text)));
  });

  it('tells a component the person added with its props', async () => {
    const { server, secondCall } = await lookingModel();
    servers.push(server);
    const layout = structuredClone(COOKIE_SHOP);
    layout.regions.content!.components.push({
      uuid: 'pasted-1',
      component: 'sdc.demo.text',
      props: { body: 'Open on Sundays' },
    });
    const { added } = await secondCall(layout);
    const texts = added.flatMap((message) => (message.role === 'notice' ? [message.text] : []));
    assert.equal(texts.length, 1, 'the person notice only');
    assert.match(texts[0]!, /added pasted-1 \(sdc\.demo\.text\) #6 in content with body: "Open on Sundays"/);
  });

  it('says nothing of the page when nothing changed', async () => {
    const { server, secondCall } = await lookingModel();
    servers.push(server);
    const { added } = await secondCall(COOKIE_SHOP);
    assert.deepEqual(
      added.map((message) => message.role),
      ['assistant', 'tool'],
    );
  });

  it('shows the whole page again when the person changed more than the notice lists', async () => {
    const { server, secondCall } = await lookingModel();
    servers.push(server);
    const layout = structuredClone(COOKIE_SHOP);
    for (let index = 1; index <= 25; index += 1)
      layout.regions.content!.components.push({ uuid: `pasted-${index}`, component: 'sdc.demo.text', props: {} });
    const { added } = await secondCall(layout);
    const texts = added.flatMap((message) => (message.role === 'notice' ? [message.text] : []));
    assert.match(texts[0]!, /… and 5 more changes/, 'the notice counts the rest');
    assert.match(texts[1]!, /^# The page now \(shown whole again: it replaces what you knew of it\)/);
    assert.match(texts[1]!, /pasted-25 sdc\.demo\.text/, 'the page has what the notice left out');
  });

  it('shows the whole page again when what changed takes more words than the page', async () => {
    const { server, secondCall } = await lookingModel();
    servers.push(server);
    const { added } = await secondCall({ regions: { content: { components: [] } } });
    const texts = added.flatMap((message) => (message.role === 'notice' ? [message.text] : []));
    assert.match(texts[0]!, /removed hero-1 \(sdc\.demo\.hero\)/, 'the person notice still says whose doing it was');
    assert.ok(!/… and \d+ more/.test(texts[0]!), 'it lists every change');
    assert.match(texts[1]!, /^# The page now \(shown whole again/);
    assert.ok(texts[1]!.length < texts[0]!.length, 'the page is the shorter');
    assert.match(texts[1]!, /region content \(empty\)/);
  });

  it('shows the whole page again when a value the model needs had to be cut', async () => {
    const { server, secondCall } = await lookingModel();
    servers.push(server);
    const long = `A heading the person pasted, ${'very '.repeat(40)}long`;
    const { added } = await secondCall(withHero({ heading: long }));
    const texts = added.flatMap((message) => (message.role === 'notice' ? [message.text] : []));
    assert.equal(texts.length, 2);
    assert.ok(!texts[0]!.includes(long), 'the notice cuts it');
    assert.match(texts[1]!, WHOLE_PAGE);
    assert.ok(texts[1]!.includes(long), 'the page has it whole');
  });

  it('keeps at most two whole pages in the conversation when the person changes much of the page before every hop', async () => {
    const look = (id: string) => ({
      text: 'Looking.',
      toolCalls: [{ id, name: 'get_component_details', arguments: '{"component_ids":["sdc.demo.text"]}' }],
    });
    const model = new RecordingProvider(
      new ListProvider([look('l1'), look('l2'), look('l3'), look('l4'), { text: 'Done.', toolCalls: [] }]),
    );
    const server = await startTestServer({ provider: model });
    servers.push(server);
    const session = await openSession(server);
    const id = `pasting-${crypto.randomUUID()}`;
    const layout = structuredClone(COOKIE_SHOP);
    await session.hop(firstHop(id, 'Tidy up', { agent: 'page_builder', context: { current_layout: layout } }));
    for (let hop = 2; hop <= 5; hop += 1) {
      for (let index = 1; index <= 25; index += 1)
        layout.regions.content!.components.push({ uuid: `p${hop}-${index}`, component: 'sdc.demo.text', props: {} });
      const reply = await session.hop(laterHop(id, hop, layout, { agent: 'page_builder' }));
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
    }
    const wholePages = model.requests.map((request) => notices(request).filter((text) => WHOLE_PAGE.test(text)).length);
    assert.deepEqual(wholePages, [1, 2, 1, 2, 1], 'a page re-sent past two leaves the earlier ones out');
    const last = notices(model.requests.at(-1)!);
    assert.equal(last.filter((text) => text.startsWith('An earlier view of the page, left out')).length, 4);
    assert.match(last.at(-1)!, /p5-25 sdc\.demo\.text/, 'the newest page is whole');
    const [second, third] = [model.requests[1]!, model.requests[2]!];
    assert.deepEqual(third.messages.slice(0, 1), second.messages.slice(0, 1), 'what precedes the pages is kept');
  });

  it('shows the whole page to a turn stored before the page left the system prompt', async () => {
    const { server, session, id, secondCall } = await lookingModel();
    servers.push(server);
    const key = `${session.id}:${id}`;
    const { told, ...older }: JsonBody = await server.store.get(key);
    assert.ok(told, 'a turn stores what the model was told of the page');
    await server.store.set(key, older, 60_000);
    const { added } = await secondCall(COOKIE_SHOP);
    const texts = added.flatMap((message) => (message.role === 'notice' ? [message.text] : []));
    assert.equal(texts.length, 1);
    assert.match(texts[0]!, WHOLE_PAGE);
  });
});
