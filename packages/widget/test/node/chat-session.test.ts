// The conversation's state without a browser (no lit, no deep-chat, no DOM): a ChatSession over a scripted fetch
// (one side's unit test) and the protocol's reducer as the host's store, kept in an in-memory storage area.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyOutputsWithResults,
  type CanvasDocument,
  type HopRequest,
  type HopResponse,
  type ToolOutput,
} from '@canvas-ai/protocol';
import { answerResponse, continuingResponse } from '@canvas-ai/protocol/server';
import { ChatSession, ChatStorage, type ChatStorageArea, type TurnResult, type TurnView } from '../../src/loop.js';

const AGENT = { id: 'page_builder', label: 'Page builder' };
const ENDPOINT = 'http://127.0.0.1:1/api/hop';
const TITLE: ToolOutput = { type: 'set_page_value', call_id: 'c1', field: 'title', value: 'Cookies' };

/** A promise the test settles by hand. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** What the scripted server answers hop N of a turn with (after `holds[N - 1]`, when there is one, is opened). */
type Answer = (request: HopRequest) => HopResponse;

const setsTitle: Answer = (request) =>
  continuingResponse({ requestId: request.request_id, hop: request.hop, agent: AGENT, outputs: [TITLE] }, [
    'Setting the title.',
  ]);
const answers: Answer = (request) =>
  answerResponse({ requestId: request.request_id, hop: request.hop, agent: AGENT, outputs: [] }, [
    'Setting the title.',
    'Done: the title is Cookies.',
  ]);

/**
 * A fetch that answers every turn's hop N with `script[N - 1]`, holding it on `holds[N - 1]` first; `GET` (the turn
 * status, spec §8.6) answers `status` (405 by default: a 1.1 server, the next hop says where the turn stands).
 */
function scriptedServer(script: Answer[], options: { holds?: Array<Promise<void> | undefined>; status?: number } = {}) {
  const posts: HopRequest[] = [];
  const deletes: string[] = [];
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    if (init.method === 'DELETE') {
      deletes.push(String(input));
      return Response.json({ status: true, request_id: 'x', cancelled: true });
    }
    if (init.method === 'GET') return new Response(null, { status: options.status ?? 405 });
    const request = JSON.parse(String(init.body)) as HopRequest;
    posts.push(request);
    const hold = options.holds?.[request.hop - 1];
    if (hold) {
      // A stop aborts the request while it is held, as a real server's connection would be.
      await Promise.race([
        hold,
        new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal!.reason))),
      ]);
    }
    return Response.json(script[request.hop - 1]!(request));
  };
  return { fetch: fetch as typeof globalThis.fetch, posts, deletes };
}

/** A host whose store is the protocol's reducer; it records every applyOutputs call that carried outputs in `log`. */
function reducerStore(log: string[]) {
  const store = {
    document: { layout: { regions: { content: { components: [] } } }, page: {} } as CanvasDocument,
    getLayout: () => store.document,
    applyOutputs: (outputs: ToolOutput[], _response: unknown, info: { kind: string }) => {
      if (outputs.length > 0) log.push(`apply ${info.kind} ${outputs.map((output) => output.type).join(',')}`);
      const { document, results } = applyOutputsWithResults(store.document, outputs);
      store.document = document;
      return results;
    },
  };
  return store;
}

/** An in-memory storage area (what `sessionStorage` is to a page). */
function memoryArea(): ChatStorageArea & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

/** A session over `server` and `store`, kept in `area`, its turn ends and undos logged in order. */
/** `server`, with its answer to where a turn stands (GET) held until `answer` opens; `asked` opens when it is asked. */
function holdingStanding(server: ReturnType<typeof scriptedServer>) {
  const asked = gate();
  const answer = gate();
  const held = {
    ...server,
    fetch: async (input: RequestInfo | URL, init: RequestInit = {}) => {
      if (init.method === 'GET') {
        asked.open();
        await answer.promise;
      }
      return server.fetch(input, init);
    },
  };
  return { held, asked, answer };
}

function sessionOf(
  server: ReturnType<typeof scriptedServer>,
  store: ReturnType<typeof reducerStore>,
  log: string[],
  area = memoryArea(),
) {
  const storage = new ChatStorage('chat', area);
  const session = new ChatSession({
    settings: () => ({
      endpoint: ENDPOINT,
      fetch: server.fetch,
      getLayout: store.getLayout,
      applyOutputs: store.applyOutputs,
      outputTypes: ['remove_components'],
      retryDelays: [],
      conversationId: 'conversation-1',
    }),
    storage: () => storage,
    messages: () => [{ role: 'user', text: 'Name the page' }],
    onTurnEnd: (result, end) => log.push(`end ${result.status}${end.reverted ? ' reverted' : ''}`),
    onUndo: (result) => log.push(`undo ${result.reason} ${result.status}`),
  });
  return { session, storage, area };
}

