// <canvas-ai-chat> beside a host whose undo history keeps snapshots (Puck's history, Redux-undo, Zustand's temporal
// store): one turn is one entry, the host's own Undo tells the chat (no stale Undo), the chat's Undo restores the
// entry (undoInHistory), and an undo that was partly refused names components by label and place, never by uuid.
import { TOOL_OUTPUT_TYPES, applyOutputs, type CanvasDocument, type ComponentNode } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import { collect, mountChat, pickAgent, sendAndWait, unmountAll } from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

const undoButton = (element: CanvasAiChat) =>
  element.shadowRoot!.querySelector<HTMLButtonElement>('[part~="undo-button"]');
const notes = (element: CanvasAiChat) => [
  ...element.chat!.shadowRoot!.querySelectorAll<HTMLElement>('.canvas-ai-note'),
];
const LABELS: Record<string, string> = {
  'sdc.demo.hero': 'Hero',
  'sdc.demo.section': 'Section',
  'sdc.demo.footer': 'Footer',
};

/** The reducer host with a snapshot history: each turn one entry (the document before it), pushed at its end. */
async function setup(options: { hook?: boolean } = {}) {
  const fixtures = await loadFixtures();
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  const start = { layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} };
  const host = reducerHost(structuredClone(start));
  const past: Array<{ document: CanvasDocument; requestId?: string }> = [];
  const future: Array<{ document: CanvasDocument; requestId?: string }> = [];
  let before: CanvasDocument | undefined;
  const history = {
    past,
    future,
    undo: () => {
      const entry = past.pop()!;
      future.push({ document: host.document, requestId: entry.requestId });
      host.document = entry.document;
      return entry.requestId;
    },
    redo: () => {
      const entry = future.pop()!;
      past.push({ document: host.document, requestId: entry.requestId });
      host.document = entry.document;
      return entry.requestId;
    },
  };
  const element = await mountChat({
    agentsEndpoint: '/api/agents',
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
    outputTypes: [...TOOL_OUTPUT_TYPES],
    strings: { componentLabel: (id) => LABELS[id] ?? id },
    ...(options.hook
      ? {
          undoInHistory: ({ requestId }) => {
            if (past.at(-1)?.requestId !== requestId) return false;
            history.undo();
            return true;
          },
        }
      : {}),
  });
  element.addEventListener('canvas-ai-turn-start', () => {
    before = host.document;
  });
  element.addEventListener('canvas-ai-turn-end', ({ detail }) => {
    if (before && before !== host.document) past.push({ document: before, requestId: detail.requestId });
  });
  await waitUntil(() => element.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
  await pickAgent(element, 'page_builder');
  return { record, host, start, element, history };
}

/** Every uuid of a layout. */
function uuidsOf(nodes: readonly ComponentNode[]): string[] {
  return nodes.flatMap((node) => [node.uuid, ...Object.values(node.slots ?? {}).flatMap(uuidsOf)]);
}

