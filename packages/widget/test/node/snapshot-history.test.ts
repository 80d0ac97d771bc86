// A host whose undo history keeps snapshots (Puck's history, Redux-undo, Zustand's temporal store) beside a
// ChatSession: one turn is one history entry, the host's own Undo and Redo tell the chat, and the chat's Undo restores
// the entry through `undoInHistory`. A scripted fetch, the protocol's reducer as the store.
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
import { undoNotices } from '../../src/canvas-ai-chat/notices.js';
import { chatStrings } from '../../src/canvas-ai-chat/strings.js';
import { ChatSession, ChatStorage, memoryArea, type HistoryUndo, undoNote } from '../../src/loop.js';

const AGENT = { id: 'page_builder', label: 'Page builder' };
const ENDPOINT = 'http://127.0.0.1:1/api/hop';
const HERO = 'hero-7f3a9c21';
const CARD = 'card-0b44e2d9';
const PLACE: ToolOutput = {
  type: 'place_components',
  call_id: 'c1',
  operations: [
    {
      target: 'content',
      placement: 'inside',
      components: [
        { uuid: HERO, component: 'sdc.demo.hero', props: { heading: 'Cookies' }, slots: {} },
        {
          uuid: 'grid-1',
          component: 'sdc.demo.grid',
          props: {},
          slots: { cards: [{ uuid: CARD, component: 'sdc.demo.card', props: { title: 'Oat' }, slots: {} }] },
        },
      ],
    },
  ],
};
const TITLE: ToolOutput = { type: 'set_page_value', call_id: 'c2', field: 'title', value: 'Cookies' };
const EDIT: ToolOutput = {
  type: 'edit_components',
  call_id: 'c3',
  component_updates: { [HERO]: { heading: 'Fresh cookies' }, [CARD]: { title: 'Oat and raisin' } },
  replaces: { [HERO]: { heading: 'Cookies' }, [CARD]: { title: 'Oat' } },
};

/** A server whose turns apply `outputs` on hop 1 and answer on hop 2 (after `hold`, when given). */
function scriptedServer(outputs: ToolOutput[], hold?: Promise<void>) {
  const posts: HopRequest[] = [];
  const fetch = async (_input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    if (init.method === 'DELETE') return Response.json({ status: true, request_id: 'x', cancelled: true });
    const request = JSON.parse(String(init.body)) as HopRequest;
    posts.push(request);
    if (hold && request.hop === 2) {
      // A stop aborts the request while it is held, as a real server's connection would be.
      await Promise.race([
        hold,
        new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal!.reason))),
      ]);
    }
    const turn = { requestId: request.request_id, hop: request.hop, agent: AGENT };
    const response: HopResponse =
      request.hop === 1
        ? continuingResponse({ ...turn, outputs }, ['Building.'])
        : answerResponse({ ...turn, outputs: [] }, ['Building.', 'Done.']);
    return Response.json(response);
  };
  return { fetch: fetch as typeof globalThis.fetch, posts };
}

/**
 * A snapshot store: `present`, and `past` / `future` entries, each the document before or after one step. A turn is
 * one entry: its outputs change `present` without recording, and its end pushes the document from before it.
 */
function snapshotStore() {
  const empty: CanvasDocument = { layout: { regions: { content: { components: [] } } }, page: {} };
  const store = {
    present: empty,
    past: [] as Array<{ document: CanvasDocument; requestId?: string }>,
    future: [] as Array<{ document: CanvasDocument; requestId?: string }>,
    turnStart: undefined as { requestId: string; before: CanvasDocument } | undefined,
    /** applyOutputs calls the chat made for an undo. */
    undoApplies: 0,
    /** Told of every undo and redo that crossed a turn, as the recipe's history tells the chat. */
    crossed: undefined as ((requestId: string, change: 'undone' | 'redone') => void) | undefined,
    getLayout: () => store.present,
    applyOutputs: (outputs: ToolOutput[], _response: unknown, info: { kind: string }) => {
      if (info.kind === 'undo') store.undoApplies += 1;
      const { document, results } = applyOutputsWithResults(store.present, outputs);
      store.present = document;
      return results;
    },
    /** The person's own edit: one entry of its own. */
    edit: (outputs: ToolOutput[]) => {
      store.past.push({ document: store.present });
      store.future = [];
      store.present = applyOutputsWithResults(store.present, outputs).document;
    },
    turnStarted: (requestId: string) => {
      store.turnStart = { requestId, before: store.present };
    },
    turnEnded: () => {
      const start = store.turnStart;
      store.turnStart = undefined;
      if (!start || start.before === store.present) return;
      store.past.push({ document: start.before, requestId: start.requestId });
      store.future = [];
    },
    /** Undo: back one entry; returns the turn it took back, if it was a turn. */
    undo: () => {
      const entry = store.past.pop();
      if (!entry) return undefined;
      store.future.push({ document: store.present, requestId: entry.requestId });
      store.present = entry.document;
      if (entry.requestId) store.crossed?.(entry.requestId, 'undone');
      return entry.requestId;
    },
    redo: () => {
      const entry = store.future.pop();
      if (!entry) return undefined;
      store.past.push({ document: store.present, requestId: entry.requestId });
      store.present = entry.document;
      if (entry.requestId) store.crossed?.(entry.requestId, 'redone');
      return entry.requestId;
    },
    /** The recipe's `undoInHistory`: restore the turn's entry when it is the latest, else let the chat apply inverses. */
    undoInHistory: ({ requestId }: HistoryUndo) => {
      if (store.past.at(-1)?.requestId !== requestId) return false;
      store.undo();
      return true;
    },
  };
  return store;
}

