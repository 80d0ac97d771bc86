// A plan the agent proposes before it builds (spec §20.4): the chat shows it as a card, reads it out, sends a revision
// with its feedback or an approval with the next hop, cancels the turn on Cancel, shows it again after a reload, and
// hands the host's canvas the planned rows through showPlan/clearPlan, each built row replacing its placeholder;
// against the reference server's mock, and against a server of revision 1.7, which knows nothing of plans.
import type { WaitAnswer } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import { ChatStorage, type ShownPlan } from '../src/loop.js';
import { bubbles, collect, mountChat, pickAgent, sendAndWait, unmountAll } from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { continuing, final, hopServer } from './support/hop-server.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

const card = (element: CanvasAiChat) => element.shadowRoot!.querySelector<HTMLFormElement>('[part="plan"]');
const rowsShown = (element: CanvasAiChat) =>
  [...card(element)!.querySelectorAll('[part="plan-row"]')].map((row) => [
    row.querySelector('.plan-row-title')!.textContent,
    row.querySelector('.plan-row-components')!.textContent,
  ]);
const part = (element: CanvasAiChat, name: string) => card(element)!.querySelector<HTMLElement>(`[part="${name}"]`)!;
const announced = (element: CanvasAiChat) =>
  [...element.shadowRoot!.querySelectorAll('[part="announcer"] p')].map((line) => line.textContent);
const planAnswers = (posts: ReadonlyArray<{ body: { answer?: WaitAnswer } }>) =>
  posts.flatMap((post) => (post.body.answer?.kind === 'plan' ? [post.body.answer] : []));

/** What the host's canvas was told, in order: `show <callId> <approved> <built>/<rows>` or `clear`. */
function canvasLog() {
  const calls: string[] = [];
  return {
    calls,
    showPlan: (plan: ShownPlan) =>
      calls.push(`show ${plan.callId} ${plan.approved ? 'approved' : 'proposed'} ${plan.built}/${plan.rows.length}`),
    clearPlan: () => calls.push('clear'),
  };
}

