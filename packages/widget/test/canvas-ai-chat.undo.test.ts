// Undo and Stop and revert in <canvas-ai-chat> (spec §17): the controls, the page through the host's applyOutputs,
// the notes in the chat, the events, and what the model is told next time.
import { applyOutputs, TOOL_OUTPUT_TYPES } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import { bubbles, collect, mountChat, pickAgent, sendAndWait, unmountAll } from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { holdHop } from './support/hold.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

const undoButton = (element: CanvasAiChat) =>
  element.shadowRoot!.querySelector<HTMLButtonElement>('[part~="undo-button"]');
const revertButton = (element: CanvasAiChat) =>
  element.shadowRoot!.querySelector<HTMLButtonElement>('[part~="revert-button"]');
const notes = (element: CanvasAiChat) => [
  ...element.chat!.shadowRoot!.querySelectorAll<HTMLElement>('.canvas-ai-note'),
];

async function setup(options: { outputTypes?: readonly string[]; hold?: number } = {}) {
  const fixtures = await loadFixtures();
  const record = recorder();
  const held = options.hold === undefined ? undefined : holdHop(options.hold);
  await useHandlers(record.handler, ...(held ? [held.handler] : []), ...createMockHandlers(fixtures));
  const start = { layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} };
  const host = reducerHost(structuredClone(start));
  const element = await mountChat({
    agentsEndpoint: '/api/agents',
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
    ...(options.outputTypes ? { outputTypes: options.outputTypes } : {}),
  });
  await waitUntil(() => element.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
  await pickAgent(element, 'page_builder');
  return { fixtures, record, held, host, start, element };
}