describe('<canvas-ai-chat> beside a snapshot history', () => {
  afterEach(unmountAll);

  it("stops offering Undo when the host's own undo took the turn back, notes it, and tells the model next time", async () => {
    const shop = await scenario('cookie-shop');
    const { record, host, start, element, history } = await setup();
    const end = await sendAndWait(element, shop.user_message);
    await element.updateComplete;
    expect(undoButton(element), 'Undo is offered after the turn').not.to.equal(null);
    expect(history.past).to.have.length(1);

    // The editor's Ctrl+Z restores its snapshot, and its history tells the chat.
    const requestId = history.undo();
    expect(requestId).to.equal(end.detail.requestId);
    expect(host.document).to.deep.equal(start);
    expect(element.historyUndid(requestId!)).to.equal(true);
    await element.updateComplete;

    expect(undoButton(element), 'no stale Undo').to.equal(null);
    expect(element.canUndo).to.equal(false);
    const undone = collect(element, 'canvas-ai-undo');
    expect(await element.undo()).to.equal(undefined);
    expect(undone).to.have.length(0);
    expect(host.undos, 'the chat applied nothing').to.have.length(0);
    expect(notes(element).map((note) => note.textContent)).to.deep.equal([
      "↶ You undid the agent's turn in the editor.",
    ]);

    // Its redo puts the turn back: Undo is offered again.
    expect(element.historyRedid(history.redo()!)).to.equal(true);
    await element.updateComplete;
    expect(undoButton(element)).not.to.equal(null);
    expect(notes(element).at(-1)!.textContent).to.equal("↷ You redid the agent's turn in the editor.");

    await sendAndWait(element, 'What can you do?');
    const hop1 = record.posts().at(-1)!.body;
    expect(hop1.messages!.slice(-3)).to.deep.equal([
      {
        role: 'user',
        text: "(I undid your last turn with the editor's own undo: what it changed is no longer on the page.)",
      },
      {
        role: 'user',
        text: "(I redid your last turn with the editor's own redo: what it changed is back on the page.)",
      },
      { role: 'user', text: 'What can you do?' },
    ]);
  });

  it('restores the host entry for its own Undo through undoInHistory, applying no inverse output', async () => {
    const shop = await scenario('cookie-shop');
    const { host, start, element, history } = await setup({ hook: true });
    await sendAndWait(element, shop.user_message);
    await element.updateComplete;
    const undone = collect(element, 'canvas-ai-undo');

    undoButton(element)!.click();
    await waitUntil(() => undone.length === 1, 'no undo event');

    expect(undone[0]!.detail).to.include({ reason: 'undo', status: 'undone', via: 'history' });
    expect(host.document).to.deep.equal(start);
    expect(host.undos, 'no inverse output went through applyOutputs').to.have.length(0);
    expect(history.future, 'the host can redo it').to.have.length(1);
    await element.updateComplete;
    expect(undoButton(element)).to.equal(null);
    expect(notes(element).map((note) => note.textContent)).to.deep.equal([
      "↶ Undone: the page is back as it was before the agent's turn.",
    ]);
  });

  it('names what a partly refused undo left by label and place on the page, with no uuid in what it shows', async () => {
    const shop = await scenario('cookie-shop');
    const { host, element } = await setup();
    await sendAndWait(element, shop.user_message);
    const rows = host.document.layout.regions.content!.components;
    const uuids = uuidsOf(rows);
    const [hero, section] = rows;
    const card = section!.slots!.content!.flatMap((node) => Object.values(node.slots ?? {}).flat())[0]!;
    const footer = rows.at(-1)!;
    // The person edits the hero and a card of the section, and deletes the footer, after the turn.
    host.document = applyOutputs(host.document, [
      { type: 'edit_components', call_id: 'p1', component_updates: { [hero!.uuid]: { heading: 'Mine' } } },
      { type: 'edit_components', call_id: 'p2', component_updates: { [card.uuid]: { title: 'Our oat cookie' } } },
      { type: 'remove_components', call_id: 'p3', uuids: [footer.uuid] },
    ]);

    const result = await element.undo();

    expect(result?.status).to.equal('partial');
    const [note] = notes(element);
    expect(note!.querySelector('.canvas-ai-note-text')!.textContent).to.equal(
      '↶ Partly undone: what is listed below stays on the page.',
    );
    const shown = [...note!.querySelectorAll('.canvas-ai-notice')].map((item) => item.textContent);
    expect(shown).to.deep.equal([
      'Could not undo adding the Footer that was row 5 of content: it is no longer on the page.',
      'Did not undo adding the Section, row 2 of content: you changed the title (“Our oat cookie”) since.',
      'Did not undo adding the Hero, row 1 of content: you changed the heading (“Mine”) since.',
    ]);
    for (const text of [note!.textContent!, ...shown])
      for (const uuid of uuids) expect(text, `no uuid in "${text}"`).not.to.include(uuid);
  });
});
