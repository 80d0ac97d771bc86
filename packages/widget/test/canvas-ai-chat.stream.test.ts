// The element over streamed hops (spec §6, revision 1.4): live narration in the one block, outputs applied before
// the response line, the answer moved into its bubble once and kept in the next turn's transcript, stop, errors,
// cut streams, JSON-only servers and `no-stream`. Streams are written by hand and held open between lines.
import type { HopRequest, ToolOutput } from '@canvas-ai/protocol';
import { answerResponse, continuingResponse, HopError } from '@canvas-ai/protocol/server';
import { expect, waitUntil } from '@open-wc/testing';
import { STREAM_ACCEPT } from '../src/hop-loop.js';
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
import { deferred, final, hopServer, type HopStep } from './support/hop-server.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { streamed, type StreamWriter } from './support/stream-server.js';
import { useHandlers } from './support/worker.js';

const AGENT = { id: 'page_builder', label: 'Page builder' };
const emptyPage = () => ({ layout: { regions: { content: { components: [] } } }, page: {} });
const head = (body: HopRequest, outputs: ToolOutput[] = []) => ({
  requestId: body.request_id,
  hop: body.hop,
  agent: AGENT,
  outputs,
});
const TITLE: ToolOutput = { type: 'set_page_value', call_id: 'call_1', field: 'title', value: 'Cookies' };

/** The text of the narration block (its status row aside). */
const narration = (element: HTMLElement & { chat?: unknown }) =>
  progressBlocks(element as never)[0]?.querySelector('.canvas-ai-progress-text')?.textContent ?? '';
const announced = (element: HTMLElement) =>
  [...element.shadowRoot!.querySelectorAll('[part="announcer"] p')].map((line) => line.textContent);

/** A hop step the test drives: the stream's writing end and the request are handed over when the hop arrives. */
function heldStream() {
  const arrived = deferred<{ body: HopRequest; stream: StreamWriter }>();
  const step: HopStep = streamed((body, stream) => arrived.resolve({ body, stream }));
  return { step, arrived: arrived.promise };
}

