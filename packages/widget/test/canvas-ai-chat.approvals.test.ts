// Changes the agent proposes for approval (spec §20.5) in <canvas-ai-chat>: the card names each change by its
// components (no uuid), ticked, read out, the first box focused; Reject sends none and the page keeps the component,
// Approve applies the approved one; Stop takes the card away; a reload shows it again; against a server of revision 1.7
// nothing changes.
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import { ChatStorage } from '../src/loop.js';
import { bubbles, collect, mountChat, pickAgent, sendAndWait, unmountAll } from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { continuing, final, hopServer } from './support/hop-server.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

const card = (element: CanvasAiChat) => element.shadowRoot!.querySelector<HTMLFormElement>('[part="approval"]');
const boxes = (element: CanvasAiChat) => [
  ...element.shadowRoot!.querySelectorAll<HTMLInputElement>('[part="approval-change"] input'),
];
const announced = (element: CanvasAiChat) =>
  [...element.shadowRoot!.querySelectorAll('[part="announcer"] p')].map((line) => line.textContent);
const rows = (host: ReturnType<typeof reducerHost>) =>
  host.document.layout.regions.content!.components.map((node) => node.uuid);

/**
 * The careful builder over the reference server's mock, on the cookie-shop page with the testimonials selected;
 * `storageKey` for a reload.
 */
