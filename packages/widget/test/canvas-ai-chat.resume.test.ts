// A reload in the middle of a turn (spec §18): the chat a reloaded page mounts takes up what the tab kept in
// sessionStorage. The page that "reloaded" is an element left hanging on a response that never comes; the new one
// is mounted with the same storage key and the same host store (a host that keeps its document across reloads).
import { TOOL_OUTPUT_TYPES } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import { http, type HttpHandler } from 'msw';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import { ChatStorage } from '../src/loop.js';
import {
  bubbles,
  chatRoot,
  collect,
  mountChat,
  pickAgent,
  progressBlocks,
  sendAndWait,
  unmountAll,
} from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { loseResponse } from './support/hold.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { deferred } from './support/hop-server.js';
import { useHandlers } from './support/worker.js';

const KEY = 'resume-test';

/**
 * The cookie-shop turn in a first chat, until the response of hop `lost` is lost with the page. `handlers` answer
 * before the mock; `beforeMount` runs on the reloaded page before its chat is mounted.
 */
async function reloadedAt(
  lost: number,
  {
    handlers = [],
    beforeMount,
  }: { handlers?: HttpHandler[]; beforeMount?: (options: Partial<CanvasAiChat>) => Promise<void> } = {},
) {
  const fixtures = await loadFixtures();
  const shop = await scenario('cookie-shop');
  const losing = loseResponse(lost);
  const record = recorder();
  await useHandlers(...handlers, losing.handler, record.handler, ...createMockHandlers(fixtures));
  const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
  const options = {
    agentsEndpoint: '/api/agents',
    storageKey: KEY,
    outputTypes: [...TOOL_OUTPUT_TYPES],
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
  };
  const before = await mountChat(options);
  await waitUntil(() => before.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
  await pickAgent(before, 'page_builder');
  before.sendMessage(shop.user_message);
  await losing.answered;
  await waitUntil(() => new ChatStorage(KEY).load()?.running?.hop === lost - 1, 'the running turn was not kept');
  before.style.display = 'none';
  // The reloaded page: a new chat over the same store, its events heard from the start.
  const container = document.createElement('div');
  document.body.append(container);
  const resumes: Array<HTMLElementEventMap['canvas-ai-resume']> = [];
  container.addEventListener('canvas-ai-resume', (event) =>
    resumes.push(event as HTMLElementEventMap['canvas-ai-resume']),
  );
  const ends = collect(container, 'canvas-ai-turn-end');
  await beforeMount?.(options);
  const after = await mountChat(options, container);
  return { shop, record, host, before, after, resumes, ends, container };
}

/**
 * What a tab kept of a turn the server no longer has (a request id it never saw), mid-turn at hop 2 with some
 * narration; the mock server behind a recorder, and an empty page in the host's store.
 */
async function keptTurnTheServerLost() {
  const fixtures = await loadFixtures();
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  new ChatStorage(KEY).update(() => ({
    version: 2,
    messages: [{ role: 'user', text: 'Build a page' }],
    running: {
      requestId: `gone-${crypto.randomUUID()}`,
      message: 'Build a page',
      hop: 2,
      changes: { requestId: 'x', outputs: [], inverse: [], unrecorded: [] },
      progress: 'Adding a hero first.',
      notices: [],
    },
  }));
  const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
  return { record, host };
}

const answersOf = (element: CanvasAiChat, text: string) =>
  bubbles(element).filter((bubble) => bubble.textContent!.trim() === text);

declare global {
  interface Window {
    __canvasAiKeptXss?: number;
  }
}

/** What a kept conversation made the page do: elements created in the chat, requests for its pixels, handlers run. */
async function sideEffects(element: CanvasAiChat, record: ReturnType<typeof recorder>) {
  // Any image that was created has made its request once it settled (decode rejects for a failed load).
  await Promise.all(
    [...chatRoot(element).querySelectorAll('img')].map((image) => image.decode().catch(() => undefined)),
  );
  return {
    created: [...chatRoot(element).querySelectorAll('a, img, script, iframe')].map((node) => node.outerHTML),
    requested: [
      ...record.requests.map((entry) => entry.path),
      ...performance
        .getEntriesByType('resource')
        .map((entry) => entry.name)
        .filter((name) => name.includes('pixel')),
    ],
    ran: window.__canvasAiKeptXss,
  };
}

describe('<canvas-ai-chat> after a reload', () => {
  afterEach(async () => {
    await unmountAll(document.querySelectorAll('body > div canvas-ai-chat'));
    for (const extra of document.querySelectorAll('body > div')) extra.remove();
  });

  it('resumes a turn whose response was lost: the hop is replayed, and the turn finishes with every row once', async () => {
    const { shop, record, host, after, resumes, ends } = await reloadedAt(4);
    await waitUntil(() => ends.length === 1, 'the resumed turn did not end', { timeout: 10_000 });
    expect(resumes.map((event) => event.detail.outcome)).to.deep.equal(['resumed']);
    expect(ends[0]!.detail.status).to.equal('done');
    const rows = host.document.layout.regions.content!.components.map((node) => node.uuid);
    expect(rows).to.have.length(5);
    expect(new Set(rows).size).to.equal(5);
    const requestId = record.posts()[0]!.body.request_id;
    expect(record.posts().every((post) => post.body.request_id === requestId)).to.equal(true);
    expect(record.posts().map((post) => post.body.hop)).to.deep.equal([1, 2, 3, 4, 4, 5, 6, 7, 8]);
    // The conversation is back: the person's message, ONE narration block, the answer once.
    expect(bubbles(after).filter((bubble) => bubble.textContent!.trim() === shop.user_message)).to.have.length(1);
    expect(progressBlocks(after)).to.have.length(1);
    expect(progressBlocks(after)[0]!.textContent).to.include("I'll start with a hero");
    expect(answersOf(after, shop.hops.at(-1)!.message!)).to.have.length(1);
    expect(new ChatStorage(KEY).load()?.running, 'nothing left to resume').to.equal(undefined);
    await after.updateComplete;
    expect(after.canUndo, 'the whole turn can be undone, hops before the reload included').to.equal(true);
    // Recorded after the reload too: every applied output has its inverse.
    expect(ends[0]!.detail.outputs).to.have.length(7);
    expect(ends[0]!.detail.inverse).to.have.length(7);
  });

  it('resumes once when the chat is mounted again while it asks where the turn stands (a remount: React, Puck)', async () => {
    // The first chat of the reloaded page asks where the turn stands and is taken out before the answer comes, as
    // React's StrictMode and Puck do; the chat mounted in its place takes the turn up. Each hop is sent once.
    const standing = deferred();
    const asked = deferred();
    const holdStanding = http.get('*/api/hop/:request_id', async () => {
      asked.resolve();
      await standing.promise;
    });
    let first: CanvasAiChat | undefined;
    const firstResumes: unknown[] = [];
    const { record, host, after, resumes, ends } = await reloadedAt(4, {
      handlers: [holdStanding],
      beforeMount: async (options) => {
        const elsewhere = document.createElement('div');
        document.body.append(elsewhere);
        elsewhere.addEventListener('canvas-ai-resume', (event) => firstResumes.push(event));
        first = await mountChat(options, elsewhere);
        await asked.promise;
        first.remove();
      },
    });
    standing.resolve();
    await waitUntil(() => ends.length === 1, 'the resumed turn did not end', { timeout: 10_000 });
    expect(firstResumes, 'the chat taken out did not take the turn up').to.deep.equal([]);
    expect(first!.running).to.equal(false);
    expect(resumes.map((event) => event.detail.outcome)).to.deep.equal(['resumed']);
    expect(ends[0]!.detail.status).to.equal('done');
    expect(record.posts().map((post) => post.body.hop)).to.deep.equal([1, 2, 3, 4, 4, 5, 6, 7, 8]);
    const requestId = record.posts()[0]!.body.request_id;
    expect(record.deletes(requestId), 'nothing cancelled').to.have.length(0);
    expect(host.document.layout.regions.content!.components).to.have.length(5);
    expect(progressBlocks(after)).to.have.length(1);
  });

  it('takes the turn up once when the chat is moved in the page while it asks where the turn stands', async () => {
    const standing = deferred();
    const asked = deferred();
    const holdStanding = http.get('*/api/hop/:request_id', async () => {
      asked.resolve();
      await standing.promise;
    });
    const { record, host, after } = await reloadedAt(4, { handlers: [holdStanding] });
    const ends = collect(after, 'canvas-ai-turn-end');
    await asked.promise;
    const elsewhere = document.createElement('div');
    document.body.append(elsewhere);
    elsewhere.append(after);
    standing.resolve();
    await waitUntil(() => ends.length === 1, 'the turn did not end after the move', { timeout: 10_000 });
    expect(ends[0]!.detail.status).to.equal('done');
    expect(record.posts().map((post) => post.body.hop)).to.deep.equal([1, 2, 3, 4, 4, 5, 6, 7, 8]);
    expect(host.document.layout.regions.content!.components).to.have.length(5);
    expect(progressBlocks(after), 'one narration block').to.have.length(1);
  });

  it('lets one of two chats that kept the same turn drive it; the other waits, then shows its answer', async () => {
    let second: CanvasAiChat | undefined;
    const secondEnds: Array<HTMLElementEventMap['canvas-ai-turn-end']> = [];
    const secondResumes: Array<HTMLElementEventMap['canvas-ai-resume']> = [];
    const { shop, record, resumes, ends } = await reloadedAt(4, {
      beforeMount: async (options) => {
        const elsewhere = document.createElement('div');
        document.body.append(elsewhere);
        elsewhere.addEventListener('canvas-ai-turn-end', (event) =>
          secondEnds.push(event as HTMLElementEventMap['canvas-ai-turn-end']),
        );
        elsewhere.addEventListener('canvas-ai-resume', (event) =>
          secondResumes.push(event as HTMLElementEventMap['canvas-ai-resume']),
        );
        second = await mountChat(options, elsewhere);
      },
    });
    await waitUntil(() => ends.length === 1 && secondEnds.length === 1, 'both chats did not close the turn', {
      timeout: 10_000,
    });
    expect(
      record.posts().map((post) => post.body.hop),
      'each hop once',
    ).to.deep.equal([1, 2, 3, 4, 4, 5, 6, 7, 8]);
    expect([...resumes, ...secondResumes].map((event) => event.detail.outcome).sort()).to.deep.equal([
      'finished',
      'resumed',
    ]);
    expect([ends[0]!.detail.status, secondEnds[0]!.detail.status]).to.deep.equal(['done', 'done']);
    expect(answersOf(second!, shop.hops.at(-1)!.message!)).to.have.length(1);
  });

  it('shows the final answer it missed once, and sends no hop', async () => {
    const { shop, record, after, resumes, ends } = await reloadedAt(8);
    await waitUntil(() => ends.length === 1, 'the turn was not closed');
    expect(resumes.map((event) => event.detail.outcome)).to.deep.equal(['finished']);
    expect(ends[0]!.detail.status).to.equal('done');
    expect(record.posts().map((post) => post.body.hop)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(answersOf(after, shop.hops.at(-1)!.message!)).to.have.length(1);
  });

  it('closes a turn the server no longer has with a notice, and sends nothing', async () => {
    const { record, host } = await keptTurnTheServerLost();
    const container = document.createElement('div');
    document.body.append(container);
    const resumes = collect(container, 'canvas-ai-resume');
    const element = await mountChat(
      { storageKey: KEY, getLayout: host.getLayout, applyOutputs: host.applyOutputs },
      container,
    );
    await waitUntil(() => resumes.length === 1, 'the kept turn was not taken up');
    expect(resumes[0]!.detail.outcome).to.equal('gone');
    await waitUntil(() => element.chat!.shadowRoot!.querySelector('.canvas-ai-notice'), 'no notice');
    expect(element.chat!.shadowRoot!.querySelector('.canvas-ai-notice')!.textContent).to.match(/could not be resumed/);
    expect(progressBlocks(element)[0]!.textContent).to.include('Adding a hero first.');
    expect(record.posts()).to.have.length(0);
    expect(element.running).to.equal(false);
    expect(new ChatStorage(KEY).load()?.running).to.equal(undefined);
  });

  it('takes the kept turn up only after deep-chat rendered for its options too (its own first render came earlier)', async () => {
    // deep-chat renders once from its constructor's 20 ms timer and again for the options set on it (a 0 ms timer,
    // pushed on by every option set). Under load the first can come before the second: the later render rebuilds
    // the messages from history and drops what was added between. Made certain here by delaying 0 ms timers.
    const { record, host } = await keptTurnTheServerLost();
    const resumes = collect(document.body, 'canvas-ai-resume');
    const ends = collect(document.body, 'canvas-ai-turn-end');
    const realSetTimeout = window.setTimeout;
    const delayed = ((handler: TimerHandler, delay?: number, ...rest: unknown[]) =>
      realSetTimeout(handler, delay ? delay : 60, ...rest)) as typeof window.setTimeout;
    window.setTimeout = delayed;
    let element: CanvasAiChat;
    try {
      element = await mountChat({ storageKey: KEY, getLayout: host.getLayout, applyOutputs: host.applyOutputs });
      await waitUntil(() => resumes.length === 1, 'the kept turn was not taken up', { timeout: 5000 });
    } finally {
      window.setTimeout = realSetTimeout;
    }
    const renderPending = () => (element.chat as HTMLElement & { _waitingToRender_?: boolean })._waitingToRender_;
    await waitUntil(() => ends.length === 1 && !renderPending(), 'the turn did not end', { timeout: 5000 });
    expect(element.chat!.shadowRoot!.querySelector('.canvas-ai-notice')?.textContent).to.match(/could not be resumed/);
    expect(progressBlocks(element)[0]!.textContent).to.include('Adding a hero first.');
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include('Build a page');
    expect(record.posts(), 'no hop of a turn the server lost').to.have.length(0);
  });

  it('G6: shows a kept version 1 record as text: its <img onerror> html is dropped, a markdown javascript: link stays text', async () => {
    delete window.__canvasAiKeptXss;
    const record = recorder();
    await useHandlers(record.handler, ...createMockHandlers(await loadFixtures()));
    const markdown = '[link](javascript:window.__canvasAiKeptXss=2) ![i](/api/pixel-md-storedtext)';
    // What any script of the origin can write before the page loads (security review 2, G6), in the old format.
    sessionStorage.setItem(
      KEY,
      JSON.stringify({
        version: 1,
        messages: [
          {
            role: 'user',
            html: '<img id="inj-storedhtml" src="/api/pixel-storedhtml" onerror="window.__canvasAiKeptXss=1">',
          },
          { role: 'ai', text: markdown },
        ],
      }),
    );
    const element = await mountChat({ storageKey: KEY, getLayout: () => ({ layout: { regions: {} } }) });
    await waitUntil(() => bubbles(element).some((bubble) => bubble.textContent!.includes('javascript:')), 'not shown');

    const { created, requested, ran } = await sideEffects(element, record);
    expect(created, 'elements created').to.deep.equal([]);
    expect(requested, 'requested').to.deep.equal([]);
    expect(ran, 'a handler ran').to.equal(undefined);
    expect(chatRoot(element).querySelector('#inj-storedhtml')).to.equal(null);
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.deep.equal([markdown]);
  });

  it('G6: rebuilds every kept message with its own escaping, whatever its text holds, and sends it as text', async () => {
    delete window.__canvasAiKeptXss;
    const record = recorder();
    await useHandlers(record.handler, ...createMockHandlers(await loadFixtures()));
    const markup = '<img src="/api/pixel-kept" onerror="window.__canvasAiKeptXss=3"> <b>bold</b>';
    const markdown = '[link](javascript:window.__canvasAiKeptXss=4) ![i](/api/pixel-kept-md)';
    new ChatStorage(KEY).update(() => ({
      version: 2,
      messages: [
        { role: 'user', text: markup },
        { role: 'qa', text: markdown, kind: 'answer' },
        { role: 'qa', text: markup, kind: 'narration', status: 'done', notices: [markdown] },
        { role: 'user', text: markdown, kind: 'note', shown: markup },
        { role: 'canvas-ai-error', text: markup, kind: 'error', code: markdown },
      ],
    }));
    const element = await mountChat({ storageKey: KEY, getLayout: () => ({ layout: { regions: {} } }) });
    await waitUntil(() => bubbles(element).length >= 5, 'the kept messages were not shown');

    const { created, requested, ran } = await sideEffects(element, record);
    expect(created, 'elements created').to.deep.equal([]);
    expect(requested, 'requested').to.deep.equal([]);
    expect(ran, 'a handler ran').to.equal(undefined);
    expect(bubbles(element)[0]!.textContent!.trim()).to.equal(markup);
    expect(bubbles(element)[1]!.textContent!.trim()).to.equal(markdown);
    // The next turn's transcript carries them as the text they are.
    await sendAndWait(element, 'Hello');
    expect(record.posts()[0]!.body.messages).to.deep.equal([
      { role: 'user', text: markup },
      { role: 'assistant', text: markdown },
      { role: 'user', text: markdown },
      { role: 'user', text: 'Hello' },
    ]);
  });

  it('keeps nothing with no-persist', async () => {
    const fixtures = await loadFixtures();
    await useHandlers(...createMockHandlers(fixtures));
    const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
    const element = await mountChat({ noPersist: true, storageKey: KEY, getLayout: host.getLayout });
    element.sendMessage('Hello');
    await waitUntil(() => bubbles(element).length >= 2, 'no answer');
    expect(new ChatStorage(KEY).load()).to.equal(undefined);
  });
});