describe('<canvas-ai-chat> over streamed hops', () => {
  afterEach(unmountAll);

  it("keeps a streamed one-hop answer in the next turn's transcript", async () => {
    const server = hopServer([
      (body) =>
        body.messages!.length === 1
          ? streamed((request, stream) => {
              stream.send({ type: 'text', delta: 'Cookies are ' });
              stream.send({ type: 'text', delta: 'baked daily.' });
              stream.send({ type: 'response', response: answerResponse(head(request), ['Cookies are baked daily.']) });
              stream.close();
            })(body)
          : final({ message: 'Noted.' })(body),
    ]);
    await useHandlers(...server.handlers);
    const element = await mountChat({ getLayout: emptyPage });

    const first = await sendAndWait(element, 'When are cookies baked?');
    expect(first.detail.status).to.equal('done');
    const second = await sendAndWait(element, 'Thanks');
    expect(second.detail.status).to.equal('done');

    expect(server.received[1]!.messages).to.deep.equal([
      { role: 'user', text: 'When are cookies baked?' },
      { role: 'assistant', text: 'Cookies are baked daily.' },
      { role: 'user', text: 'Thanks' },
    ]);
    // The answer shows once, in its bubble; the live text left the narration block.
    const answers = bubbles(element).filter((bubble) => bubble.textContent!.trim() === 'Cookies are baked daily.');
    expect(answers).to.have.length(1);
    expect(narration(element)).to.equal('');
  });

  it('shows no empty status block when the frame that would show the live text comes after the answer', async () => {
    // A busy page: the frame is held until the turn has ended and the live text has become the answer.
    const held = new Map<number, FrameRequestCallback>();
    let lastId = 0;
    const realRequest = window.requestAnimationFrame;
    const realCancel = window.cancelAnimationFrame;
    window.requestAnimationFrame = (callback) => {
      lastId += 1;
      held.set(lastId, callback);
      return lastId;
    };
    window.cancelAnimationFrame = (id) => held.delete(id);
    try {
      const server = hopServer([
        streamed((request, stream) => {
          stream.send({ type: 'text', delta: 'Cookies are baked daily.' });
          stream.send({ type: 'response', response: answerResponse(head(request), ['Cookies are baked daily.']) });
          stream.close();
        }),
      ]);
      await useHandlers(...server.handlers);
      const element = await mountChat({ getLayout: emptyPage });
      const end = await sendAndWait(element, 'When are cookies baked?');
      expect(end.detail.status).to.equal('done');
      const shown = bubbles(element).map((bubble) => bubble.textContent!.trim());
      expect(lastId).to.be.greaterThan(0, 'the live text asked for a frame');

      for (const callback of held.values()) callback(performance.now());
      held.clear();
      expect(bubbles(element).map((bubble) => bubble.textContent!.trim())).to.deep.equal(shown);
      expect(progressBlocks(element)).to.have.length(0);
    } finally {
      window.requestAnimationFrame = realRequest;
      window.cancelAnimationFrame = realCancel;
    }
  });

  it('applies the outputs line before the response line arrives, and grows the narration in one block', async () => {
    const hop2 = heldStream();
    const server = hopServer([
      (body) =>
        new Response(JSON.stringify(continuingResponse(head(body), ['I will set the title.'])), {
          headers: { 'Content-Type': 'application/json' },
        }),
      hop2.step,
      final({ progress: 'I will set the title.\n\nNow <b>bold</b> & done.', message: 'Your page has a title.' }),
    ]);
    await useHandlers(...server.handlers);
    const host = reducerHost(emptyPage());
    const element = await mountChat({ getLayout: host.getLayout, applyOutputs: host.applyOutputs });
    const hops = collect(element, 'canvas-ai-hop');
    const ended = collect(element, 'canvas-ai-turn-end');

    element.sendMessage('Give the page a title');
    const { body, stream } = await hop2.arrived;
    stream.send({ type: 'outputs', outputs: [TITLE] });
    // On the page while the hop's response has not been written: the stream is held open.
    await waitUntil(() => host.document.page.title === 'Cookies', 'the outputs were not applied before the response');
    expect(hops.map((event) => event.detail.hop)).to.deep.equal([1]);

    stream.send({ type: 'text', delta: 'Now <b>bold</b>' });
    await waitUntil(() => narration(element).endsWith('Now <b>bold</b>'), 'the first piece did not show');
    stream.send({ type: 'keepalive' });
    stream.send({ type: 'text', delta: ' & done.' });
    await waitUntil(() => narration(element).endsWith('Now <b>bold</b> & done.'), 'the narration did not grow');
    // One block, the text escaped: no element made of it.
    expect(progressBlocks(element)).to.have.length(1);
    expect(narration(element)).to.equal('I will set the title.Now <b>bold</b> & done.');
    expect(progressBlocks(element)[0]!.querySelectorAll('.canvas-ai-progress-text b')).to.have.length(0);
    expect(ended).to.have.length(0);

    stream.send({
      type: 'response',
      response: continuingResponse(head(body, [TITLE]), ['I will set the title.', 'Now <b>bold</b> & done.']),
    });
    stream.close();
    await waitUntil(() => ended.length === 1, 'the turn did not end');
    expect(ended[0]!.detail.status).to.equal('done');
    expect(progressBlocks(element)).to.have.length(1);
    expect(narration(element)).to.equal('I will set the title.Now <b>bold</b> & done.');
    // Hop 3 was told hop 2's output was applied; the outputs were applied once.
    expect(server.received[2]!.apply_results).to.deep.equal([{ call_id: 'call_1', status: 'applied' }]);
    expect(ended[0]!.detail.outputs).to.deep.equal([TITLE]);
    // Read out a sentence at a time, each once.
    expect(announced(element).filter((line) => line === 'Now <b>bold</b> & done.')).to.have.length(1);
  });

  it('stops mid-stream: the stream is aborted, the server told, and what the hop applied stays undoable', async () => {
    const hop1 = heldStream();
    const server = hopServer([hop1.step]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const host = reducerHost(emptyPage());
    const element = await mountChat({ getLayout: host.getLayout, applyOutputs: host.applyOutputs });
    const ended = collect(element, 'canvas-ai-turn-end');

    element.sendMessage('Title please');
    const { stream } = await hop1.arrived;
    stream.send({ type: 'outputs', outputs: [TITLE] });
    stream.send({ type: 'text', delta: 'Next I will ' });
    await waitUntil(() => narration(element) === 'Next I will', 'the text did not show');
    element.stop();
    await waitUntil(() => ended.length === 1, 'the turn did not end');
    expect(ended[0]!.detail.status).to.equal('stopped');
    expect(ended[0]!.detail.outputs).to.deep.equal([TITLE]);
    await waitUntil(() => record.requests.some((request) => request.method === 'DELETE'), 'no cancel was sent');
    // The cut decision's text is dropped: the server keeps nothing of it.
    expect(narration(element)).to.equal('');
    expect(host.document.page.title).to.equal('Cookies');
    await element.updateComplete;
    expect(element.canUndo).to.equal(true);
  });

  it('shows an error line as the error bubble, with its code, and keeps the narration so far', async () => {
    const server = hopServer([
      streamed(async (body, stream) => {
        stream.send({ type: 'text', delta: 'Let me th' });
        const failure = new HopError('provider_error', 'The model provider failed. Try again.', {
          requestId: body.request_id,
          progress: 'Earlier narration.',
        });
        stream.send({ type: 'error', status: 502, error: await failure.toResponse().json() });
        stream.close();
      }),
    ]);
    await useHandlers(...server.handlers);
    const element = await mountChat({ getLayout: emptyPage });

    const end = await sendAndWait(element, 'Hi');
    expect(end.detail.status).to.equal('error');
    expect(end.detail.error?.code).to.equal('provider_error');
    await waitUntil(() => errorBubbles(element).length > 0, 'no error bubble');
    expect(errorBubbles(element).map((bubble) => bubble.textContent)).to.deep.equal([
      'The model provider failed. Try again.',
    ]);
    expect(chatRoot(element).querySelector('.canvas-ai-error-code')?.textContent).to.equal('provider_error');
    expect(narration(element)).to.equal('Earlier narration.');
    expect(server.received).to.have.length(1);
  });

  it('sends a cut hop again and finishes with the replayed response, its outputs applied once', async () => {
    let tries = 0;
    const applied: ToolOutput[][] = [];
    const server = hopServer([
      streamed((body, stream) => {
        tries += 1;
        if (tries === 1) {
          stream.send({ type: 'outputs', outputs: [TITLE] });
          stream.send({ type: 'text', delta: 'Half' });
          stream.cut();
          return;
        }
        stream.send({ type: 'response', response: continuingResponse(head(body, [TITLE]), ['Half a step.']) });
        stream.close();
      }),
      final({ progress: 'Half a step.', message: 'Done.' }),
    ]);
    await useHandlers(...server.handlers);
    const host = reducerHost(emptyPage());
    const element = await mountChat({
      getLayout: host.getLayout,
      applyOutputs: (outputs, response, info) => {
        applied.push(outputs);
        return host.applyOutputs(outputs, response, info);
      },
      retryDelays: [0, 0],
    });

    const end = await sendAndWait(element, 'Title please');
    expect(end.detail.status).to.equal('done');
    expect(server.received.map((body) => body.hop)).to.deep.equal([1, 1, 2]);
    expect(applied.filter((outputs) => outputs.length > 0)).to.deep.equal([[TITLE]]);
    expect(narration(element)).to.equal('Half a step.');
  });

  it('asks for the stream, and still runs turns against a JSON-only (revision 1.3) server', async () => {
    const server = hopServer([final({ progress: '', message: 'Plain JSON.' })]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const element = await mountChat({ getLayout: emptyPage });

    const end = await sendAndWait(element, 'Hi');
    expect(end.detail.status).to.equal('done');
    const post = record.requests.find((request) => request.method === 'POST')!;
    expect(post.headers.get('accept')).to.equal(STREAM_ACCEPT);
    expect(bubbles(element).some((bubble) => bubble.textContent!.trim() === 'Plain JSON.')).to.equal(true);
  });

  it('asks for JSON only with the no-stream attribute', async () => {
    const server = hopServer([final({ progress: '', message: 'Plain JSON.' })]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const parent = document.createElement('div');
    parent.innerHTML = '<canvas-ai-chat no-stream></canvas-ai-chat>';
    const element = parent.firstElementChild as HTMLElementTagNameMap['canvas-ai-chat'];
    expect(element.noStream).to.equal(true);
    parent.remove();
    const chat = await mountChat({ getLayout: emptyPage, noStream: true });

    const end = await sendAndWait(chat, 'Hi');
    expect(end.detail.status).to.equal('done');
    const post = record.requests.find((request) => request.method === 'POST')!;
    expect(post.headers.get('accept')).to.equal('application/json');
  });
});