const message = { messages: [{ role: 'user' as const, text: 'Name the page' }] };

describe('ChatStorage', () => {
  it('G6: reads a version 1 record as text only: text and answers kept, html-only messages dropped', () => {
    const area = memoryArea();
    area.setItem(
      'chat',
      JSON.stringify({
        version: 1,
        conversationId: 'c',
        messages: [
          { role: 'user', text: 'Name the page' },
          { role: 'page_builder', html: '<div>Done.</div>', custom: { canvasAiAnswer: 'Done.' } },
          { role: 'user', html: '<img src=x onerror=alert(1)>' },
          { role: 'page_builder', html: '<div class="canvas-ai-progress">…</div>' },
          { role: 'user', html: '<b>x</b>', text: 'both' },
        ],
      }),
    );

    assert.deepEqual(new ChatStorage('chat', area).load(), {
      version: 2,
      conversationId: 'c',
      messages: [
        { role: 'user', text: 'Name the page' },
        { role: 'page_builder', text: 'Done.', kind: 'answer' },
      ],
    });
  });

  it('G6: drops a version 2 record that carries html (it does not follow the schema)', () => {
    const area = memoryArea();
    area.setItem('chat', JSON.stringify({ version: 2, messages: [{ role: 'user', html: '<img src=x>' }] }));

    assert.equal(new ChatStorage('chat', area).load(), undefined);
    assert.equal(area.items.size, 0, 'and forgets it');
  });
});

