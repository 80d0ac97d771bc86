// Stopping a turn: the stop control, the public stop(), and removing the element mid-turn.
import { expect, waitUntil } from '@open-wc/testing';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import {
  bubbles,
  collect,
  mountChat,
  pickerRoot,
  progressBlocks,
  sendAndWait,
  stopButton,
  unmountAll,
} from './support/chat.js';
import { continuing, deferred, final, hopServer } from './support/hop-server.js';
import { recorder } from './support/recorder.js';
import { useHandlers } from './support/worker.js';

const emptyPage = () => ({ layout: { regions: { content: { components: [] } } } });

/** A server whose hop 2 hangs until the test releases it; hop 3 would end the turn. */
async function slowSecondHop() {
  const gate = deferred();
  const server = hopServer([
    continuing({ progress: 'Adding a hero first.' }),
    async (body) => {
      await gate.promise;
      return continuing({ progress: 'Adding a hero first.\n\nNow the footer.' })(body);
    },
    final({ message: 'All done.' }),
  ]);
  const record = recorder();
  await useHandlers(record.handler, ...server.handlers);
  return { gate, server, record };
}

describe('<canvas-ai-chat> stop', () => {
  afterEach(unmountAll);

  it('shows a stop control while a turn runs, and stopping sends the cancel and no further hop', async () => {
    const { gate, server, record } = await slowSecondHop();
    const element = await mountChat({ getLayout: emptyPage });
    expect(stopButton(element)).to.equal(null);

    const ended = sendAndWait(element, 'Build a page');
    await waitUntil(() => server.received.length === 2, 'hop 2 was not sent');
    await element.updateComplete;
    const stop = stopButton(element);
    expect(stop, 'the stop control is visible mid-turn').not.to.equal(null);
    expect(stop!.getBoundingClientRect().width).to.be.greaterThan(0);
    stop!.click();
    const end = await ended;
    const requestId = end.detail.requestId;
    await waitUntil(
      () => record.deletes().some((entry) => entry.path === `/api/hop/${requestId}`),
      'the cancel was not sent',
    );
    gate.resolve();

    expect(end.detail.status).to.equal('stopped');
    expect(record.posts()).to.have.length(2);
    await element.updateComplete;
    expect(stopButton(element)).to.equal(null);
    expect(progressBlocks(element)).to.have.length(1);
    expect(progressBlocks(element)[0]!.dataset.status).to.equal('stopped');
    expect(progressBlocks(element)[0]!.textContent).to.contain('Adding a hero first.');
    // The chat takes the next message normally.
    await useHandlers(record.handler, ...hopServer([final({ message: 'Hello again.' })]).handlers);
    const next = await sendAndWait(element, 'Hi');
    expect(next.detail.status).to.equal('done');
  });

  it('stops through the public stop() method too', async () => {
    const { gate, server, record } = await slowSecondHop();
    const element = await mountChat({ getLayout: emptyPage });

    const ended = sendAndWait(element, 'Build a page');
    await waitUntil(() => server.received.length === 2, 'hop 2 was not sent');
    expect(element.running).to.equal(true);
    element.stop();
    const end = await ended;
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
    gate.resolve();

    expect(end.detail.status).to.equal('stopped');
    expect(element.running).to.equal(false);
    expect(record.posts()).to.have.length(2);
  });

  it('stops the turn when the element is removed mid-turn: cancel sent, no POST after', async () => {
    const { gate, server, record } = await slowSecondHop();
    const element = await mountChat({ getLayout: emptyPage });
    const ends = collect(element, 'canvas-ai-turn-end');

    element.sendMessage('Build a page');
    await waitUntil(() => server.received.length === 2, 'hop 2 was not sent');
    element.remove();
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
    gate.resolve();
    await waitUntil(() => ends.length === 1, 'the turn did not end');

    expect(ends[0]!.detail.status).to.equal('stopped');
    expect(record.deletes()[0]!.path).to.equal(`/api/hop/${ends[0]!.detail.requestId}`);
    // The turn has ended (the loop awaits every hop it sends) and the server has answered everything it received,
    // hop 2 included now that it is released: no request can still be coming. Still no third hop.
    await waitUntil(() => server.idle(), 'the server did not answer every request');
    expect(record.posts()).to.have.length(2);
  });

  it('says "Stopped" even when no narration had arrived yet', async () => {
    const gate = deferred();
    const server = hopServer([
      async (body) => {
        await gate.promise;
        return continuing({ progress: 'late' })(body);
      },
    ]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const element: CanvasAiChat = await mountChat({ getLayout: emptyPage });

    const ended = sendAndWait(element, 'Build a page');
    await waitUntil(() => server.received.length === 1, 'hop 1 was not sent');
    element.stop();
    const end = await ended;
    await waitUntil(() => record.deletes().length === 1, 'the cancel was not sent');
    gate.resolve();

    expect(end.detail.status).to.equal('stopped');
    expect(progressBlocks(element)).to.have.length(1);
    expect(progressBlocks(element)[0]!.dataset.status).to.equal('stopped');
    expect(progressBlocks(element)[0]!.textContent).not.to.contain('late');
  });

  it('marks the step the narration announced last as not run, and tells the next turn the turn was stopped', async () => {
    const gate = deferred();
    const server = hopServer([
      continuing({ progress: 'I will add a hero.' }),
      continuing({ progress: 'I will add a hero.\n\nNext, the footer.' }),
      async (body) => {
        await gate.promise;
        return final({ message: 'Too late.' })(body);
      },
    ]);
    const record = recorder();
    await useHandlers(record.handler, ...server.handlers);
    const element = await mountChat({ getLayout: emptyPage });

    const ended = sendAndWait(element, 'Build a page');
    await waitUntil(() => server.received.length === 3, 'hop 3 was not sent');
    element.stop();
    expect((await ended).detail.status).to.equal('stopped');
    gate.resolve();

    const block = progressBlocks(element)[0]!;
    const notRun = block.querySelector('.canvas-ai-not-run');
    expect(notRun, 'the last announced step is marked').not.to.equal(null);
    expect(notRun!.querySelector('del')!.textContent).to.equal('Next, the footer.');
    expect(notRun!.textContent).to.contain('Not done');
    expect(block.querySelector('.canvas-ai-progress-text')!.textContent).to.contain('I will add a hero.');
    expect(bubbles(element).at(-1)!.textContent).to.contain('You stopped the agent.');

    await useHandlers(record.handler, ...hopServer([final({ message: 'Hello again.' })]).handlers);
    expect((await sendAndWait(element, 'Hi')).detail.status).to.equal('done');
    const transcript = record.posts().at(-1)!.body.messages ?? [];
    expect(transcript.map((message) => message.role)).to.deep.equal(['user', 'user', 'user']);
    expect(transcript[1]!.text).to.equal(
      '(I stopped your last turn before it finished. It had not changed the page. ' +
        'The step it announced last did not run: “Next, the footer.”)',
    );
  });

  it('refuses sendMessage while a turn runs: nothing sent, the pick untouched, the reason shown until the end', async () => {
    const { gate, server, record } = await slowSecondHop();
    const element = await mountChat({
      getLayout: emptyPage,
      agents: {
        main_agent: { id: 'qa', label: 'Q&A', description: 'Answers.' },
        tools: [{ id: 'page_builder', label: 'Page builder', description: 'Builds pages.' }],
      },
    });

    const ended = sendAndWait(element, 'Build a page');
    await waitUntil(() => server.received.length === 2, 'hop 2 was not sent');
    expect(element.sendMessage('Something else', { agent: 'page_builder' })).to.equal(false);
    await element.updateComplete;
    const notice = () => element.shadowRoot!.querySelector<HTMLElement>('[part="notice"]');
    expect(notice()!.textContent).to.contain('Wait for the current answer');
    const announced = element.shadowRoot!.querySelector('[part="announcer"]')!;
    expect(announced.getAttribute('aria-live')).to.equal('polite');
    expect(announced.lastElementChild!.textContent, 'screen readers hear the refusal').to.contain(
      'Wait for the current',
    );
    expect(pickerRoot(element)!.querySelector('[part="chip"]'), 'a refused message picks no agent').to.equal(null);

    gate.resolve();
    expect((await ended).detail.status).to.equal('done');
    await element.updateComplete;
    expect(notice(), 'the notice goes once the turn has ended').to.equal(null);
    expect(record.posts()).to.have.length(3);
    expect(record.posts().every((post) => post.body.agent === undefined)).to.equal(true);
    expect(bubbles(element).some((bubble) => bubble.textContent?.includes('Something else'))).to.equal(false);
  });
});
