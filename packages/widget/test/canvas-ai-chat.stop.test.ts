// Stopping a turn: the stop control, the public stop(), and removing the element mid-turn.
import { expect, waitUntil } from '@open-wc/testing';
import type { CanvasAiChat } from '../src/canvas-ai-chat/canvas-ai-chat.component.js';
import { collect, mountChat, progressBlocks, sendAndWait, stopButton, unmountAll } from './support/chat.js';
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
});
