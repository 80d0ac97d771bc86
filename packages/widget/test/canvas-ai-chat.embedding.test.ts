// Embedding: inside another Lit element's shadow root, themed only through custom properties and ::part.
import { expect, waitUntil } from '@open-wc/testing';
import { css, html, LitElement } from 'lit';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import { bubbles, progressBlocks, sendAndWait } from './support/chat.js';
import { continuing, final, hopServer } from './support/hop-server.js';
import { useHandlers } from './support/worker.js';

/** A host editor that renders the chat in its own shadow root and themes it from its stylesheet. */
class TestHostEditor extends LitElement {
  static override properties = { tab: { type: String } };
  static override styles = css`
    canvas-ai-chat {
      --canvas-ai-height: 420px;
      --canvas-ai-user-bubble-background: rgb(1, 2, 3);
      --canvas-ai-reply-background: rgb(4, 5, 6);
      --canvas-ai-progress-background: rgb(7, 8, 9);
      --canvas-ai-font-family: monospace;
    }
    canvas-ai-chat::part(chat) {
      outline: 3px solid rgb(10, 11, 12);
    }
  `;
  declare tab: string;

  constructor() {
    super();
    this.tab = 'one';
  }

  override render() {
    return html`<p>Tab ${this.tab}</p>
      <canvas-ai-chat .getLayout=${() => ({ layout: { regions: { content: { components: [] } } } })} conversation-id="conv-${this.tab}"></canvas-ai-chat>`;
  }
}
customElements.define('test-host-editor', TestHostEditor);

describe('<canvas-ai-chat> embedded in another shadow root', () => {
  let editor: TestHostEditor;

  afterEach(() => {
    editor?.remove();
    sessionStorage.clear();
  });

  it('works nested, its events reach the document, and the host theme reaches the messages', async () => {
    const server = hopServer([
      continuing({ progress: 'Working on it.' }),
      final({ progress: 'Working on it.', message: 'Here you go.' }),
    ]);
    await useHandlers(...server.handlers);
    editor = document.createElement('test-host-editor') as TestHostEditor;
    document.body.append(editor);
    await editor.updateComplete;
    const chat = editor.shadowRoot!.querySelector('canvas-ai-chat') as CanvasAiChat;
    await waitUntil(() => chat.chat?.shadowRoot?.querySelector('#messages'), 'deep-chat did not render');
    const heardAtDocument: string[] = [];
    const listener = (event: Event) => heardAtDocument.push(event.type);
    for (const type of ['canvas-ai-turn-start', 'canvas-ai-hop', 'canvas-ai-turn-end'] as const)
      document.addEventListener(type, listener);

    const end = await sendAndWait(chat, 'Hello');

    for (const type of ['canvas-ai-turn-start', 'canvas-ai-hop', 'canvas-ai-turn-end'] as const)
      document.removeEventListener(type, listener);
    expect(end.detail.status).to.equal('done');
    const thirdPartyFonts = [...document.head.querySelectorAll('link')].filter((link) =>
      link.href.includes('fonts.googleapis.com'),
    );
    expect(thirdPartyFonts, 'deep-chat must not add a Google Fonts link to the host page').to.have.length(0);
    expect(heardAtDocument).to.deep.equal([
      'canvas-ai-turn-start',
      'canvas-ai-hop',
      'canvas-ai-hop',
      'canvas-ai-turn-end',
    ]);
    expect(server.received[0]!.conversation_id).to.equal('conv-one');

    const all = bubbles(chat);
    const user = all.find((bubble) => bubble.classList.contains('user-message'))!;
    const reply = all.at(-1)!;
    const block = progressBlocks(chat)[0]!.closest<HTMLElement>('.message-bubble')!;
    expect(getComputedStyle(user).backgroundColor).to.equal('rgb(1, 2, 3)');
    expect(getComputedStyle(reply).backgroundColor).to.equal('rgb(4, 5, 6)');
    expect(getComputedStyle(block).backgroundColor).to.equal('rgb(7, 8, 9)');
    expect(getComputedStyle(reply).fontFamily).to.equal('monospace');
    expect(getComputedStyle(chat.chat!).outlineColor).to.equal('rgb(10, 11, 12)');
    expect(chat.getBoundingClientRect().height).to.equal(420);

    // The host re-renders (another tab, a new conversation id): the chat keeps what it shows.
    editor.tab = 'two';
    await editor.updateComplete;
    expect(editor.shadowRoot!.querySelector('canvas-ai-chat')).to.equal(chat);
    expect(bubbles(chat).at(-1)!.textContent!.trim()).to.equal('Here you go.');
    expect(chat.conversationId).to.equal('conv-two');
  });
});