describe('<canvas-ai-chat> undo', () => {
  afterEach(unmountAll);

  it('offers Undo after a turn that changed the page, and takes the whole turn back through applyOutputs', async () => {
    const shop = await scenario('cookie-shop');
    const { record, host, start, element } = await setup({ outputTypes: [...TOOL_OUTPUT_TYPES] });
    expect(undoButton(element)).to.equal(null);

    const end = await sendAndWait(element, shop.user_message);
    expect(end.detail.status).to.equal('done');
    // The turn-end event carries the turn as one undo step for a host with its own history.
    expect(end.detail.outputs).to.have.length(7);
    expect(end.detail.inverse.map((output) => output.call_id)).to.deep.equal([
      'call_7',
      'call_6',
      'call_5',
      'call_4',
      'call_3',
      'call_2',
      'call_1',
    ]);
    await element.updateComplete;
    const undo = undoButton(element);
    expect(undo, 'Undo is offered').not.to.equal(null);
    expect(undo!.tagName).to.equal('BUTTON');
    expect(undo!.type).to.equal('button');
    expect(undo!.getAttribute('aria-label')).to.equal("Undo the agent's last turn");
    expect(element.canUndo).to.equal(true);

    const undone = collect(element, 'canvas-ai-undo');
    undo!.focus();
    undo!.click();
    await waitUntil(() => undone.length === 1, 'no undo event');
    expect(undone[0]!.detail).to.include({ reason: 'undo', status: 'undone' });
    expect(host.document).to.deep.equal(start);
    await element.updateComplete;
    expect(undoButton(element), 'nothing left to undo').to.equal(null);
    expect(notes(element).map((note) => note.textContent)).to.deep.equal([
      "↶ Undone: the page is back as it was before the agent's turn.",
    ]);

    // The next turn's transcript tells the model, in the person's voice, right after the undone turn's answer.
    await sendAndWait(element, 'What can you do?');
    const hop1 = record.posts().at(-1)!.body;
    expect(hop1.messages!.slice(-3)).to.deep.equal([
      { role: 'assistant', text: shop.hops.at(-1)!.message! },
      { role: 'user', text: '(I undid your last turn: the page is back as it was before it.)' },
      { role: 'user', text: 'What can you do?' },
    ]);
  });

  it('offers no Undo when the host does not apply the removal that undoes a placement; the events still carry it', async () => {
    const hero = await scenario('place-hero-two-hop');
    const { element } = await setup();
    const end = await sendAndWait(element, hero.user_message);
    expect(end.detail.status).to.equal('done');
    expect(end.detail.inverse.map((output) => output.type)).to.deep.equal(['remove_components']);
    await element.updateComplete;
    expect(undoButton(element)).to.equal(null);
    expect(element.canUndo).to.equal(false);
    expect(await element.undo()).to.equal(undefined);
  });

  it("keeps the person's later edit and says so in the chat", async () => {
    const shop = await scenario('cookie-shop');
    const { host, element } = await setup({ outputTypes: [...TOOL_OUTPUT_TYPES] });
    await sendAndWait(element, shop.user_message);
    const hero = host.document.layout.regions.content!.components[0]!;
    host.document = applyOutputs(host.document, [
      { type: 'edit_components', call_id: 'person', component_updates: { [hero.uuid]: { heading: 'Mine' } } },
    ]);
    const result = await element.undo();
    expect(result?.status).to.equal('partial');
    expect(host.document.layout.regions.content!.components.map((node) => node.props.heading)).to.deep.equal(['Mine']);
    const [note] = notes(element);
    expect(note!.querySelector('.canvas-ai-note-text')!.textContent).to.equal(
      '↶ Partly undone: what is listed below stays on the page.',
    );
    expect([...note!.querySelectorAll('.canvas-ai-notice')].map((item) => item.textContent)).to.deep.equal([
      'Did not undo adding the hero, row 1 of content: you changed the heading (“Mine”) since.',
    ]);
  });

  it('stop and revert: stops the turn mid-way and leaves the page as it was before it', async () => {
    const shop = await scenario('cookie-shop');
    const { record, held, host, start, element } = await setup({ outputTypes: [...TOOL_OUTPUT_TYPES], hold: 4 });
    const ended = sendAndWait(element, shop.user_message);
    await held!.arrived;
    await element.updateComplete;
    expect(host.document.layout.regions.content!.components).to.have.length(2);
    const revert = revertButton(element);
    expect(revert, 'Stop and revert is offered while the turn runs').not.to.equal(null);
    expect(revert!.getAttribute('aria-label')).to.equal('Stop the agent and undo what it changed');
    const undone = collect(element, 'canvas-ai-undo');
    const order: string[] = [];
    for (const type of ['canvas-ai-turn-end', 'canvas-ai-undo'] as const)
      element.addEventListener(type, () => order.push(type));
    revert!.click();
    held!.release();

    expect((await ended).detail.status).to.equal('stopped');
    await waitUntil(() => undone.length === 1, 'no undo event');
    expect(undone[0]!.detail).to.include({ reason: 'revert', status: 'undone' });
    expect(order, 'the turn ends (a host records it) before the revert takes it back').to.deep.equal([
      'canvas-ai-turn-end',
      'canvas-ai-undo',
    ]);
    expect(host.document).to.deep.equal(start);
    await waitUntil(() => record.deletes().length === 1, 'the turn was not cancelled');
    expect(record.posts().map((post) => post.body.hop)).to.deep.equal([1, 2, 3, 4]);
    expect(notes(element).map((note) => note.textContent)).to.deep.equal([
      "↶ Stopped and reverted: the page is back as it was before the agent's turn.",
    ]);
    await element.updateComplete;
    expect(undoButton(element), 'a reverted turn is not offered for undo again').to.equal(null);
    expect(bubbles(element).length).to.be.greaterThan(0);
  });

  it('hides both controls with no-undo (a host keeping its own undo history)', async () => {
    const shop = await scenario('cookie-shop');
    const { held, element } = await setup({ outputTypes: [...TOOL_OUTPUT_TYPES], hold: 3 });
    element.noUndo = true;
    const ended = sendAndWait(element, shop.user_message);
    await held!.arrived;
    await element.updateComplete;
    expect(revertButton(element)).to.equal(null);
    held!.release();
    await ended;
    await element.updateComplete;
    expect(undoButton(element)).to.equal(null);
  });
});