async function approvalChat(storageKey?: string) {
  const fixtures = await loadFixtures();
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/cookie-shop.yaml']!), page: {} });
  const options = {
    agentsEndpoint: '/api/agents',
    outputTypes: ['place_components', 'edit_components', 'set_page_value', 'remove_components', 'move_components'],
    getLayout: () => ({ ...host.getLayout(), selectedComponent: 'testimonials-1' }),
    applyOutputs: host.applyOutputs,
    ...(storageKey ? { storageKey } : {}),
  };
  const element = await mountChat(options);
  await waitUntil(() => element.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
  await pickAgent(element, 'careful_builder');
  return { record, host, element, options };
}

describe('<canvas-ai-chat> changes proposed for approval', () => {
  afterEach(unmountAll);

  it('names the change by its component, reads it out, focuses it; Reject sends none and the page keeps it', async () => {
    const script = await scenario('approval-removal-rejected');
    const { record, host, element } = await approvalChat();
    const ended = new Promise<HTMLElementEventMap['canvas-ai-turn-end']>((resolve) =>
      element.addEventListener('canvas-ai-turn-end', resolve, { once: true }),
    );
    element.sendMessage(script.user_message);
    await waitUntil(() => card(element), 'the proposal was not shown', { timeout: 20_000 });
    expect(record.posts()[0]!.body.capabilities?.waits).to.include('approval');
    expect(boxes(element).map((box) => [box.checked, box.closest('label')!.textContent!.trim()])).to.deep.equal([
      [true, 'Remove: Section “Why people love us” (with 3 inside)'],
    ]);
    expect(card(element)!.textContent).to.not.include('testimonials-1');
    expect(announced(element)).to.include('The agent asks before it makes a change: approve or reject.');
    await waitUntil(() => element.shadowRoot!.activeElement === boxes(element)[0], 'the change has no focus');
    card(element)!.querySelector<HTMLButtonElement>('[part="approval-reject"]')!.click();
    expect((await ended).detail.status).to.equal('done');
    expect(card(element)).to.equal(null);
    const answered = record.posts().find((post) => post.body.answer !== undefined)!;
    expect(answered.body.answer).to.deep.equal({ kind: 'approval', call_id: 'call_remove', approved: [] });
    expect(rows(host)).to.include('testimonials-1');
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include(script.hops.at(-1)!.message);
  });

  it('applies what the person approved, with the hop that brings the approval', async () => {
    const script = await scenario('approval-removal-approved');
    const { record, host, element } = await approvalChat();
    const ended = collect(element, 'canvas-ai-turn-end');
    element.sendMessage(script.user_message);
    await waitUntil(() => card(element), 'the proposal was not shown', { timeout: 20_000 });
    expect(rows(host), 'nothing removed while it waits').to.include('testimonials-1');
    card(element)!.requestSubmit();
    await waitUntil(() => ended.length === 1, 'the turn did not end', { timeout: 20_000 });
    expect(ended[0]!.detail.status).to.equal('done');
    const answered = record.posts().find((post) => post.body.answer !== undefined)!;
    expect(answered.body.answer).to.deep.equal({ kind: 'approval', call_id: 'call_remove', approved: ['call_remove'] });
    expect(rows(host)).to.not.include('testimonials-1');
  });

  it('takes the card away when the turn is stopped while it waits, and cancels the turn', async () => {
    const script = await scenario('approval-removal-rejected');
    const { record, element } = await approvalChat();
    const ends = collect(element, 'canvas-ai-turn-end');
    element.sendMessage(script.user_message);
    await waitUntil(() => card(element), 'the proposal was not shown', { timeout: 20_000 });
    const id = record.posts()[0]!.body.request_id;
    element.shadowRoot!.querySelector<HTMLButtonElement>('[part="stop-button"]')!.click();
    await waitUntil(() => ends.length === 1, 'the turn did not end');
    expect(ends[0]!.detail.status).to.equal('stopped');
    await element.updateComplete;
    expect(card(element)).to.equal(null);
    await waitUntil(() => record.deletes(id).length === 1, 'the turn was not cancelled');
  });

  it('shows the proposal again after a reload, and the approved change is applied with the next hop', async () => {
    const key = 'approvals-reload';
    const script = await scenario('approval-removal-approved');
    const { record, host, element: before, options } = await approvalChat(key);
    before.sendMessage(script.user_message);
    await waitUntil(() => card(before), 'the proposal was not shown', { timeout: 20_000 });
    await waitUntil(() => new ChatStorage(key).load()?.running?.hop === 2, 'the waiting hop was not kept');
    // The reloaded page: the first chat is left hanging on its card, a new one mounted over the same store.
    before.style.display = 'none';
    const container = document.createElement('div');
    document.body.append(container);
    const ends = collect(container, 'canvas-ai-turn-end');
    const after = await mountChat(options, container);
    await waitUntil(() => card(after), 'the reloaded chat did not show the proposal again', { timeout: 20_000 });
    expect(boxes(after).map((box) => [box.checked, box.closest('label')!.textContent!.trim()])).to.deep.equal([
      [true, 'Remove: Section “Why people love us” (with 3 inside)'],
    ]);
    expect(rows(host), 'nothing removed while it waits').to.include('testimonials-1');
    const posted = record.posts().length;
    card(after)!.requestSubmit();
    await waitUntil(() => ends.length === 1, 'the resumed turn did not end', { timeout: 20_000 });
    expect(ends[0]!.detail.status).to.equal('done');
    const next = record.posts()[posted]!;
    expect([next.body.hop, next.body.answer]).to.deep.equal([
      3,
      { kind: 'approval', call_id: 'call_remove', approved: ['call_remove'] },
    ]);
    expect(rows(host)).to.not.include('testimonials-1');
    await unmountAll([container]);
  });

  it('runs a turn as before against a server of revision 1.7: the wait declared, ignored, no card', async () => {
    const server = hopServer([
      continuing({ progress: 'I will remove it.' }),
      final({ progress: 'I will remove it.', message: 'Done.' }),
    ]);
    await useHandlers(...server.handlers);
    const host = reducerHost({ layout: { regions: { content: { components: [] } } }, page: {} });
    const element = await mountChat({ getLayout: host.getLayout, applyOutputs: host.applyOutputs });
    const end = await sendAndWait(element, 'Remove the selected component, after asking me');
    expect(end.detail.status).to.equal('done');
    expect(server.received[0]!.capabilities?.waits).to.deep.equal(['question', 'plan', 'approval']);
    expect(server.received[1]!.answer).to.equal(undefined);
    expect(card(element)).to.equal(null);
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include('Done.');
  });
});