const message = { messages: [{ role: 'user' as const, text: 'Build a cookie shop' }] };

function sessionOf(
  store: ReturnType<typeof snapshotStore>,
  options: { hook?: boolean; outputs?: ToolOutput[]; hold?: Promise<void> } = {},
) {
  const server = scriptedServer(options.outputs ?? [PLACE, TITLE], options.hold);
  const storage = new ChatStorage('chat', memoryArea());
  const log: string[] = [];
  const session = new ChatSession({
    settings: () => ({
      endpoint: ENDPOINT,
      fetch: server.fetch,
      getLayout: store.getLayout,
      applyOutputs: store.applyOutputs,
      outputTypes: ['remove_components', 'move_components'],
      retryDelays: [],
    }),
    storage: () => storage,
    onTurnStart: ({ turn }) => store.turnStarted(turn.requestId),
    onTurnEnd: () => store.turnEnded(),
    onUndo: (result) => log.push(`undo ${result.reason} ${result.status} via ${result.via}`),
    onHistory: ({ change }) => log.push(`history ${change}`),
    ...(options.hook ? { undoInHistory: store.undoInHistory } : {}),
  });
  return { session, storage, log, server };
}

const TYPES = ['remove_components', 'move_components'];

describe('ChatSession with a snapshot history', () => {
  it("stops offering Undo when the host's own undo took the turn back, and its Undo then does nothing and says nothing", async () => {
    const store = snapshotStore();
    const { session, storage, log } = sessionOf(store);
    const result = await session.send(message)!;
    assert.equal(result.status, 'done');
    assert.equal(store.past.length, 1, 'the turn is one history entry');
    assert.equal(session.canUndo(TYPES), true);

    const undid = store.undo();
    assert.equal(undid, result.requestId);
    assert.equal(session.historyUndid(undid!), true);

    assert.equal(session.canUndo(TYPES), false, 'no stale Undo');
    assert.equal(await session.undo(), undefined, 'the chat undoes nothing');
    assert.equal(store.undoApplies, 0, 'and applies nothing');
    assert.deepEqual(log, ['history undone'], 'no "Undone" note: only that the host undid it');
    assert.equal(storage.load()?.undoable, undefined, 'nor is it kept to undo after a reload');
    assert.equal(session.historyUndid(undid!), false, 'told twice: nothing more');
  });

  it("offers Undo again when the host's redo applied the turn again, and tells nothing for a turn it does not hold", async () => {
    const store = snapshotStore();
    const { session, log } = sessionOf(store);
    const result = await session.send(message)!;
    session.historyUndid(store.undo()!);

    assert.equal(session.historyRedid('another-turn'), false);
    assert.equal(session.historyRedid(store.redo()!), true);
    assert.equal(session.canUndo(TYPES), true);
    assert.deepEqual(log, ['history undone', 'history redone']);
    assert.equal(session.historyRedid(result.requestId), false, 'not taken back: nothing to redo');

    // The chat's Undo (no hook here) takes the re-applied turn back with its inverse outputs.
    const undone = await session.undo();
    assert.equal(undone?.status, 'undone');
    assert.equal(undone?.via, 'outputs');
    assert.deepEqual(store.present.layout.regions.content!.components, []);
  });

  it('takes the turn back through undoInHistory: the host restores its entry and the chat applies nothing', async () => {
    const store = snapshotStore();
    const { session, log } = sessionOf(store, { hook: true });
    const told: boolean[] = [];
    // The history tells the chat of every undo, the one the chat asked for included (the recipe does).
    store.crossed = (requestId, change) =>
      told.push(change === 'undone' ? session.historyUndid(requestId) : session.historyRedid(requestId));
    const before = store.present;
    await session.send(message)!;

    const undone = await session.undo();
    assert.deepEqual(told, [false], 'told while the chat applies its own undo: ignored, the chat notes it once');

    assert.deepEqual(undone && { status: undone.status, via: undone.via }, { status: 'undone', via: 'history' });
    assert.equal(store.present, before, 'the snapshot from before the turn is back');
    assert.equal(store.undoApplies, 0, 'no inverse output was applied');
    assert.equal(store.future.length, 1, 'the host can redo it');
    assert.equal(undoNote(undone!), '(I undid your last turn: the page is back as it was before it.)');
    assert.deepEqual(log, ['undo undo undone via history']);
    assert.equal(session.canUndo(TYPES), false);
    assert.equal(session.historyUndid(undone!.requestId), false, 'told again later: already taken back');
    store.redo();
    assert.deepEqual(told, [false, true], 'its redo makes the turn undoable again');
    assert.equal(session.canUndo(TYPES), true);
    assert.deepEqual(log, ['undo undo undone via history', 'history redone']);
  });

  it("falls back to the inverse outputs when the person edited since (the turn's entry is not the latest), keeping their edit", async () => {
    const store = snapshotStore();
    const { session } = sessionOf(store, { hook: true });
    await session.send(message)!;
    store.edit([{ type: 'edit_components', call_id: 'person', component_updates: { [HERO]: { heading: 'Mine' } } }]);

    const undone = await session.undo();

    assert.equal(undone?.via, 'outputs');
    assert.equal(undone?.status, 'partial');
    assert.equal(store.undoApplies, 1);
    const [hero, grid] = store.present.layout.regions.content!.components;
    assert.equal(hero?.props.heading, 'Mine', 'their hero stays');
    assert.equal(grid?.uuid, 'grid-1', 'placed with it by one output, whose undo it refused');
    assert.deepEqual(store.present.page, {}, 'the title went');
  });

  it('reverts through undoInHistory after the turn ended and became its entry', async () => {
    const store = snapshotStore();
    let release!: () => void;
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { session, log, server } = sessionOf(store, { hook: true, hold });
    const before = store.present;
    const sent = session.send(message)!;
    while (server.posts.length < 2) await new Promise((resolve) => setImmediate(resolve));
    const reverted = await session.revert();
    await sent;
    release();

    assert.equal(reverted?.via, 'history');
    assert.equal(store.present, before);
    assert.equal(store.undoApplies, 0);
    assert.deepEqual(log, ['undo revert undone via history']);
  });
});

