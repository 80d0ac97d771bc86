// The self-contained build (dist/canvas-ai-chat.js, made by `vite build --mode standalone` before the tests) loads
// in a plain page with one <script type="module"> — no process shim, no import map — and runs a turn.
import { expect, waitUntil } from '@open-wc/testing';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';

describe('the built self-contained module', () => {
  let frame: HTMLIFrameElement;

  afterEach(() => {
    frame?.remove();
    sessionStorage.clear();
  });

  it('defines <canvas-ai-chat> in a raw page and answers a message', async () => {
    frame = document.createElement('iframe');
    frame.style.cssText = 'width: 600px; height: 500px';
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    frame.src = '/__built__/page.html';
    document.body.append(frame);
    await loaded;
    const win = frame.contentWindow! as Window & typeof globalThis;
    const errors: string[] = [];
    win.addEventListener('error', (event) => errors.push(event.message));

    await waitUntil(() => win.customElements.get('canvas-ai-chat'), 'the bundle did not define <canvas-ai-chat>');
    const chat = win.document.querySelector('canvas-ai-chat') as unknown as CanvasAiChat;
    await waitUntil(
      () => chat.chat?.shadowRoot?.querySelector('#messages'),
      'deep-chat did not render in the raw page',
    );
    expect(win.customElements.get('canvas-ai-tool-picker')).not.to.equal(undefined);
    expect(win.customElements.get('deep-chat')).not.to.equal(undefined);
    expect('process' in win).to.equal(false);

    const ended = new Promise<CustomEvent>((resolve) =>
      chat.addEventListener('canvas-ai-turn-end', (event) => resolve(event as CustomEvent)),
    );
    chat.sendMessage('hello from a plain page');
    const end = await ended;

    expect(end.detail.status).to.equal('done');
    const bubbles = [...chat.chat!.shadowRoot!.querySelectorAll('.message-bubble')].map((bubble) =>
      bubble.textContent!.trim(),
    );
    expect(bubbles.at(-1)).to.equal('The built widget answered: hello from a plain page');
    expect(errors).to.deep.equal([]);
  });
});
