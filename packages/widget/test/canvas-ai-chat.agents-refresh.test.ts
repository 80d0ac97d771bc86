// The chat follows the server's agents (spec §3.1): asked again when a turn starts and when the page is shown again.
import { applyOutputs, type AgentsResponse, type CanvasDocument } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import { http, HttpResponse } from 'msw';
import { bubbles, mountChat, pickAgent, pickerRoot, sendAndWait, unmountAll } from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { recorder } from './support/recorder.js';
import { useHandlers } from './support/worker.js';

const QA = { id: 'qa', label: 'Ask about the editor', description: 'Answers.' };
const BUILDER = { id: 'page_builder', label: 'Page builder', description: 'Builds.' };
const COPY = { id: 'copy_editor', label: 'Copy editor', description: 'Rewrites.' };

/** `GET /api/agents` answering `current.agents` with its version as the `ETag`, and how often it was asked. */
function versionedAgents(agents: AgentsResponse) {
  const current = { agents, version: 1, asked: 0 };
  const handler = http.get('*/api/agents', () => {
    current.asked += 1;
    return HttpResponse.json(current.agents, {
      headers: { ETag: `"v${current.version}"`, 'Cache-Control': 'no-cache' },
    });
  });
  return { current, handler };
}

/** The labels of the picker's options, opening its menu. */
async function pickerOptions(element: HTMLElement & { shadowRoot: ShadowRoot | null }): Promise<string[]> {
  const picker = element.shadowRoot!.querySelector('canvas-ai-tool-picker')!;
  await picker.updateComplete;
  const root = picker.shadowRoot!;
  if (!root.querySelector('[part="menu"]')) root.querySelector<HTMLButtonElement>('[part="button"]')!.click();
  await picker.updateComplete;
  return [...root.querySelectorAll('[part="option"]')].map((option) => option.textContent!.replace(/\s+/g, ' ').trim());
}

async function mountOnVersionedAgents() {
  const fixtures = await loadFixtures();
  const server = versionedAgents({ main_agent: QA, tools: [BUILDER, COPY] });
  const record = recorder();
  await useHandlers(server.handler, record.handler, ...createMockHandlers(fixtures));
  let document: CanvasDocument = { layout: fixtures.layouts['layouts/empty.yaml']!, page: {} };
  const element = await mountChat({
    agentsEndpoint: '/api/agents',
    getLayout: () => document,
    applyOutputs: (outputs) => {
      document = applyOutputs(document, outputs);
    },
  });
  await waitUntil(() => pickerRoot(element), 'the picker did not appear');
  return { server, record, element };
}

describe('<canvas-ai-chat> follows the agents of the server', () => {
  afterEach(unmountAll);

  it('updates the picker and the main agent label when the page is shown again and the ETag changed, keeping the conversation', async () => {
    const qa = await scenario('qa-one-hop');
    const { server, element } = await mountOnVersionedAgents();
    await sendAndWait(element, qa.user_message);
    const shown = bubbles(element).map((bubble) => bubble.textContent);

    server.current.agents = { main_agent: { ...BUILDER, label: 'Builder of pages' }, tools: [COPY] };
    server.current.version = 2;
    const asked = server.current.asked;
    document.dispatchEvent(new Event('visibilitychange'));
    await waitUntil(() => server.current.asked > asked, 'the agents were not asked again');

    await waitUntil(async () => (await pickerOptions(element)).join('|').includes('Builder of pages'));
    const options = await pickerOptions(element);
    expect(options.length).to.equal(2);
    expect(options[0]).to.contain('Builder of pages');
    expect(options[1]).to.contain('Copy editor');
    expect(bubbles(element).map((bubble) => bubble.textContent)).to.deep.equal(shown);
  });

  it('asks again when a turn starts, and drops a picked tool the server no longer offers with a notice, never sending it', async () => {
    const qa = await scenario('qa-one-hop');
    const { server, record, element } = await mountOnVersionedAgents();
    await pickAgent(element, 'page_builder');

    server.current.agents = { main_agent: QA, tools: [COPY] };
    server.current.version = 2;
    const asked = server.current.asked;
    const end = await sendAndWait(element, qa.user_message);

    expect(end.detail.status, end.detail.error?.message).to.equal('done');
    expect(server.current.asked).to.be.greaterThan(asked);
    expect(record.posts().map((post) => post.body!.agent)).to.deep.equal([undefined]);
    expect(pickerRoot(element)!.querySelector('[part="chip"]')).to.equal(null);
    const notice = element.shadowRoot!.querySelector('[part="notice"]');
    expect(notice?.textContent).to.contain('Page builder is no longer offered');
  });

  it('keeps the pick and sends it when the version did not change', async () => {
    const hero = await scenario('place-hero-two-hop');
    const { record, element } = await mountOnVersionedAgents();
    await pickAgent(element, 'page_builder');

    const end = await sendAndWait(element, hero.user_message);

    expect(end.detail.status, end.detail.error?.message).to.equal('done');
    expect(record.posts().map((post) => post.body!.agent)).to.deep.equal(hero.hops.map(() => 'page_builder'));
    expect(element.shadowRoot!.querySelector('[part="notice"]')).to.equal(null);
  });
});