describe('what an undo that was partly refused says', () => {
  it('names each component by label and place on the page, never by uuid, and says it was partly undone', async () => {
    const store = snapshotStore();
    const { session } = sessionOf(store, { outputs: [PLACE, EDIT, TITLE] });
    await session.send(message)!;
    // The person retyped the card's title, then removed the hero: its edit and its placement cannot go back.
    store.edit([{ type: 'edit_components', call_id: 'p1', component_updates: { [CARD]: { title: 'Mine' } } }]);
    store.edit([{ type: 'remove_components', call_id: 'p2', uuids: [HERO] }]);

    const undone = (await session.undo())!;

    assert.equal(undone.status, 'partial');
    const { summary, notices } = undoNotices(
      undone,
      chatStrings({
        componentLabel: (id) =>
          ({ 'sdc.demo.hero': 'Hero', 'sdc.demo.grid': 'Card grid', 'sdc.demo.card': 'Card' })[id] ?? id,
      }),
    );
    assert.equal(summary, 'Partly undone: what is listed below stays on the page.');
    assert.deepEqual(notices, [
      'Did not undo the edit of the Hero that was row 1 of content, the Card in the Card grid, row 1 of content: you changed the title (“Mine”) since.',
      'Did not undo adding the Card grid, row 1 of content, the Hero that was row 1 of content: you changed the title (“Mine”) since.',
    ]);
    for (const text of [summary, ...notices]) assert.ok(!text.includes(HERO) && !text.includes(CARD), text);
    // The model gets the names too, with the uuids it knows them by.
    const note = undoNote(undone);
    assert.match(note, /^\(I undid your last turn, except 2 changes that could not be taken back: /);
    assert.ok(note.includes(`sdc.demo.hero "${HERO}" (no longer on the page, was row 1 of content)`), note);
  });

  it('says it could not undo when every change was refused (the host had taken the turn back and did not say)', async () => {
    const store = snapshotStore();
    const { session } = sessionOf(store);
    await session.send(message)!;
    store.undo(); // the host's own undo, the chat not told

    const undone = (await session.undo())!;

    assert.equal(undone.status, 'failed');
    const { summary, notices } = undoNotices(undone, chatStrings(undefined));
    assert.equal(summary, "Could not undo the agent's turn: nothing of it could be taken back.");
    assert.deepEqual(notices, [
      'Did not undo the page title: you changed the page title (cleared) since.',
      'Could not undo adding the grid that was row 2 of content, the hero that was row 1 of content: it is no longer on the page.',
    ]);
    assert.match(
      undoNote(undone),
      /^\(I tried to undo your last turn, but could not: none of its changes could be taken back: /,
    );
  });
});
