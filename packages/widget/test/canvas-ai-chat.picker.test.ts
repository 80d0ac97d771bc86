// The tools picker (a pick applies to one message) and attachments (multipart on hop 1 only).
import { applyOutputs, type AgentsResponse, type CanvasDocument } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import { bubbles, mountChat, pickAgent, pickerRoot, sendAndWait, unmountAll } from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { final, hopServer } from './support/hop-server.js';
import { recorder } from './support/recorder.js';
import { useHandlers } from './support/worker.js';

const emptyPage = () => ({ layout: { regions: { content: { components: [] } } } });

describe('<canvas-ai-chat> tools picker and attachments', () => {
  afterEach(unmountAll);

  it('shows the wrench only when the agents config has tools', async () => {
    const noTools: AgentsResponse = { main_agent: { id: 'qa', label: 'Q&A', description: 'Answers.' }, tools: [] };
    const plain = await mountChat({ getLayout: emptyPage, agents: noTools });
    await plain.updateComplete;
    expect(plain.shadowRoot!.querySelector('canvas-ai-tool-picker')).to.equal(null);
    expect(plain.shadowRoot!.querySelector<HTMLElement>('[part="toolbar"]')!.hidden).to.equal(true);

    const withTools = await mountChat({
      getLayout: emptyPage,
      agents: { ...noTools, tools: [{ id: 'page_builder', label: 'Page builder', description: 'Builds pages.' }] },
    });
    await withTools.updateComplete;
    const picker = withTools.shadowRoot!.querySelector('canvas-ai-tool-picker')!;
    await picker.updateComplete;
    expect(pickerRoot(withTools)!.querySelector('[part="button"]')).not.to.equal(null);
  });

  it('sends the pick with one message only; the next one goes to the main agent', async () => {
    const { hero, qa, record, element, document } = await mountOnScenarioMock();

    await pickAgent(element, 'page_builder');
    expect(pickerRoot(element)!.querySelector('[part="chip"]')!.textContent).to.contain('Page builder');
    const first = await sendAndWait(element, hero.user_message);
    await element.updateComplete;

    expect(first.detail.status, first.detail.error?.message).to.equal('done');
    expect(record.posts().map((post) => post.body.agent)).to.deep.equal(hero.hops.map(() => 'page_builder'));
    expect(pickerRoot(element)!.querySelector('[part="chip"]'), 'the pick resets after one message').to.equal(null);
    expect(document().layout.regions.content!.components.map((node) => node.component)).to.deep.equal([
      'sdc.demo.hero',
    ]);
    // The reply names the agent that answered.
    const names = [...element.chat!.shadowRoot!.querySelectorAll('.name')].map((name) => name.textContent);
    expect(names).to.include('Page builder');

    const second = await sendAndWait(element, qa.user_message);
    expect(second.detail.status, second.detail.error?.message).to.equal('done');
    expect(record.posts().at(-1)!.body).not.to.have.property('agent');
    expect(bubbles(element).at(-1)!.textContent!.trim()).to.equal(qa.hops[0]!.message);
  });

  it('lets the host pick the agent for one message through sendMessage', async () => {
    const { hero, qa, record, element, document } = await mountOnScenarioMock();

    const ended = new Promise<HTMLElementEventMap['canvas-ai-turn-end']>((resolve) =>
      element.addEventListener('canvas-ai-turn-end', resolve, { once: true }),
    );
    element.sendMessage(hero.user_message, { agent: 'page_builder' });
    expect((await ended).detail.status).to.equal('done');
    expect(record.posts().map((post) => post.body.agent)).to.deep.equal(hero.hops.map(() => 'page_builder'));
    expect(document().layout.regions.content!.components.map((node) => node.component)).to.deep.equal([
      'sdc.demo.hero',
    ]);

    await sendAndWait(element, qa.user_message);
    expect(record.posts().at(-1)!.body, 'the pick applied to one message').not.to.have.property('agent');
  });

  it('sends hop 1 as multipart with the attached image and later hops as JSON', async () => {
    const fixtures = await loadFixtures();
    const photo = await scenario('image-attachment');
    const record = recorder();
    await useHandlers(record.handler, ...createMockHandlers(fixtures));
    let document: CanvasDocument = { layout: fixtures.layouts['layouts/empty.yaml']!, page: {} };
    const element = await mountChat({
      agentsEndpoint: '/api/agents',
      chatOptions: { images: { files: { acceptedFormats: '.png,.jpg,.jpeg,.webp,.gif', maxNumberOfFiles: 4 } } },
      getLayout: () => document,
      applyOutputs: (outputs) => {
        document = applyOutputs(document, outputs);
      },
    });
    await waitUntil(() => pickerRoot(element), 'the picker did not appear');
    await pickAgent(element, 'page_builder');
    const file = new File([fixtures.attachments['attachments/cookie.png']!.slice()], 'cookie.png', {
      type: 'image/png',
    });

    const end = await sendAndWait(element, photo.user_message, [file]);

    expect(end.detail.status, end.detail.error?.message).to.equal('done');
    const [first, ...later] = record.posts();
    expect(first!.contentType).to.equal('multipart/form-data');
    expect(first!.parts).to.deep.equal([{ name: 'request' }, { name: 'attachments', file: 'cookie.png' }]);
    expect(first!.body.messages!.at(-1)).to.deep.equal({ role: 'user', text: photo.user_message });
    expect(later.length).to.equal(photo.hops.length - 1);
    expect(later.every((post) => post.contentType === 'application/json')).to.equal(true);
  });

  it('sends every hop as JSON when nothing is attached', async () => {
    const record = recorder();
    await useHandlers(record.handler, ...hopServer([final({ message: 'ok' })]).handlers);
    const element = await mountChat({ getLayout: emptyPage });

    await sendAndWait(element, 'Hi');

    expect(record.posts().map((post) => post.contentType)).to.deep.equal(['application/json']);
  });
});

/** A chat on the reference server's msw mock with the real fixtures, its host document kept with the shared reducer. */
async function mountOnScenarioMock() {
  const fixtures = await loadFixtures();
  const hero = await scenario('place-hero-two-hop');
  const qa = await scenario('qa-one-hop');
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  let document: CanvasDocument = { layout: fixtures.layouts['layouts/empty.yaml']!, page: {} };
  const element = await mountChat({
    agentsEndpoint: '/api/agents',
    getLayout: () => document,
    applyOutputs: (outputs) => {
      document = applyOutputs(document, outputs);
    },
  });
  await waitUntil(() => pickerRoot(element), 'the picker did not appear');
  return { hero, qa, record, element, document: () => document };
}