/** A page builder chat over the reference server's mock, on the empty page, with a canvas that logs the plan. */
async function planChat(extra: Record<string, unknown> = {}) {
  const fixtures = await loadFixtures();
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
  const canvas = canvasLog();
  const options = {
    agentsEndpoint: '/api/agents',
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
    showPlan: canvas.showPlan,
    clearPlan: canvas.clearPlan,
    ...extra,
  };
  const element = await mountChat(options);
  await waitUntil(() => element.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
  await pickAgent(element, 'page_builder');
  return { record, host, element, canvas, options };
}

describe('<canvas-ai-chat> plans inside a turn', () => {
  afterEach(unmountAll);

  it('shows the plan, revises it with feedback, approves the new one, and the canvas sees each row built', async () => {
    const script = await scenario('plan-revised-then-built');
    const { record, host, element, canvas } = await planChat();
    const ends = collect(element, 'canvas-ai-turn-end');
    element.sendMessage(script.user_message);
    await waitUntil(() => card(element), 'the plan was not shown', { timeout: 10_000 });
    expect(record.posts()[0]!.body.capabilities?.waits).to.deep.equal(['question', 'plan', 'approval']);
    expect(rowsShown(element)).to.deep.equal([
      ["Hero with the bakery's name", 'sdc.demo.hero'],
      ['Best sellers on cards', 'sdc.demo.section, sdc.demo.grid, sdc.demo.card'],
    ]);
    expect(announced(element)).to.include(
      "The agent proposes a plan of 2 rows: Hero with the bakery's name; Best sellers on cards. Approve it, revise it, or cancel.",
    );
    await waitUntil(() => element.shadowRoot!.activeElement === part(element, 'plan-approve'), 'Approve has no focus');
    expect(canvas.calls).to.deep.equal(['show call_plan proposed 0/2']);
    expect(element.running, 'the turn waits').to.equal(true);

    // Revise with nothing written: said in place, nothing sent.
    const posted = record.posts().length;
    card(element)!.requestSubmit();
    expect(card(element)!.querySelector('.plan-status')!.textContent).to.equal(
      'Write what should change in the plan, or approve it as it is.',
    );
    expect(record.posts().length, 'nothing sent').to.equal(posted);
    // What typing the feedback and pressing Enter does.
    (part(element, 'plan-feedback') as HTMLInputElement).value = 'Add a footer with our address.';
    card(element)!.requestSubmit();
    await waitUntil(() => card(element)?.querySelectorAll('[part="plan-row"]').length === 3, 'no revised plan');
    expect(rowsShown(element).at(-1)).to.deep.equal(['Footer with the address', 'sdc.demo.footer']);
    expect(canvas.calls).to.deep.equal(['show call_plan proposed 0/2', 'clear', 'show call_plan_2 proposed 0/3']);

    part(element, 'plan-approve').click();
    await waitUntil(() => ends.length === 1, 'the turn did not end');
    expect(ends[0]!.detail.status).to.equal('done');
    expect(card(element), 'the card went with the decision').to.equal(null);
    expect(planAnswers(record.posts())).to.deep.equal([
      { kind: 'plan', call_id: 'call_plan', decision: 'revise', feedback: 'Add a footer with our address.' },
      { kind: 'plan', call_id: 'call_plan_2', decision: 'approve' },
    ]);
    expect(canvas.calls.slice(3)).to.deep.equal([
      'show call_plan_2 approved 0/3',
      'show call_plan_2 approved 1/3',
      'show call_plan_2 approved 2/3',
      'show call_plan_2 approved 3/3',
      'clear',
    ]);
    expect(host.document.layout.regions.content!.components.map((node) => node.component)).to.deep.equal([
      'sdc.demo.hero',
      'sdc.demo.section',
      'sdc.demo.footer',
    ]);
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include(script.hops.at(-1)!.message);
  });

  it('shows the plan in the host’s strings', async () => {
    const script = await scenario('plan-revised-then-built');
    const { element } = await planChat({
      strings: {
        planLabel: 'L’agent prévoit ces rangées :',
        planFeedback: 'Que faut-il changer ?',
        planApprove: 'Approuver et construire',
        planRevise: 'Réviser',
        planCancel: 'Annuler',
        planShown: (titles: readonly string[]) => `Plan de ${titles.length} rangées`,
      },
    });
    element.sendMessage(script.user_message);
    await waitUntil(() => card(element), 'the plan was not shown', { timeout: 10_000 });
    expect(card(element)!.querySelector('.plan-label')!.textContent).to.equal('L’agent prévoit ces rangées :');
    expect(card(element)!.querySelector('.plan-feedback span')!.textContent).to.equal('Que faut-il changer ?');
    expect(
      ['plan-approve', 'plan-revise', 'plan-cancel'].map((name) => part(element, name).textContent!.trim()),
    ).to.deep.equal(['Approuver et construire', 'Réviser', 'Annuler']);
    expect(announced(element)).to.include('Plan de 2 rangées');
    element.stop();
  });

  it('cancels the turn on Cancel: the card and the placeholders go, and the server is told', async () => {
    const script = await scenario('plan-revised-then-built');
    const { record, element, canvas } = await planChat();
    const ends = collect(element, 'canvas-ai-turn-end');
    element.sendMessage(script.user_message);
    await waitUntil(() => card(element), 'the plan was not shown', { timeout: 10_000 });
    const id = record.posts()[0]!.body.request_id;
    part(element, 'plan-cancel').click();
    await waitUntil(() => ends.length === 1, 'the turn did not end');
    expect(ends[0]!.detail.status).to.equal('stopped');
    await element.updateComplete;
    expect(card(element)).to.equal(null);
    expect(canvas.calls).to.deep.equal(['show call_plan proposed 0/2', 'clear']);
    await waitUntil(() => record.deletes(id).length === 1, 'the turn was not cancelled');
    expect(planAnswers(record.posts()), 'no decision sent').to.deep.equal([]);
  });

  it('shows the plan again after a reload, and the turn goes on with the decision', async () => {
    const key = 'plans-reload';
    const script = await scenario('plan-revised-then-built');
    const { record, element: before, options } = await planChat({ storageKey: key });
    before.sendMessage(script.user_message);
    await waitUntil(() => card(before), 'the plan was not shown', { timeout: 10_000 });
    await waitUntil(() => new ChatStorage(key).load()?.running?.hop === 2, 'the waiting hop was not kept');
    // The reloaded page: the first chat is left hanging on its plan, a new one mounted over the same store.
    before.style.display = 'none';
    const container = document.createElement('div');
    document.body.append(container);
    const canvas = canvasLog();
    const after = await mountChat({ ...options, showPlan: canvas.showPlan, clearPlan: canvas.clearPlan }, container);
    await waitUntil(() => card(after), 'the reloaded chat did not show the plan again');
    expect(rowsShown(after).map(([title]) => title)).to.deep.equal([
      "Hero with the bakery's name",
      'Best sellers on cards',
    ]);
    expect(canvas.calls, 'the placeholders are drawn again').to.deep.equal(['show call_plan proposed 0/2']);
    const posted = record.posts().length;
    (part(after, 'plan-feedback') as HTMLInputElement).value = 'Add a footer with our address.';
    part(after, 'plan-revise').click();
    await waitUntil(() => card(after)?.querySelectorAll('[part="plan-row"]').length === 3, 'no revised plan');
    const next = record.posts()[posted]!;
    expect([next.body.hop, next.body.answer]).to.deep.equal([
      3,
      { kind: 'plan', call_id: 'call_plan', decision: 'revise', feedback: 'Add a footer with our address.' },
    ]);
    after.stop();
    await unmountAll([container]);
  });

  it('runs a turn as before against a server of revision 1.7: plans declared, ignored, no card, no placeholders', async () => {
    const server = hopServer([
      continuing({ progress: 'I will add a hero.' }),
      final({ progress: 'I will add a hero.', message: 'Done.' }),
    ]);
    await useHandlers(...server.handlers);
    const host = reducerHost({ layout: { regions: { content: { components: [] } } }, page: {} });
    const canvas = canvasLog();
    const element = await mountChat({
      getLayout: host.getLayout,
      applyOutputs: host.applyOutputs,
      showPlan: canvas.showPlan,
      clearPlan: canvas.clearPlan,
    });
    const end = await sendAndWait(element, 'Build a homepage');
    expect(end.detail.status).to.equal('done');
    expect(server.received[0]!.capabilities?.waits).to.deep.equal(['question', 'plan', 'approval']);
    expect(server.received[1]!.answer).to.equal(undefined);
    expect(card(element)).to.equal(null);
    expect(canvas.calls).to.deep.equal([]);
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include('Done.');
  });
});
