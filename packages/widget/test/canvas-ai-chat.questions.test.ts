// A question the agent asks inside a turn (spec §20): the chat shows it with its choices, reads it out, answers or
// dismisses it with the next hop, asks it again after a reload, and stops with it; against the reference server's
// mock, and against a server of revision 1.6, which knows nothing of questions.
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

const card = (element: CanvasAiChat) => element.shadowRoot!.querySelector<HTMLFormElement>('[part="question"]');
const choices = (element: CanvasAiChat) => [
  ...element.shadowRoot!.querySelectorAll<HTMLInputElement>('[part="question-choice"] input'),
];
const announced = (element: CanvasAiChat) =>
  [...element.shadowRoot!.querySelectorAll('[part="announcer"] p')].map((line) => line.textContent);

/** A page builder chat over the reference server's mock, on the empty page; `storageKey` for a reload. */
async function questionChat(storageKey?: string) {
  const fixtures = await loadFixtures();
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
  const options = {
    agentsEndpoint: '/api/agents',
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
    ...(storageKey ? { storageKey } : {}),
  };
  const element = await mountChat(options);
  await waitUntil(() => element.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
  await pickAgent(element, 'page_builder');
  return { record, host, element, options };
}

describe('<canvas-ai-chat> questions inside a turn', () => {
  afterEach(unmountAll);

  it('shows the question with its choices, reads it out, focuses the first choice, and sends the pick with the next hop', async () => {
    const script = await scenario('question-answered');
    const { record, host, element } = await questionChat();
    const ended = new Promise<HTMLElementEventMap['canvas-ai-turn-end']>((resolve) =>
      element.addEventListener('canvas-ai-turn-end', resolve, { once: true }),
    );
    element.sendMessage(script.user_message);
    await waitUntil(() => card(element), 'the question was not shown');
    expect(record.posts()[0]!.body.capabilities?.waits).to.deep.equal(['question', 'plan', 'approval']);
    expect(card(element)!.querySelector('[part="question-text"]')!.textContent).to.equal(
      'Which tone should the hero have?',
    );
    expect(choices(element).map((input) => [input.type, input.closest('label')!.textContent!.trim()])).to.deep.equal([
      ['radio', 'Playful'],
      ['radio', 'Elegant'],
      ['radio', 'Bold'],
    ]);
    expect(card(element)!.querySelector('[part="question-input"]'), 'free text allowed').to.not.equal(null);
    expect(announced(element)).to.include('The agent asks: Which tone should the hero have?');
    await waitUntil(() => element.shadowRoot!.activeElement === choices(element)[0], 'the first choice has no focus');
    expect(element.running, 'the turn waits').to.equal(true);

    // What Enter does in the form: pick the second choice, submit.
    choices(element)[1]!.checked = true;
    card(element)!.requestSubmit();
    const end = await ended;
    expect(end.detail.status).to.equal('done');
    expect(card(element), 'the card went with the answer').to.equal(null);
    const answerHop = record.posts().find((post) => post.body.answer !== undefined)!;
    expect(answerHop.body.hop).to.equal(3);
    expect(answerHop.body.answer).to.deep.equal({
      kind: 'question',
      call_id: 'call_tone',
      dismissed: false,
      choices: [1],
    });
    expect(host.document.layout.regions.content!.components.map((node) => node.component)).to.deep.equal([
      'sdc.demo.hero',
    ]);
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include(script.hops.at(-1)!.message);
  });

  it('sends nothing for an empty answer and says why; a dismissal tells the model and the turn ends', async () => {
    const script = await scenario('question-dismissed');
    const { record, element } = await questionChat();
    const ends = collect(element, 'canvas-ai-turn-end');
    element.sendMessage(script.user_message);
    await waitUntil(() => card(element), 'the question was not shown');
    expect(choices(element).map((input) => input.type)).to.deep.equal(['checkbox', 'checkbox', 'checkbox', 'checkbox']);
    expect(card(element)!.querySelector('[part="question-input"]'), 'no free text').to.equal(null);
    const posted = record.posts().length;
    card(element)!.requestSubmit();
    expect(card(element)!.querySelector('.question-status')!.textContent).to.equal(
      'Pick an answer or write your own, or dismiss the question.',
    );
    expect(record.posts().length, 'nothing sent').to.equal(posted);
    card(element)!.querySelector<HTMLButtonElement>('[part="question-dismiss"]')!.click();
    await waitUntil(() => ends.length === 1, 'the turn did not end');
    expect(ends[0]!.detail.status).to.equal('done');
    expect(record.posts().at(-1)!.body.answer).to.deep.equal({
      kind: 'question',
      call_id: 'call_sections',
      dismissed: true,
      choices: [],
    });
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include(script.hops.at(-1)!.message);
  });

  it('shows the question in the host’s strings', async () => {
    const script = await scenario('question-answered');
    const fixtures = await loadFixtures();
    await useHandlers(...createMockHandlers(fixtures));
    const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
    const element = await mountChat({
      agentsEndpoint: '/api/agents',
      getLayout: host.getLayout,
      applyOutputs: host.applyOutputs,
      strings: {
        questionLabel: 'L’agent demande :',
        questionOwnAnswer: 'Votre réponse',
        questionAnswer: 'Répondre',
        questionDismiss: 'Ignorer',
        questionAsked: (question) => `L’agent demande : ${question}`,
      },
    });
    await waitUntil(() => element.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
    await pickAgent(element, 'page_builder');
    element.sendMessage(script.user_message);
    await waitUntil(() => card(element), 'the question was not shown');
    const form = card(element)!;
    expect(form.querySelector('.question-label')!.textContent).to.equal('L’agent demande :');
    expect(form.querySelector('.question-own span')!.textContent).to.equal('Votre réponse');
    expect(form.querySelector('[part="question-answer"]')!.textContent!.trim()).to.equal('Répondre');
    expect(form.querySelector('[part="question-dismiss"]')!.textContent!.trim()).to.equal('Ignorer');
    expect(announced(element)).to.include('L’agent demande : Which tone should the hero have?');
    element.stop();
  });

  it('takes the card away when the turn is stopped while it waits, and cancels the turn on the server', async () => {
    const script = await scenario('question-answered');
    const { record, element } = await questionChat();
    const ends = collect(element, 'canvas-ai-turn-end');
    element.sendMessage(script.user_message);
    await waitUntil(() => card(element), 'the question was not shown');
    const id = record.posts()[0]!.body.request_id;
    element.shadowRoot!.querySelector<HTMLButtonElement>('[part="stop-button"]')!.click();
    await waitUntil(() => ends.length === 1, 'the turn did not end');
    expect(ends[0]!.detail.status).to.equal('stopped');
    await element.updateComplete;
    expect(card(element)).to.equal(null);
    await waitUntil(() => record.deletes(id).length === 1, 'the turn was not cancelled');
  });

  it('asks the question again after a reload, and the turn goes on with the answer', async () => {
    const key = 'questions-reload';
    const script = await scenario('question-answered');
    const { record, host, element: before, options } = await questionChat(key);
    before.sendMessage(script.user_message);
    await waitUntil(() => card(before), 'the question was not shown');
    await waitUntil(() => new ChatStorage(key).load()?.running?.hop === 2, 'the waiting hop was not kept');
    // The reloaded page: the first chat is left hanging on its question, a new one mounted over the same store.
    before.style.display = 'none';
    const container = document.createElement('div');
    document.body.append(container);
    const ends = collect(container, 'canvas-ai-turn-end');
    const after = await mountChat(options, container);
    await waitUntil(() => card(after), 'the reloaded chat did not ask again');
    expect(after.shadowRoot!.querySelector('[part="question-text"]')!.textContent).to.equal(
      'Which tone should the hero have?',
    );
    const posted = record.posts().length;
    expect(
      record.requests.some((entry) => entry.method === 'GET' && entry.path.includes('/api/hop/')),
      'the status was asked',
    ).to.equal(true);
    choices(after)[1]!.checked = true;
    card(after)!.requestSubmit();
    await waitUntil(() => ends.length === 1, 'the resumed turn did not end');
    expect(ends[0]!.detail.status).to.equal('done');
    const next = record.posts()[posted]!;
    expect([
      next.body.hop,
      next.body.answer?.kind === 'question' ? next.body.answer.choices : next.body.answer,
    ]).to.deep.equal([3, [1]]);
    expect(host.document.layout.regions.content!.components).to.have.length(1);
    await unmountAll([container]);
  });

  it('runs a turn as before against a server of revision 1.6: waits declared, ignored, no card', async () => {
    const server = hopServer([
      continuing({ progress: 'I will add a hero.' }),
      final({ progress: 'I will add a hero.', message: 'Done.' }),
    ]);
    await useHandlers(...server.handlers);
    const host = reducerHost({ layout: { regions: { content: { components: [] } } }, page: {} });
    const element = await mountChat({ getLayout: host.getLayout, applyOutputs: host.applyOutputs });
    const end = await sendAndWait(element, 'Add a hero');
    expect(end.detail.status).to.equal('done');
    expect(server.received[0]!.capabilities?.waits).to.deep.equal(['question', 'plan', 'approval']);
    expect(server.received[1]!.answer).to.equal(undefined);
    expect(card(element)).to.equal(null);
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include('Done.');
  });
});
