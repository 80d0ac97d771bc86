// A look at the page in <canvas-ai-chat> (spec §20.3): a host that sets getScreenshot declares the wait, the live
// region says the agent looks, the image goes as the one attachment of the next hop; Stop while the host takes it
// cancels the turn; without the hook nothing is declared; against a server of revision 1.7, which knows no
// screenshots, the turn runs as before.
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import type { GetScreenshotHook } from '../src/loop.js';
import { bubbles, collect, mountChat, pickAgent, sendAndWait, unmountAll } from './support/chat.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { continuing, final, hopServer } from './support/hop-server.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

const announced = (element: CanvasAiChat) =>
  [...element.shadowRoot!.querySelectorAll('[part="announcer"] p')].map((line) => line.textContent);

function png(): Promise<Blob> {
  const canvas = new OffscreenCanvas(4, 3);
  canvas.getContext('2d')!.fillRect(0, 0, 2, 2);
  return canvas.convertToBlob({ type: 'image/png' });
}

/** A page builder chat over the reference server's mock, on the empty page, with the host's hook if given. */
async function screenshotChat(getScreenshot?: GetScreenshotHook) {
  const fixtures = await loadFixtures();
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
  const element = await mountChat({
    agentsEndpoint: '/api/agents',
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
    ...(getScreenshot ? { getScreenshot } : {}),
  });
  await waitUntil(() => element.shadowRoot!.querySelector('canvas-ai-tool-picker'), 'the agents config did not load');
  await pickAgent(element, 'page_builder');
  return { record, element };
}

describe('<canvas-ai-chat> a look at the page', () => {
  afterEach(unmountAll);

  it('declares the wait, says the agent looks, and sends the host’s image with the next hop', async () => {
    const script = await scenario('screenshot-page');
    const asked: unknown[] = [];
    const { record, element } = await screenshotChat((request) => {
      asked.push(request);
      return png();
    });
    const end = await sendAndWait(element, script.user_message);
    expect(end.detail.status).to.equal('done');
    const posts = record.posts();
    expect(posts[0]!.body.capabilities?.waits).to.deep.equal(['question', 'plan', 'screenshot', 'approval']);
    expect(asked).to.deep.equal([{}]);
    expect(announced(element)).to.include('The agent takes a look at the page.');
    expect([posts[2]!.contentType, posts[2]!.parts, posts[2]!.body.answer]).to.deep.equal([
      'multipart/form-data',
      [{ name: 'request' }, { name: 'attachments', file: 'attachment-1' }],
      { kind: 'screenshot', call_id: 'call_look', unavailable: false },
    ]);
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include(script.hops.at(-1)!.message);
  });

  it('declares no screenshot without the hook', async () => {
    const script = await scenario('screenshot-page');
    const { record, element } = await screenshotChat();
    const end = await sendAndWait(element, script.user_message);
    expect(end.detail.status).to.equal('done');
    expect(record.posts()[0]!.body.capabilities?.waits).to.deep.equal(['question', 'plan', 'approval']);
    expect(record.posts().every((post) => post.body.answer === undefined)).to.equal(true);
  });

  it('cancels the turn when the person stops it while the host takes the screenshot', async () => {
    const script = await scenario('screenshot-page');
    let taking = false;
    const { record, element } = await screenshotChat(() => {
      taking = true;
      return new Promise<Blob>(() => undefined);
    });
    const ends = collect(element, 'canvas-ai-turn-end');
    element.sendMessage(script.user_message);
    await waitUntil(() => taking, 'the host was not asked for a screenshot');
    const id = record.posts()[0]!.body.request_id;
    element.shadowRoot!.querySelector<HTMLButtonElement>('[part="stop-button"]')!.click();
    await waitUntil(() => ends.length === 1, 'the turn did not end');
    expect(ends[0]!.detail.status).to.equal('stopped');
    await waitUntil(() => record.deletes(id).length === 1, 'the turn was not cancelled');
    expect(record.posts()).to.have.length(2, 'no hop after the waiting one');
  });

  it('runs a turn as before against a server of revision 1.7: the wait declared, ignored, nothing asked', async () => {
    const server = hopServer([
      continuing({ progress: 'Let me look at the page.' }),
      final({ progress: 'Let me look at the page.', message: 'It looks fine.' }),
    ]);
    await useHandlers(...server.handlers);
    const host = reducerHost({ layout: { regions: { content: { components: [] } } }, page: {} });
    let asked = 0;
    const element = await mountChat({
      getLayout: host.getLayout,
      applyOutputs: host.applyOutputs,
      getScreenshot: () => {
        asked += 1;
        return png();
      },
    });
    const end = await sendAndWait(element, 'Take a look at my page and tell me how it looks');
    expect(end.detail.status).to.equal('done');
    expect(server.received[0]!.capabilities?.waits).to.deep.equal(['question', 'plan', 'screenshot', 'approval']);
    expect(server.received[1]!.answer).to.equal(undefined);
    expect(asked).to.equal(0);
    expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.include('It looks fine.');
  });
});
