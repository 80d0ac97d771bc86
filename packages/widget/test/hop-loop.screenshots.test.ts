// A look at the page with the loop alone (spec §20.3), as a React or Vue host runs it: `getScreenshot` declares the
// wait and answers it with an image, the hop that answers is multipart with that one image; a host whose hook has
// nothing answers unavailable; without the hook nothing waits; a resumed turn asks its host again.
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect } from '@open-wc/testing';
import { resumeTurn, runTurn, type ResumableTurn, type ScreenshotRequest, startTurn } from '../src/loop.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

const SENT = 'The host sent the screenshot; the image follows.';
const UNAVAILABLE = 'The host cannot take a screenshot, so none was sent.';

/** A tiny PNG, as a host's canvas would give it. */
function png(): Promise<Blob> {
  const canvas = new OffscreenCanvas(4, 3);
  canvas.getContext('2d')!.fillRect(0, 0, 2, 2);
  return canvas.convertToBlob({ type: 'image/png' });
}

/** The screenshot scenario's turn over the reference server's mock, on the empty page. */
async function screenshotTurn() {
  const fixtures = await loadFixtures();
  const script = await scenario('screenshot-page');
  const record = recorder();
  await useHandlers(record.handler, ...createMockHandlers(fixtures));
  const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
  const base = {
    endpoint: '/api/hop',
    agent: 'page_builder',
    messages: [{ role: 'user' as const, text: script.user_message }],
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
  };
  return { record, base };
}

describe('a look at the page, with the loop alone', () => {
  it('declares the wait, asks getScreenshot and sends its image as the one attachment of the next hop', async () => {
    const { record, base } = await screenshotTurn();
    const asked: Array<[ScreenshotRequest, number]> = [];
    const result = await runTurn({
      ...base,
      getScreenshot: (request, info) => {
        asked.push([request, info.hop]);
        return png();
      },
    });
    expect(result.status).to.equal('done');
    expect(asked).to.deep.equal([[{}, 2]]);
    const posts = record.posts();
    expect(posts[0]!.body.capabilities).to.deep.equal({ outputs: [], waits: ['screenshot'] });
    expect(posts.map((post) => post.contentType)).to.deep.equal([
      'application/json',
      'application/json',
      'multipart/form-data',
    ]);
    expect(posts[2]!.parts).to.deep.equal([{ name: 'request' }, { name: 'attachments', file: 'attachment-1' }]);
    expect(posts[2]!.body.answer).to.deep.equal({ kind: 'screenshot', call_id: 'call_look', unavailable: false });
    expect(result.status === 'done' && result.response.message.startsWith(`${SENT} `)).to.equal(true);
  });

  it('answers unavailable, as JSON, when the hook has nothing to give; the model is told', async () => {
    const { record, base } = await screenshotTurn();
    const result = await runTurn({ ...base, getScreenshot: () => null });
    expect(result.status).to.equal('done');
    const answered = record.posts()[2]!;
    expect([answered.contentType, answered.body.answer]).to.deep.equal([
      'application/json',
      { kind: 'screenshot', call_id: 'call_look', unavailable: true },
    ]);
    expect(result.status === 'done' && result.response.message.startsWith(`${UNAVAILABLE} `)).to.equal(true);
  });

  it('answers unavailable when the hook fails: the turn goes on', async () => {
    const { record, base } = await screenshotTurn();
    const result = await runTurn({
      ...base,
      getScreenshot: () => {
        throw new Error('no canvas here');
      },
    });
    expect(result.status).to.equal('done');
    expect(record.posts()[2]!.body.answer).to.deep.equal({
      kind: 'screenshot',
      call_id: 'call_look',
      unavailable: true,
    });
  });

  it('declares no wait without the hook: the agent is not offered the look and nothing waits', async () => {
    const { record, base } = await screenshotTurn();
    const result = await runTurn(base);
    expect(result.status).to.equal('done');
    expect(record.posts()[0]!.body.capabilities).to.equal(undefined);
    expect(record.posts().every((post) => post.body.answer === undefined)).to.equal(true);
    expect(result.status === 'done' && result.response.message).to.match(/^Unknown tool `request_screenshot`/);
  });

  it('asks the host again before the next hop when a turn resumed after a reload waits for a screenshot', async () => {
    const { record, base } = await screenshotTurn();
    let kept: ResumableTurn | undefined;
    const abandoned = new AbortController();
    startTurn({
      ...base,
      signal: abandoned.signal,
      // The page reloads while its host takes the picture: the image never comes.
      getScreenshot: () => new Promise<Blob>(() => undefined),
      onHop: (report) => {
        kept = { requestId: report.requestId, agent: 'page_builder', hop: report.hop, changes: report.changes };
      },
    });
    while (kept?.hop !== 2) await new Promise((resolve) => setTimeout(resolve, 20));
    const asked: number[] = [];
    const outcome = await resumeTurn(kept, {
      ...base,
      getScreenshot: (_request, info) => {
        asked.push(info.hop);
        return png();
      },
    });
    const result = outcome.kind === 'resumed' ? await outcome.turn.result : undefined;
    expect(result?.status).to.equal('done');
    expect(asked).to.deep.equal([2]);
    const answered = record.posts().find((post) => post.body.answer !== undefined)!;
    expect([answered.body.hop, answered.contentType]).to.deep.equal([3, 'multipart/form-data']);
    abandoned.abort();
  });
});
