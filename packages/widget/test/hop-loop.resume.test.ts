// Resume after a reload with the loop alone (spec §18): a lost response replayed, a missed final answer, a turn the
// server no longer has, and a revision 1.1 server without the status endpoint.
import { HopError } from '@canvas-ai/protocol/server';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect } from '@open-wc/testing';
import { http } from 'msw';
import { resumeTurn, startTurn, turnStanding, type ResumableTurn, undoRecording } from '../src/loop.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { continuing, final, hopServer } from './support/hop-server.js';
import { loseResponse } from './support/hold.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

/** Plays the cookie-shop turn until the response of hop `lost` is lost; returns what a reload would have kept. */
async function turnLosing(lost: number) {
  const fixtures = await loadFixtures();
  const shop = await scenario('cookie-shop');
  const losing = loseResponse(lost);
  const record = recorder();
  await useHandlers(losing.handler, record.handler, ...createMockHandlers(fixtures));
  const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
  let kept: ResumableTurn | undefined;
  const abandoned = new AbortController();
  const turn = startTurn({
    endpoint: '/api/hop',
    agent: 'page_builder',
    messages: [{ role: 'user', text: shop.user_message }],
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
    undo: undoRecording,
    signal: abandoned.signal,
    onHop: (report) => {
      kept = {
        requestId: report.requestId,
        agent: 'page_builder',
        hop: report.hop,
        applyResults: report.applyResults,
        changes: report.changes,
      };
    },
  });
  await losing.answered;
  // The page that sent it is gone: nothing more comes from its loop (its last request never gets an answer).
  return { shop, record, host, kept: kept!, turn, abandon: () => abandoned.abort() };
}

describe('resume after a reload, with the loop alone', () => {
  it('resends the hop whose response was lost, applies the replay to the page as it is, and finishes with every row once', async () => {
    const { shop, record, host, kept, abandon } = await turnLosing(4);
    expect(kept.hop).to.equal(3);
    expect(await turnStanding(kept.requestId, { endpoint: '/api/hop' })).to.include({ state: 'active', hop: 4 });
    const sentBefore = record.posts().length;

    const outcome = await resumeTurn(kept, {
      endpoint: '/api/hop',
      messages: [{ role: 'user', text: shop.user_message }],
      getLayout: host.getLayout,
      applyOutputs: host.applyOutputs,
      undo: undoRecording,
    });
    expect(outcome.kind).to.equal('resumed');
    const result = outcome.kind === 'resumed' ? await outcome.turn.result : undefined;
    expect(result?.status).to.equal('done');
    const resumed = record.posts().slice(sentBefore);
    expect(resumed.map((post) => post.body.hop)).to.deep.equal([4, 5, 6, 7, 8]);
    expect(resumed[0]!.body.apply_results, "hop 3's results, as kept").to.deep.equal(kept.applyResults);
    const rows = host.document.layout.regions.content!.components.map((node) => node.uuid);
    expect(rows).to.have.length(5);
    expect(new Set(rows).size).to.equal(5);
    if (result?.status === 'done') {
      expect(result.response.message).to.equal(shop.hops.at(-1)!.message);
      // The undo covers the whole turn, the hops before the reload included.
      expect(result.changes.outputs).to.have.length(7);
      expect(result.changes.inverse).to.have.length(7);
    }
    abandon();
  });

  it('gives the final answer it missed, and sends nothing', async () => {
    const { shop, record, host, kept, abandon } = await turnLosing(8);
    const sentBefore = record.posts().length;
    const outcome = await resumeTurn(kept, {
      endpoint: '/api/hop',
      messages: [{ role: 'user', text: shop.user_message }],
      getLayout: host.getLayout,
      applyOutputs: host.applyOutputs,
    });
    expect(outcome.kind).to.equal('finished');
    if (outcome.kind === 'finished') expect(outcome.response.message).to.equal(shop.hops.at(-1)!.message);
    expect(record.posts().length).to.equal(sentBefore);
    abandon();
  });

  it('says a turn the server no longer has is gone, and sends no hop', async () => {
    const fixtures = await loadFixtures();
    const record = recorder();
    await useHandlers(record.handler, ...createMockHandlers(fixtures));
    const host = reducerHost({ layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} });
    const outcome = await resumeTurn(
      { requestId: `never-${crypto.randomUUID()}`, hop: 2 },
      { endpoint: '/api/hop', messages: [], getLayout: host.getLayout, applyOutputs: host.applyOutputs },
    );
    expect(outcome.kind).to.equal('gone');
    expect(record.posts()).to.have.length(0);
  });

  it('with a revision 1.1 server (no status endpoint, 405), sends the next hop directly and goes on', async () => {
    const server = hopServer([
      continuing({ progress: 'One.' }),
      continuing({ progress: 'One.' }),
      final({ progress: 'One.', message: 'Done.' }),
    ]);
    const record = recorder();
    const noStatus = http.get('*/api/hop/:id', () =>
      new HopError('method_not_allowed', 'GET is not served here.').toResponse({ Allow: 'DELETE' }),
    );
    await useHandlers(record.handler, noStatus, ...server.handlers);
    const host = reducerHost({ layout: { regions: { content: { components: [] } } }, page: {} });
    const outcome = await resumeTurn(
      { requestId: 'old-server-turn', hop: 1 },
      { endpoint: '/api/hop', messages: [], getLayout: host.getLayout, applyOutputs: host.applyOutputs },
    );
    expect(outcome.kind).to.equal('resumed');
    if (outcome.kind === 'resumed') {
      expect(outcome.standing.state).to.equal('unknown');
      expect((await outcome.turn.result).status).to.equal('done');
    }
    expect(server.received.map((body) => body.hop)).to.deep.equal([2, 3]);
    expect(server.received[0]).not.to.have.property('messages');
  });
});