describe('ChatSession', () => {
  it('runs one turn at a time: a second message while a turn runs is refused and sends nothing', async () => {
    const hold = gate();
    const server = scriptedServer([setsTitle, answers], { holds: [hold.promise] });
    const log: string[] = [];
    const { session } = sessionOf(server, reducerStore(log), log);

    const first = session.send(message);
    assert.ok(first, 'the first message starts a turn');
    assert.equal(session.busy, true);
    assert.equal(session.send(message), undefined, 'a second message while the first runs');
    hold.open();
    const result = await first;

    assert.equal(result.status, 'done');
    assert.equal(session.busy, false);
    assert.equal(session.running, undefined);
    assert.deepEqual(
      server.posts.map((post) => post.hop),
      [1, 2],
      'only the first turn was sent',
    );
    assert.ok(session.send(message), 'once it ended, the next message starts a turn');
  });

  it('undoes the last turn that changed the page, once, and keeps nothing to undo after it', async () => {
    const server = scriptedServer([setsTitle, answers]);
    const log: string[] = [];
    const store = reducerStore(log);
    const { session, storage } = sessionOf(server, store, log);

    const result = await session.send(message)!;
    assert.equal(result.status, 'done');
    assert.deepEqual(store.document.page, { title: 'Cookies' });
    assert.equal(session.canUndo(['remove_components']), true);
    assert.equal(storage.load()?.undoable?.changes.requestId, result.requestId, 'the turn to undo is kept');

    const undone = await session.undo();
    assert.equal(undone?.status, 'undone');
    assert.deepEqual(store.document.page, {});
    assert.deepEqual(log, ['apply hop set_page_value', 'end done', 'apply undo set_page_value', 'undo undo undone']);
    assert.equal(session.canUndo(['remove_components']), false);
    assert.equal(await session.undo(), undefined, 'nothing left to undo');
    assert.equal(storage.load()?.undoable, undefined, 'nor kept to undo after a reload');
  });

  it("reverts only after the turn's end was shown and told, and leaves the page as it was", async () => {
    const hold = gate();
    const server = scriptedServer([setsTitle, answers], { holds: [undefined, hold.promise] });
    const log: string[] = [];
    const store = reducerStore(log);
    const { session, storage } = sessionOf(server, store, log);
    const shown: string[] = [];
    const view: TurnView = {
      showEnd: async (result, end) => {
        // Shown asynchronously: the revert must wait for it, not only for the loop's result.
        await new Promise((resolve) => setImmediate(resolve));
        shown.push(`${result.status}${end.reverted ? ' reverted' : ''}`);
        log.push('shown');
      },
    };

    const sent = session.send(message, view)!;
    while (server.posts.length < 2) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(store.document.page, { title: 'Cookies' }, 'hop 1 applied, hop 2 held');
    const reverted = await session.revert();
    const result = await sent;

    assert.equal(result.status, 'stopped');
    assert.equal(reverted?.reason, 'revert');
    assert.equal(reverted?.status, 'undone');
    assert.deepEqual(store.document.page, {});
    assert.deepEqual(shown, ['stopped reverted']);
    assert.deepEqual(log, [
      'apply hop set_page_value',
      'shown',
      'end stopped reverted',
      'apply undo set_page_value',
      'undo revert undone',
    ]);
    assert.equal(session.canUndo(['remove_components']), false, 'a reverted turn is not offered for undo');
    assert.equal(server.deletes.length, 1, 'the turn was cancelled on the server');
    assert.equal(storage.load()?.running, undefined);
    hold.open();
  });

  it('keeps the running turn as it goes (hop, apply results, changes, what the view shows) and drops it at its end', async () => {
    const hold = gate();
    const server = scriptedServer([setsTitle, answers], { holds: [undefined, hold.promise] });
    const log: string[] = [];
    const { session, storage } = sessionOf(server, reducerStore(log), log);
    const view: TurnView = { shown: () => ({ progress: 'Setting the title.', notices: ['a notice'] }) };

    const sent = session.send({ ...message, agent: 'page_builder' }, view)!;
    assert.equal(storage.load()?.running?.hop, 0, 'kept as soon as hop 1 is sent');
    while (server.posts.length < 2) await new Promise((resolve) => setImmediate(resolve));
    const kept = storage.load()!;
    assert.equal(kept.conversationId, 'conversation-1');
    assert.deepEqual(kept.messages, [{ role: 'user', text: 'Name the page' }]);
    assert.equal(kept.running?.requestId, server.posts[0]!.request_id);
    assert.equal(kept.running?.agent, 'page_builder');
    assert.equal(kept.running?.message, 'Name the page');
    assert.equal(kept.running?.hop, 1);
    assert.deepEqual(kept.running?.applyResults, [{ call_id: 'c1', status: 'applied' }]);
    assert.deepEqual(
      kept.running?.changes.outputs.map((output) => output.call_id),
      ['c1'],
    );
    assert.equal(kept.running?.progress, 'Setting the title.');
    assert.deepEqual(kept.running?.notices, ['a notice']);

    hold.open();
    await sent;
    assert.equal(storage.load()?.running, undefined, 'an ended turn is not resumed');
    assert.ok(storage.load()?.undoable, 'but it can be undone after a reload');
  });

  it('resumes a kept turn after a reload from the next hop, once, and can undo the whole turn after it', async () => {
    const hold = gate();
    const before = scriptedServer([setsTitle, answers], { holds: [undefined, hold.promise] });
    const log: string[] = [];
    const store = reducerStore(log);
    const first = sessionOf(before, store, log);
    void first.session.send(message);
    while (before.posts.length < 2) await new Promise((resolve) => setImmediate(resolve));
    // The page reloads: the held hop 2 never comes back to it; a new session takes up what the tab kept.
    const after = scriptedServer([setsTitle, answers]);
    const second = sessionOf(after, store, log, first.area);
    const started: Array<{ resumed: boolean; message: string }> = [];
    const resumed: string[] = [];
    const reloaded = new ChatSession({
      settings: () => ({
        endpoint: ENDPOINT,
        fetch: after.fetch,
        getLayout: store.getLayout,
        applyOutputs: store.applyOutputs,
        outputTypes: ['remove_components'],
      }),
      storage: () => second.storage,
      onTurnStart: ({ resumed: wasResumed, message: text }) => started.push({ resumed: wasResumed, message: text }),
      onResume: (_requestId, outcome) => resumed.push(outcome),
    });
    const ends: TurnResult[] = [];

    await reloaded.restore(second.storage.load()!, { showEnd: (result) => void ends.push(result) });

    assert.deepEqual(resumed, ['resumed']);
    assert.deepEqual(started, [{ resumed: true, message: 'Name the page' }]);
    assert.deepEqual(
      after.posts.map((post) => [post.request_id, post.hop]),
      [[before.posts[0]!.request_id, 2]],
      'the same turn, from hop 2, with hop 1 apply results',
    );
    assert.deepEqual(after.posts[0]!.apply_results, [{ call_id: 'c1', status: 'applied' }]);
    assert.deepEqual(
      ends.map((result) => result.status),
      ['done'],
    );
    assert.equal(second.storage.load()?.running, undefined);
    assert.equal(reloaded.canUndo(['remove_components']), true, 'hop 1, applied before the reload, can be undone');
    assert.equal((await reloaded.undo())?.status, 'undone');
    assert.deepEqual(store.document.page, {});
    hold.open();
  });

  it('closes a kept turn the server no longer has: nothing sent, shown as gone, kept no more', async () => {
    const server = scriptedServer([setsTitle, answers], { status: 410 });
    const log: string[] = [];
    const { session, storage } = sessionOf(server, reducerStore(log), log);
    storage.update(() => ({
      version: 2,
      messages: [{ role: 'user', text: 'Name the page' }],
      running: {
        requestId: 'gone-turn',
        message: 'Name the page',
        hop: 1,
        changes: { requestId: 'gone-turn', outputs: [], inverse: [], unrecorded: [] },
        progress: 'Setting the title.',
        notices: [],
      },
    }));
    const ends: string[] = [];

    await session.restore(storage.load()!, {
      showEnd: (result, end) => void ends.push(`${result.status}${end.gone ? ' gone' : ''}`),
    });

    assert.deepEqual(ends, ['stopped gone']);
    assert.deepEqual(server.posts, []);
    assert.deepEqual(log, ['end stopped']);
    assert.equal(storage.load()?.running, undefined);
    assert.equal(session.busy, false);
  });

  it('takes nothing up when closed while it asks where the kept turn stands, and takes it up once when restored again (React StrictMode)', async () => {
    const server = scriptedServer([setsTitle, answers]);
    const { held, asked, answer } = holdingStanding(server);
    const log: string[] = [];
    const { session, storage } = sessionOf(held, reducerStore(log), log);
    const kept = {
      requestId: 'kept-turn',
      message: 'Name the page',
      hop: 1,
      changes: { requestId: 'kept-turn', outputs: [], inverse: [], unrecorded: [] },
      progress: 'Setting the title.',
      notices: [],
    };
    storage.update(() => ({ version: 2, messages: [{ role: 'user', text: 'Name the page' }], running: kept }));
    const ends: string[] = [];

    const restoring = session.restore(storage.load()!, { showEnd: (result) => void ends.push(result.status) });
    await asked.promise;
    session.close();
    answer.open();
    await restoring;

    assert.equal(ends.length, 0, 'not shown as ended: the chat mounted in its place takes it up');
    assert.equal(server.posts.length, 0, 'nothing sent');
    assert.deepEqual(storage.load()?.running, kept, 'kept as it was for the next chat');
    assert.equal(session.busy, false);

    // The effect runs again on the same session: now it takes the turn up, from the next hop, once.
    await session.restore(storage.load()!, { showEnd: (result) => void ends.push(result.status) });
    assert.deepEqual(
      server.posts.map((post) => [post.request_id, post.hop]),
      [['kept-turn', 2]],
    );
    assert.deepEqual(ends, ['done']);
    assert.equal(storage.load()?.running, undefined);
  });

  it('refuses a message while it waits for another chat that takes the same kept turn up', async () => {
    const server = scriptedServer([setsTitle, answers]);
    const { held, asked, answer } = holdingStanding(server);
    const log: string[] = [];
    const store = reducerStore(log);
    const first = sessionOf(held, store, log);
    const second = sessionOf(held, store, log, first.area);
    first.storage.update(() => ({
      version: 2,
      messages: [{ role: 'user', text: 'Name the page' }],
      running: {
        requestId: 'shared-turn',
        message: 'Name the page',
        hop: 1,
        changes: { requestId: 'shared-turn', outputs: [], inverse: [], unrecorded: [] },
        progress: '',
        notices: [],
      },
    }));
    const kept = first.storage.load()!;
    const firstDone = first.session.restore(kept);
    await asked.promise;
    const secondDone = second.session.restore(kept);
    assert.equal(second.session.busy, true, 'it waits for the turn');
    assert.equal(second.session.send(message), undefined, 'a second turn is not started meanwhile');
    second.session.close();
    assert.equal(second.session.busy, false);
    answer.open();
    await Promise.all([firstDone, secondDone]);
    assert.deepEqual(
      server.posts.map((post) => [post.request_id, post.hop]),
      [['shared-turn', 2]],
      'driven once, by the first',
    );
  });
});
