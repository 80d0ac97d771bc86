import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import { LIMITS } from '@canvas-ai/protocol';
import type { ChatOptions } from '../src/canvas-ai-chat/chat-types.js';
import type { DeepChatInstance } from '../src/canvas-ai-chat/deep-chat-types.js';
import { TRANSCRIPT_MAX_CHARS, transcriptOf } from '../src/canvas-ai-chat/transcript.js';
import {
  bubbles,
  collect,
  errorBubbles,
  loadingBubbles,
  mountChat,
  pickAgent,
  progressBlocks,
  sendAndWait,
  unmountAll,
} from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { continuing, deferred, final, hopServer } from './support/hop-server.js';
import { recorder } from './support/recorder.js';
import { afterHop, reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

/**
 * A chat over a reducer host on the empty page, against the reference server's mock with a recorder, its agents
 * config loaded; and the scenario `name`.
 */
async function scenarioChat(name: Parameters<typeof scenario>[0]) {
  const fixtures = await loadFixtures();
  const script = await scenario(name);
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  const host = reducerHost({ layout: fixtures.layouts['layouts/empty.yaml']!, page: {} });
  const element = await mountChat({
    agentsEndpoint: '/api/agents',
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
  });
  await waitUntil(() => element.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
  return { fixtures, script, record, host, element };
}

describe('<canvas-ai-chat> turns', () => {
  afterEach(unmountAll);

  it('renders a one-hop answer once, with the agent that answered and no progress block left spinning', async () => {
    const { fixtures, script: qa, record, element } = await scenarioChat('qa-one-hop');

    const end = await sendAndWait(element, qa.user_message);

    expect(end.detail.status).to.equal('done');
    const answer = qa.hops[0]!.message!;
    const texts = bubbles(element).map((bubble) => bubble.textContent!.trim());
    expect(texts.filter((text) => text === answer)).to.have.length(1);
    // A streamed answer showed live in a narration block: it left it for its bubble, and the block says done.
    for (const block of progressBlocks(element)) {
      expect(block.dataset.status).to.equal('done');
      expect(block.querySelector('.canvas-ai-progress-text')).to.equal(null);
    }
    expect(element.chat!.shadowRoot!.querySelector('.canvas-ai-progress-icon-running')).to.equal(null);
    const names = [...element.chat!.shadowRoot!.querySelectorAll('.name')].map((name) => name.textContent);
    expect(names).to.include(fixtures.agents.agents.qa!.label);
    expect(record.posts()).to.have.length(1);
  });

  it('runs a multi-hop turn: each hop carries the layout applyOutputs made from the previous outputs', async () => {
    const { script: cookieShop, record, host, element } = await scenarioChat('cookie-shop');
    const hopEvents = collect(element, 'canvas-ai-hop');
    const starts = collect(element, 'canvas-ai-turn-start');
    await pickAgent(element, 'page_builder');

    const end = await sendAndWait(element, cookieShop.user_message);

    expect(end.detail.status, end.detail.error?.message).to.equal('done');
    const posts = record.posts();
    const n = cookieShop.hops.length;
    expect(posts.map((post) => post.body.hop)).to.deep.equal(Array.from({ length: n }, (_, index) => index + 1));
    expect(host.getLayoutCalls).to.equal(n);
    const requestId = posts[0]!.body.request_id;
    expect(posts.every((post) => post.body.request_id === requestId)).to.equal(true);
    expect(starts[0]!.detail.requestId).to.equal(requestId);
    posts.slice(1).forEach((post) => {
      const previous = afterHop(requestId, post.body.hop - 1);
      expect(post.body.context.current_layout, `hop ${post.body.hop}`).to.deep.equal(host.layoutAfterHop.get(previous));
      expect(post.body.apply_results, `hop ${post.body.hop}`).to.deep.equal(host.resultsOfHop.get(previous));
    });
    expect(posts.every((post) => post.body.agent === 'page_builder')).to.equal(true);
    expect(hopEvents.map((event) => event.detail.hop)).to.deep.equal(posts.map((post) => post.body.hop));

    // One narration block, finished, holding the whole narration; the answer shown once after it.
    const blocks = progressBlocks(element);
    expect(blocks).to.have.length(1);
    expect(blocks[0]!.dataset.status).to.equal('done');
    expect(blocks[0]!.querySelector('.canvas-ai-progress-text')!.textContent).to.equal(
      cookieShop.hops.at(-1)!.progress.replaceAll('\n', ''),
    );
    const answer = cookieShop.hops.at(-1)!.message!;
    expect(bubbles(element).filter((bubble) => bubble.textContent!.trim() === answer)).to.have.length(1);
    // The html block is never sent back: the next message's transcript holds only text messages.
    await sendAndWait(element, 'How do I get the assistant to change my page?');
    const next = record.posts().at(-1)!.body;
    expect(next.request_id).not.to.equal(requestId);
    expect(next.messages).to.deep.equal([
      { role: 'user', text: cookieShop.user_message },
      { role: 'assistant', text: answer },
      { role: 'user', text: 'How do I get the assistant to change my page?' },
    ]);
  });

  it("keeps deep-chat's loader from send to the first response, then the block's spinner until the last hop", async () => {
    const firstGate = deferred();
    const secondGate = deferred();
    const server = hopServer([
      async (body) => {
        await firstGate.promise;
        return continuing({ progress: 'Placing a hero.' })(body);
      },
      async (body) => {
        await secondGate.promise;
        return final({ progress: 'Placing a hero.', message: 'Done: one hero.' })(body);
      },
    ]);
    await useHandlers(...server.handlers);
    const element = await mountChat({ getLayout: () => ({ layout: { regions: { content: { components: [] } } } }) });

    const ended = sendAndWait(element, 'Add a hero');
    await waitUntil(() => server.received.length === 1, 'hop 1 was not sent');
    expect(loadingBubbles(element)).to.have.length(1);
    expect(progressBlocks(element)).to.have.length(0);

    firstGate.resolve();
    await waitUntil(() => server.received.length === 2, 'hop 2 was not sent');
    await waitUntil(() => progressBlocks(element).length === 1, 'the narration block did not appear');
    expect(loadingBubbles(element)).to.have.length(0);
    expect(progressBlocks(element)[0]!.dataset.status).to.equal('running');
    expect(progressBlocks(element)[0]!.querySelector('.canvas-ai-progress-icon-running')).not.to.equal(null);
    expect(bubbles(element).some((bubble) => bubble.textContent!.includes('Done: one hero.'))).to.equal(false);

    secondGate.resolve();
    await ended;
    expect(progressBlocks(element)).to.have.length(1);
    expect(progressBlocks(element)[0]!.dataset.status).to.equal('done');
    expect(bubbles(element).at(-1)!.textContent!.trim()).to.equal('Done: one hero.');
  });

  it('hands the host what each hop and the whole turn cost when the server reports usage, and undefined when not', async () => {
    const tokens = (input: number, output: number, cached: number) => ({
      input_tokens: input,
      output_tokens: output,
      cached_input_tokens: cached,
    });
    const first = { hop: tokens(1000, 40, 0), turn: tokens(1000, 40, 0) };
    const second = { hop: tokens(1300, 25, 900), turn: tokens(2300, 65, 900) };
    const server = hopServer([
      continuing({ progress: 'Placing a hero.', usage: first }),
      final({ progress: 'Placing a hero.', message: 'Done.', usage: second }),
    ]);
    await useHandlers(...server.handlers);
    const element = await mountChat({ getLayout: () => ({ layout: { regions: { content: { components: [] } } } }) });
    const hops = collect(element, 'canvas-ai-hop');

    const end = await sendAndWait(element, 'Add a hero');

    expect(hops.map((event) => event.detail.usage)).to.deep.equal([first, second]);
    expect(end.detail.usage).to.deep.equal(tokens(2300, 65, 900));

    const quiet = hopServer([final({ message: 'Hi.' })]);
    await useHandlers(...quiet.handlers);
    const plain = await sendAndWait(element, 'Hello');
    expect(plain.detail.status).to.equal('done');
    expect(plain.detail.usage).to.equal(undefined);
    expect(hops.at(-1)!.detail.usage).to.equal(undefined);
  });

  it('sends a traceparent of one trace per turn on every hop once the trace attribute is set, and none before', async () => {
    const turn = () => [
      continuing({ progress: 'Placing a hero.' }),
      final({ progress: 'Placing a hero.', message: 'Done.' }),
    ];
    const server = hopServer([...turn()]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const element = await mountChat({ getLayout: () => ({ layout: { regions: { content: { components: [] } } } }) });

    expect((await sendAndWait(element, 'Add a hero')).detail.status).to.equal('done');
    expect(record.posts().map((post) => post.headers.get('traceparent'))).to.deep.equal([null, null]);

    element.setAttribute('trace', '');
    record.requests.length = 0;
    await useHandlers(record.handler, ...hopServer([...turn()]).handlers);
    expect((await sendAndWait(element, 'Add another')).detail.status).to.equal('done');
    const traceIds = record
      .posts()
      .map((post) => /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(post.headers.get('traceparent') ?? '')?.[1]);
    expect(traceIds).to.have.length(2);
    expect(traceIds[0]).to.be.a('string');
    expect(traceIds[1]).to.equal(traceIds[0]);
  });

  it('gets its CSRF token from token-endpoint and sends it with every hop', async () => {
    const fixtures = await loadFixtures();
    const qa = await scenario('qa-one-hop');
    const record = recorder();
    await useHandlers(record.handler, ...createMockHandlers({ ...fixtures, requireCsrf: true }));
    const element = await mountChat({
      tokenEndpoint: '/api/token',
      getLayout: () => ({ layout: fixtures.layouts['layouts/empty.yaml']! }),
    });

    const end = await sendAndWait(element, qa.user_message);

    expect(end.detail.status, end.detail.error?.message).to.equal('done');
    expect(record.posts()[0]!.headers.get('x-csrf-token')).to.be.a('string').and.not.equal('');
  });

  it('fetches a fresh CSRF token when the server rejects the one it had, and sends the refused hop again', async () => {
    const fixtures = await loadFixtures();
    const qa = await scenario('qa-one-hop');
    const record = recorder();
    await useHandlers(record.handler, ...createMockHandlers({ ...fixtures, requireCsrf: true }));
    const element = await mountChat({
      tokenEndpoint: '/api/token',
      getLayout: () => ({ layout: fixtures.layouts['layouts/empty.yaml']! }),
    });
    expect((await sendAndWait(element, qa.user_message)).detail.status).to.equal('done');

    // The server restarts with a new token: the next message is refused once (403 csrf_invalid), the widget gets
    // the new token and the same hop goes again, so the person sees the answer, not an error.
    await useHandlers(record.handler, ...createMockHandlers({ ...fixtures, requireCsrf: true }));
    const second = await sendAndWait(element, qa.user_message);
    expect(second.detail.status, second.detail.error?.message).to.equal('done');
    expect(errorBubbles(element)).to.have.length(0);
    const third = await sendAndWait(element, qa.user_message);
    expect(third.detail.status, third.detail.error?.message).to.equal('done');

    const posts = record.posts();
    expect(posts.map((post) => post.body.hop)).to.deep.equal([1, 1, 1, 1]);
    expect(posts[2]!.json, 'the refused hop is sent again as it was').to.equal(posts[1]!.json);
    const tokens = posts.map((post) => post.headers.get('x-csrf-token'));
    expect(tokens[1]).to.equal(tokens[0]);
    expect(tokens[2]).not.to.equal(tokens[1]);
    expect(tokens[3], 'the fresh token is kept for the next messages').to.equal(tokens[2]);
    expect(record.requests.filter((entry) => entry.path === '/api/token')).to.have.length(2);
  });

  it('applies chatOptions set after the first render, keeping what the widget owns', async () => {
    await useHandlers();
    const element = await mountChat({ getLayout: () => ({ layout: { regions: {} } }) });
    // The test reads deep-chat's own configuration, which the public type leaves out.
    const chat = () => element.chat as DeepChatInstance;
    const handler = chat().connect!.handler;

    element.chatOptions = { textInput: { placeholder: { text: 'Describe your page' }, characterLimit: 999_999 } };
    await element.updateComplete;

    expect(chat().textInput!.placeholder!.text).to.equal('Describe your page');
    expect(chat().textInput!.characterLimit, 'never above the protocol limit').to.equal(20_000);
    expect(chat().connect!.handler).to.equal(handler);
    expect(chat().auxiliaryStyle).to.contain('.canvas-ai-progress');
  });

  it('keeps remarkable out of chatOptions: a page cannot turn on raw html or link targets in the messages', async () => {
    await useHandlers(...hopServer([final({ message: 'Hello.' })]).handlers);
    // Plain JavaScript can still set it; the type no longer offers it.
    const chatOptions = { remarkable: { html: true }, textInput: { placeholder: { text: 'Ask me' } } } as ChatOptions;
    const element = await mountChat({ getLayout: () => ({ layout: { regions: {} } }), chatOptions });

    await sendAndWait(element, 'Make it <b id="raw-html">bold</b>');

    const chat = element.chat as DeepChatInstance;
    expect(chat.remarkable).to.equal(undefined);
    expect(chat.textInput!.placeholder!.text, 'the other options still apply').to.equal('Ask me');
    expect(element.chat!.shadowRoot!.querySelector('#raw-html')).to.equal(null);
    expect(bubbles(element).some((bubble) => bubble.textContent!.includes('<b id="raw-html">bold</b>'))).to.equal(true);
  });

  it('sends a long conversation from its newest messages, within the JSON body limit', () => {
    const long = 'x'.repeat(LIMITS.messageChars);
    const messages = Array.from({ length: 1_200 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'ai',
      text: `${index} ${long}`,
    }));
    const sent = transcriptOf(messages);
    const chars = sent.reduce((sum, message) => sum + message.text.length, 0);
    expect(chars).to.be.at.most(TRANSCRIPT_MAX_CHARS);
    expect(chars * 3, 'UTF-8 bytes, at worst').to.be.below(LIMITS.maxJsonBodyBytes / 2);
    expect(sent.at(-1)!.text.startsWith('1199 ')).to.equal(true);
    expect(sent.length).to.be.above(10);
    expect(transcriptOf([{ role: 'user', text: long }])).to.have.length(1);
  });

  it('says what is missing when the page did not set getLayout', async () => {
    const record = recorder();
    await useHandlers(record.handler);
    const element = await mountChat({});
    const errors = collect(element, 'canvas-ai-error');

    const end = await sendAndWait(element, 'Hello');

    expect(end.detail.status).to.equal('error');
    expect(errors).to.have.length(1);
    expect(errorBubbles(element).at(-1)!.textContent).to.contain('getLayout');
    expect(record.requests).to.have.length(0);
  });
});
