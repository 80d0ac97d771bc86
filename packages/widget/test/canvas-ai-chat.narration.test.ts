// The narration block: escaping, one block per turn, errors that keep it, and the reader's scroll position.
import type { HopRequest } from '@canvas-ai/protocol';
import { expect, waitUntil } from '@open-wc/testing';
import { HttpResponse } from 'msw';
import { answerHtml, escapeNarration, progressBlockHtml, statusBubbleHtml } from '../src/canvas-ai-chat/narration.js';
import { DEFAULT_STRINGS } from '../src/canvas-ai-chat/strings.js';
import {
  bubbles,
  chatRoot,
  collect,
  errorBubbles,
  mountChat,
  progressBlocks,
  sendAndWait,
  unmountAll,
} from './support/chat.js';
import { continuing, deferred, final, hopServer } from './support/hop-server.js';
import { recorder } from './support/recorder.js';
import { useHandlers } from './support/worker.js';

const emptyPage = () => ({ layout: { regions: { content: { components: [] } } } });
const HOSTILE =
  'Look: <img src=x onerror="window.__canvasAiXss = 1"> and <script>window.__canvasAiXss = 2</script> &amp; done\nnext line';

declare global {
  interface Window {
    __canvasAiXss?: number;
  }
}

describe('narration', () => {
  afterEach(unmountAll);

  it('escapes &, <, > and turns newlines into <br>', () => {
    expect(escapeNarration('a & b <i>c</i>\nd > e')).to.equal('a &amp; b &lt;i&gt;c&lt;/i&gt;<br>d &gt; e');
    expect(escapeNarration('&amp;')).to.equal('&amp;amp;');
    expect(progressBlockHtml('', 'running', [], DEFAULT_STRINGS)).not.to.contain('canvas-ai-progress-text');
    expect(answerHtml('[a](b) <i>\n&amp;')).to.equal(
      '<div class="canvas-ai-answer" dir="auto">[a](b) &lt;i&gt;<br>&amp;amp;</div>',
    );
  });

  it('renders hostile narration as literal text: no element created, nothing executed', async () => {
    delete window.__canvasAiXss;
    const server = hopServer([
      continuing({ progress: HOSTILE }),
      final({ progress: HOSTILE, message: 'Reply <img src=x onerror="window.__canvasAiXss = 3">' }),
    ]);
    await useHandlers(...server.handlers);
    const element = await mountChat({ getLayout: emptyPage });

    await sendAndWait(element, 'Hi');
    await waitUntil(
      () => progressBlocks(element)[0]?.querySelector('.canvas-ai-progress-text'),
      'the narration block was not shown',
    );

    const block = progressBlocks(element)[0]!;
    const text = block.querySelector('.canvas-ai-progress-text')!;
    expect(text.textContent).to.equal(HOSTILE.replace('\n', ''));
    expect(text.querySelectorAll('*').length).to.equal(text.querySelectorAll('br').length);
    expect(text.querySelectorAll('br')).to.have.length(1);
    expect(chatRoot(element).querySelectorAll('img, script')).to.have.length(0);
    expect(window.__canvasAiXss).to.equal(undefined);
  });

  it('renders a hostile answer once, as literal text: no link, image or script created, nothing requested', async () => {
    delete window.__canvasAiXss;
    const answer = [
      'Done. [x](javascript:alert(1)) ![a](http://127.0.0.1:9/x.png) ![b](/api/exfil.png?page=secret)',
      '<img src=x onerror="window.__canvasAiXss = 4"> &amp; <https://example.com/auto> **bold**',
    ].join('\n');
    const server = hopServer([final({ message: answer, agent: { id: 'qa', label: 'Ask about the editor' } })]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const element = await mountChat({ getLayout: emptyPage });

    const end = await sendAndWait(element, 'Hi');
    await waitUntil(
      () => bubbles(element).some((bubble) => bubble.textContent!.includes('javascript:alert(1)')),
      'the answer was not shown',
    );

    expect(end.detail.status).to.equal('done');
    // Any image that was created has made its request once it settled (decode rejects for a failed load).
    await Promise.all(
      [...chatRoot(element).querySelectorAll('img')].map((image) => image.decode().catch(() => undefined)),
    );
    expect(
      record.requests.map((entry) => entry.path),
      'requested',
    ).to.deep.equal(['/api/hop']);
    const created = [...chatRoot(element).querySelectorAll('a, img, script')].map((node) => node.outerHTML);
    expect(created, 'elements created').to.deep.equal([]);
    expect(window.__canvasAiXss).to.equal(undefined);
    const shown = bubbles(element).filter((bubble) => bubble.textContent!.includes('javascript:alert(1)'));
    expect(shown, 'the answer is shown once').to.have.length(1);
    expect(shown[0]!.textContent).to.equal(answer.replace('\n', ''));
    expect(shown[0]!.querySelectorAll('br'), 'its newline').to.have.length(1);
    // Still the agent's reply: its caption, and its plain text in the next turn's transcript.
    expect(shown[0]!.closest('.outer-message-container')?.querySelector('.name')?.textContent ?? '').to.equal('qa');
    expect(element.chat!.getMessages().at(-1)).to.include({ role: 'qa' });
  });

  it('renders an error whose message is hostile markdown as literal text with its code: no link, image or script, nothing requested', async () => {
    delete window.__canvasAiXss;
    const hostile = [
      '[Click here to retry](javascript:alert(document.domain)) ![x](http://127.0.0.1:9/pixel.gif?leak=provider-error)',
      '<img src=x onerror="window.__canvasAiXss = 5"> [Retry upload](javascript:alert(1)) ![t](https:127.0.0.1:9).png',
    ].join('\n');
    const server = hopServer([
      () =>
        HttpResponse.json(
          { status: false, should_continue: false, progress: '', message: hostile, error: { code: 'provider_error' } },
          { status: 502 },
        ),
    ]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const element = await mountChat({ getLayout: emptyPage });

    const end = await sendAndWait(element, 'Please build me a page');
    await waitUntil(() => errorBubbles(element).length > 0, 'the error was not shown');

    expect(end.detail.status).to.equal('error');
    await Promise.all(
      [...chatRoot(element).querySelectorAll('img')].map((image) => image.decode().catch(() => undefined)),
    );
    expect(
      record.requests.map((entry) => entry.path),
      'requested',
    ).to.deep.equal(['/api/hop']);
    expect(chatRoot(element).querySelectorAll('a[href^="javascript:" i]'), 'javascript: links').to.have.length(0);
    const created = [...chatRoot(element).querySelectorAll('a, img, script')].map((node) => node.outerHTML);
    expect(created, 'elements created').to.deep.equal([]);
    expect(window.__canvasAiXss).to.equal(undefined);
    const bubble = errorBubbles(element).at(-1)!;
    expect(bubble.textContent).to.equal(hostile.replace('\n', ''));
    expect(bubble.querySelectorAll('br'), 'its newline').to.have.length(1);
    expect(bubble.closest('.canvas-ai-error')!.querySelector('.canvas-ai-error-code')!.textContent).to.equal(
      'provider_error',
    );
    expect(bubble.closest('.canvas-ai-error')!.getAttribute('role')).to.equal('alert');
  });

  it('escapes an error bubble as it escapes an answer', () => {
    expect(statusBubbleHtml('[a](javascript:b) <i>\n&amp;', 'x<y')).to.equal(
      '<div class="canvas-ai-error" role="alert"><div class="canvas-ai-error-text">[a](javascript:b) &lt;i&gt;<br>&amp;amp;</div>' +
        '<div class="canvas-ai-error-code">x&lt;y</div></div>',
    );
    expect(statusBubbleHtml('Saved', undefined, 'notice')).to.equal(
      '<div class="canvas-ai-notice" role="status"><div class="canvas-ai-notice-text">Saved</div></div>',
    );
  });

  it('shows ONE block per turn, updated in place on every hop', async () => {
    const server = hopServer([
      continuing({ progress: 'one' }),
      continuing({ progress: 'one\n\ntwo' }),
      final({ progress: 'one\n\ntwo\n\nthree', message: 'finished' }),
    ]);
    await useHandlers(...server.handlers);
    const element = await mountChat({ getLayout: emptyPage });
    const seen: string[] = [];
    element.addEventListener('canvas-ai-hop', () =>
      seen.push(
        progressBlocks(element)
          .map((block) => block.textContent)
          .join('|'),
      ),
    );

    await sendAndWait(element, 'Hi');

    expect(seen).to.have.length(3);
    expect(seen[0]).to.contain('one').and.not.contain('two');
    expect(seen[1]).to.contain('two');
    expect(progressBlocks(element)).to.have.length(1);
    expect(progressBlocks(element)[0]!.textContent).to.contain('three');
    // deep-chat lists the block once among its messages, as an html message.
    const blockMessages = element.chat!.getMessages().filter((message) => message.html?.includes('canvas-ai-progress'));
    expect(blockMessages).to.have.length(1);
  });

  it('on an error at hop 2: stops, shows the error and keeps the narration of hop 1', async () => {
    const server = hopServer([
      continuing({ progress: 'I will add a hero.' }),
      () =>
        HttpResponse.json(
          {
            status: false,
            should_continue: false,
            progress: 'I will add a hero.',
            message: 'The model provider is unavailable. Try again in a minute.',
            error: { code: 'provider_error' },
          },
          { status: 502 },
        ),
    ]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const element = await mountChat({ getLayout: emptyPage });
    const errors = collect(element, 'canvas-ai-error');

    const end = await sendAndWait(element, 'Add a hero');

    expect(end.detail.status).to.equal('error');
    expect(end.detail.error!.code).to.equal('provider_error');
    expect(errors).to.have.length(1);
    expect(errors[0]!.detail.error.message).to.equal('The model provider is unavailable. Try again in a minute.');
    expect(errorBubbles(element).at(-1)!.textContent).to.contain('The model provider is unavailable.');
    const block = progressBlocks(element)[0]!;
    expect(block.textContent).to.contain('I will add a hero.');
    expect(block.dataset.status).to.equal('failed');
    expect(block.querySelector('.canvas-ai-progress-icon-running')).to.equal(null);
    expect(record.posts()).to.have.length(2);
  });

  it('on an error code it does not know (429 rate_limited) at hop 2: shows the server message and keeps the narration of hop 1', async () => {
    const server = hopServer([
      continuing({ progress: 'I will add a hero.' }),
      // A code newer than this version: the body is still read (its message, its fuller narration).
      () =>
        HttpResponse.json(
          {
            status: false,
            should_continue: false,
            error: { code: 'rate_limited' },
            message: 'Slow down.',
            progress: 'I will add a hero.\n\nNow the cards.',
          },
          { status: 429 },
        ),
    ]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const element = await mountChat({ getLayout: emptyPage });

    const end = await sendAndWait(element, 'Add a hero');

    expect(end.detail.status).to.equal('error');
    expect(end.detail.error!.status).to.equal(429);
    expect(end.detail.error!.code).to.equal('rate_limited');
    expect(end.detail.error!.message).to.equal('Slow down.');
    expect(errorBubbles(element).at(-1)!.textContent!.trim()).to.equal('Slow down.');
    const blocks = progressBlocks(element);
    expect(blocks, "hop 1's block, not a new one").to.have.length(1);
    expect(blocks[0]!.querySelector('.canvas-ai-progress-text')!.textContent).to.equal(
      'I will add a hero.Now the cards.',
    );
    expect(blocks[0]!.dataset.status).to.equal('failed');
    // A 4xx other than 409 hop_in_progress and 403 csrf_invalid is not sent again.
    expect(record.posts()).to.have.length(2);
  });

  it('treats a schema-invalid response and a rejected fetch (once its retries ran out) as errors too', async () => {
    const element = await mountChat({ getLayout: emptyPage, retryDelays: [1] });
    await useHandlers(
      ...hopServer([continuing({ progress: 'step one' }), () => HttpResponse.json({ status: true, hop: 'two' })])
        .handlers,
    );
    const invalid = await sendAndWait(element, 'Go');
    expect(invalid.detail.error!.kind).to.equal('invalid_response');
    // deep-chat may lay the bubble out a task after the turn's end on a loaded machine (seen once in a full run).
    await waitUntil(() => errorBubbles(element).length > 0, 'no error bubble');
    expect(errorBubbles(element).at(-1)!.textContent).to.contain('does not follow the protocol');

    await useHandlers(...hopServer([continuing({ progress: 'step one' }), () => HttpResponse.error()]).handlers);
    const offline = await sendAndWait(element, 'Go again');
    expect(offline.detail.error!.kind).to.equal('network');
    // On the page's own origin the error is shown as the loop wrote it, naming no allowed-origins setting.
    await waitUntil(() => errorBubbles(element).length > 1, 'no second error bubble');
    expect(errorBubbles(element).at(-1)!.textContent).to.contain('could not be reached').and.not.contain('origin');
    expect(progressBlocks(element)).to.have.length(2);
    expect(progressBlocks(element).every((block) => block.dataset.status === 'failed')).to.equal(true);
  });

  it('keeps a reader who scrolled up where they are, and keeps a reader at the bottom pinned there', async () => {
    const gates = [deferred(), deferred(), deferred()];
    const lines = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => `Line ${from + index} of a long narration.`).join('\n\n');
    const element = await mountChat({ getLayout: emptyPage });
    await useHandlers(...hopServer([final({ message: lines(1, 30) })]).handlers);
    await sendAndWait(element, 'Tell me a lot');
    const scroller = chatRoot(element).querySelector<HTMLElement>('#messages')!;
    expect(scroller.scrollHeight).to.be.greaterThan(scroller.clientHeight);
    const blockText = () => progressBlocks(element).at(-1)?.textContent ?? '';
    const atBottom = () => scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop <= 8;

    const gated = (index: number, progress: string) => async (body: HopRequest) => {
      await gates[index]!.promise;
      return continuing({ progress })(body);
    };
    const server = hopServer([
      continuing({ progress: 'first step' }),
      gated(0, `first step\n\n${lines(1, 20)}`),
      gated(1, `first step\n\n${lines(1, 40)}`),
      gated(2, 'unused'),
    ]);
    await useHandlers(...server.handlers);
    const hops = collect(element, 'canvas-ai-hop');
    const ended = sendAndWait(element, 'Go on');
    await waitUntil(() => hops.length === 1 && server.received.length === 2, 'hop 1 did not arrive');
    await waitUntil(() => blockText().includes('first step'), 'hop 1 narration was not shown');
    await waitUntil(() => atBottom(), 'a reader at the bottom was not pinned after hop 1');

    // The reader scrolls up, then hop 2's narration grows the block: they stay where they are.
    scroller.scrollTop = 0;
    gates[0]!.resolve();
    await waitUntil(() => hops.length === 2, 'hop 2 did not arrive');
    // The view puts the reader back once deep-chat has laid the change out (a deferred step): waited for, not timed.
    await waitUntil(
      () => blockText().includes('Line 20 of') && scroller.scrollTop === 0,
      'hop 2 narration was not shown, or the reader was moved',
    );
    expect(scroller.scrollTop).to.equal(0);

    // Back at the bottom: hop 3 grows the block again (an update, not a new message) and they stay pinned.
    scroller.scrollTop = scroller.scrollHeight;
    const heightBefore = scroller.scrollHeight;
    gates[1]!.resolve();
    await waitUntil(() => hops.length === 3, 'hop 3 did not arrive');
    await waitUntil(
      () => blockText().includes('Line 40 of') && atBottom(),
      'hop 3 narration was not shown, or the reader was not kept at the bottom',
    );
    expect(scroller.scrollHeight).to.be.greaterThan(heightBefore);
    expect(scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop).to.be.at.most(8);

    element.stop();
    await ended;
    gates[2]!.resolve();
  });
});
