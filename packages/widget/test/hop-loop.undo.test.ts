// Undo and Stop and revert with the loop alone (spec §17), against the reference server's msw mock.
import { applyOutputs, TOOL_OUTPUT_TYPES, type CanvasDocument, type ToolOutput } from '@canvas-ai/protocol';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { expect, waitUntil } from '@open-wc/testing';
import {
  canUndo,
  changedPage,
  recordHop,
  noChanges,
  startTurn,
  undoNote,
  DEFAULT_STRINGS,
  undoNotices,
  undoRecording,
  undoTurn,
} from '../src/loop.js';
import { recordHopWithoutUndo } from '../src/turn-changes.js';
import { loadFixtures, scenario } from './support/fixtures.js';
import { holdHop } from './support/hold.js';
import { continuing, final, hopServer } from './support/hop-server.js';
import { recorder } from './support/recorder.js';
import { reducerHost } from './support/reducer-host.js';
import { useHandlers } from './support/worker.js';

const ALL = [...TOOL_OUTPUT_TYPES];

async function cookieShopTurn(
  options: { outputTypes?: readonly string[]; before?: Parameters<typeof useHandlers> } = {},
) {
  const fixtures = await loadFixtures();
  const shop = await scenario('cookie-shop');
  const record = recorder();
  await useHandlers(record.handler, ...(options.before ?? []), ...createMockHandlers(fixtures));
  const start: CanvasDocument = { layout: structuredClone(fixtures.layouts['layouts/empty.yaml']!), page: {} };
  const host = reducerHost(structuredClone(start));
  return { fixtures, shop, record, host, start };
}

/**
 * Starts the cookie-shop turn with the page builder against `host`, recording its undo; `options` are added to (or
 * override) the loop's.
 */
function startShopTurn(
  shop: Awaited<ReturnType<typeof scenario>>,
  host: ReturnType<typeof reducerHost>,
  options: Partial<Parameters<typeof startTurn>[0]> = {},
) {
  return startTurn({
    endpoint: '/api/hop',
    agent: 'page_builder',
    messages: [{ role: 'user', text: shop.user_message }],
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
    undo: undoRecording,
    ...options,
  });
}

describe('undo with the loop alone', () => {
  it('records what a turn changed and takes it back whole: the empty page and no page values', async () => {
    const { shop, record, host, start } = await cookieShopTurn();
    const result = await startShopTurn(shop, host, { outputTypes: ALL }).result;
    expect(result.status).to.equal('done');
    expect(result.changes.outputs.map((output) => output.call_id)).to.deep.equal(
      shop.hops.flatMap((hop) => hop.outputs.map((output) => output.call_id)),
    );
    expect(result.changes.inverse).to.have.length(result.changes.outputs.length);
    expect(result.changes.inverse[0]!.call_id, 'the last output is undone first').to.equal('call_7');
    expect(canUndo(result.changes, ALL)).to.equal(true);
    expect(canUndo(result.changes, []), 'a placement is undone by a removal').to.equal(false);
    expect(host.document.layout.regions.content!.components).to.have.length(5);

    const undone = await undoTurn(result.changes, host.applyOutputs);
    expect(undone.status).to.equal('undone');
    expect(host.document).to.deep.equal(start);
    expect(host.undos[0]!.info).to.deep.equal({ requestId: result.requestId, kind: 'undo' });
    expect(undoNote(undone)).to.equal('(I undid your last turn: the page is back as it was before it.)');

    // The capabilities go with hop 1 only, and name only what is beyond the v1 three.
    const posts = record.posts();
    expect(posts[0]!.body.capabilities).to.deep.equal({ outputs: ['remove_components', 'move_components'] });
    expect(posts.slice(1).some((post) => 'capabilities' in post.body)).to.equal(false);
  });

  it('declares nothing by default (a host that applies the v1 three), and the turn works', async () => {
    const { shop, record, host } = await cookieShopTurn();
    const result = await startShopTurn(shop, host).result;
    expect(result.status).to.equal('done');
    expect(record.posts()[0]!.body).not.to.have.property('capabilities');
  });

  it("keeps the person's later edit and says what it could not take back", async () => {
    const { shop, host } = await cookieShopTurn();
    const result = await startShopTurn(shop, host, { outputTypes: ALL }).result;
    const hero = host.document.layout.regions.content!.components[0]!;
    host.document = applyOutputs(host.document, [
      { type: 'edit_components', call_id: 'person', component_updates: { [hero.uuid]: { heading: 'Mine' } } },
    ]);

    const undone = await undoTurn(result.changes, host.applyOutputs);
    expect(undone.status).to.equal('partial');
    expect(undone.notUndone.map(({ output }) => output.type)).to.deep.equal(['remove_components']);
    expect(undone.notUndone[0]!.result.conflicts).to.deep.equal([
      { uuid: hero.uuid, prop: 'heading', expected: 'Fresh cookies, baked every morning', actual: 'Mine' },
    ]);
    expect(host.document.layout.regions.content!.components.map((node) => node.uuid)).to.deep.equal([hero.uuid]);
    expect(host.document.layout.regions.content!.components[0]!.props.heading).to.equal('Mine');
    expect(host.document.page).to.deep.equal({});
    expect(undoNote(undone)).to.match(/^\(I undid your last turn, except one change that could not be taken back: /);
  });

  it('stop and revert: stops while a hop is held, never applies it, and leaves the page as it was', async () => {
    const held = holdHop(4);
    const { shop, record, host, start } = await cookieShopTurn({ before: [held.handler] });
    const turn = startShopTurn(shop, host, { outputTypes: ALL, retryDelays: [] });
    await held.arrived;
    expect(host.document.layout.regions.content!.components, 'hops 2 and 3 placed two rows').to.have.length(2);
    const reverting = turn.revert();
    held.release();
    const undone = await reverting;
    expect(undone.reason).to.equal('revert');
    expect(undone.status).to.equal('undone');
    expect(host.document).to.deep.equal(start);
    expect((await turn.result).status).to.equal('stopped');
    expect(record.posts().map((post) => post.body.hop)).to.deep.equal([1, 2, 3, 4]);
    await waitUntil(() => record.deletes().length === 1, 'the turn was not cancelled on the server');
    expect(undoNote(undone)).to.equal(
      '(I stopped your last turn and undid what it had changed: the page is back as it was before it.)',
    );
  });
});

describe('a turn started without undo', () => {
  it('records what the host applied, with no inverse: an undo takes nothing back and says so', async () => {
    const { shop, host } = await cookieShopTurn();
    const inverses: number[] = [];
    const result = await startShopTurn(shop, host, {
      outputTypes: ALL,
      undo: undefined,
      onHop: (report) => inverses.push(report.inverse.length),
    }).result;
    expect(result.status).to.equal('done');
    const callIds = shop.hops.flatMap((hop) => hop.outputs.map((output) => output.call_id));
    expect(result.changes.outputs.map((output) => output.call_id)).to.deep.equal(callIds);
    expect(result.changes.unrecorded.map((output) => output.call_id)).to.deep.equal(callIds);
    expect(result.changes.inverse).to.deep.equal([]);
    expect(inverses, 'every hop reported, none with an inverse').to.deep.equal(shop.hops.map(() => 0));
    expect(changedPage(result.changes), 'the page did change').to.equal(true);
    expect(canUndo(result.changes, ALL)).to.equal(false);

    const page = structuredClone(host.document);
    const undone = await undoTurn(result.changes, host.applyOutputs);
    expect(undone.status).to.equal('failed');
    expect(undone.unrecorded).to.have.length(callIds.length);
    expect(host.undos, 'nothing was applied to the host').to.have.length(0);
    expect(host.document).to.deep.equal(page);
    expect(undoNote(undone)).to.match(/^\(I tried to undo your last turn, but could not: none of its changes/);
    // What the person reads names each change as the turn made it: a placement as adding, never as removing.
    const { notices } = undoNotices(undone, DEFAULT_STRINGS);
    expect(notices).to.have.length(callIds.length);
    const placements = notices.filter((notice) => notice.startsWith('Could not undo adding '));
    expect(placements, notices.join(' | ')).to.have.length(
      result.changes.outputs.filter((output) => output.type === 'place_components').length,
    );
    expect(
      notices.some((notice) => notice.startsWith('Could not undo removing')),
      notices.join(' | '),
    ).to.equal(false);
  });

  it('stop and revert only stops: the rows applied stay, and the result says nothing was taken back', async () => {
    const held = holdHop(4);
    const { shop, record, host } = await cookieShopTurn({ before: [held.handler] });
    const turn = startShopTurn(shop, host, { outputTypes: ALL, retryDelays: [], undo: undefined });
    await held.arrived;
    const reverting = turn.revert();
    held.release();
    const undone = await reverting;
    expect(undone).to.include({ reason: 'revert', status: 'failed', via: 'outputs' });
    expect(undone.unrecorded.map((output) => output.type)).to.include('place_components');
    expect(host.undos).to.have.length(0);
    expect(host.document.layout.regions.content!.components, 'the two rows of hops 2 and 3 stay').to.have.length(2);
    expect((await turn.result).status).to.equal('stopped');
    await waitUntil(() => record.deletes().length === 1, 'the turn was not cancelled on the server');
    expect(undoNote(undone)).to.match(/^\(I stopped your last turn, but could not undo what it had changed: /);
  });

  it('a turn resumed without undo reports what was recorded before the reload as staying, not as undone', async () => {
    const { shop, host } = await cookieShopTurn();
    const before = await startShopTurn(shop, host, { outputTypes: ALL }).result;
    expect(before.changes.inverse, 'the turn before the reload recorded its undo').to.have.length(7);
    const server = hopServer([final({ progress: 'Done.', message: 'Done.' })]);
    await useHandlers(...server.handlers);
    const page = structuredClone(host.document);

    const turn = startTurn({
      endpoint: '/api/hop',
      messages: [],
      requestId: before.requestId,
      getLayout: host.getLayout,
      applyOutputs: host.applyOutputs,
      resume: { hop: 8, changes: before.changes },
    });
    const undone = await turn.revert();
    expect(undone).to.include({ reason: 'revert', status: 'failed' });
    expect(undone.unrecorded).to.deep.equal(before.changes.outputs);
    expect(host.undos).to.have.length(0);
    expect(host.document).to.deep.equal(page);
    expect(undoNote(undone)).to.match(/^\(I stopped your last turn, but could not undo what it had changed: /);
  });
});

describe('recordHopWithoutUndo', () => {
  const title: ToolOutput = { type: 'set_page_value', call_id: 't', field: 'title', value: 'T' };
  const subtitle: ToolOutput = { type: 'set_page_value', call_id: 's', field: 'subtitle', value: 'S' };

  it('keeps what the host applied as unrecorded, not what it rejected', () => {
    const recorded = recordHopWithoutUndo(
      noChanges('r'),
      [title, subtitle],
      [
        { call_id: 't', status: 'rejected', reason: 'locked' },
        { call_id: 's', status: 'applied' },
      ],
    );
    expect(recorded.changes).to.deep.equal({
      requestId: 'r',
      outputs: [subtitle],
      inverse: [],
      unrecorded: [subtitle],
    });
    expect(recorded.inverse).to.deep.equal([]);
  });

  it('takes a host that returned nothing as having applied everything, and a hop without outputs as no change', () => {
    const changes = noChanges('r');
    expect(recordHopWithoutUndo(changes, [title, subtitle], undefined).changes.unrecorded).to.deep.equal([
      title,
      subtitle,
    ]);
    expect(recordHopWithoutUndo(changes, [], undefined).changes).to.equal(changes);
  });
});

describe('undo against a revision 1.1 server', () => {
  it('declares its outputs to a server that ignores the field, runs the turn, and still undoes it', async () => {
    const hero: ToolOutput = {
      type: 'place_components',
      call_id: 'c1',
      operations: [
        {
          target: 'content',
          placement: 'inside',
          components: [{ uuid: 'hero-9', component: 'sdc.demo.hero', props: { heading: 'Hi' } }],
        },
      ],
    };
    const title: ToolOutput = { type: 'set_page_value', call_id: 'c2', field: 'title', value: 'Hi' };
    // What a 1.1 server sends: the v1 outputs, no replaces, whatever the client declared.
    const server = hopServer([
      continuing({ progress: 'A hero.' }),
      continuing({ progress: 'A hero.', outputs: [hero, title] }),
      final({ progress: 'A hero.', message: 'Done.' }),
    ]);
    await useHandlers(...server.handlers);
    const start: CanvasDocument = { layout: { regions: { content: { components: [] } } }, page: {} };
    const host = reducerHost(structuredClone(start));
    const result = await startTurn({
      endpoint: '/api/hop',
      messages: [{ role: 'user', text: 'A hero' }],
      getLayout: host.getLayout,
      applyOutputs: host.applyOutputs,
      outputTypes: ALL,
      undo: undoRecording,
    }).result;
    expect(result.status).to.equal('done');
    expect(server.received[0]!.capabilities).to.deep.equal({ outputs: ['remove_components', 'move_components'] });
    expect(host.document.layout.regions.content!.components).to.have.length(1);
    expect((await undoTurn(result.changes, host.applyOutputs)).status).to.equal('undone');
    expect(host.document).to.deep.equal(start);
  });
});

describe('recordHop', () => {
  const page: CanvasDocument = { layout: { regions: { content: { components: [] } } }, page: {} };
  const title: ToolOutput = { type: 'set_page_value', call_id: 't', field: 'title', value: 'T' };
  const nowhere: ToolOutput = {
    type: 'place_components',
    call_id: 'p',
    operations: [{ target: 'sidebar', placement: 'inside', components: [{ uuid: 'x', component: 'c', props: {} }] }],
  };

  it('keeps the inverse of what the host applied only, and an output without one as unrecorded', () => {
    const recorded = recordHop(
      noChanges('r'),
      page,
      [title, nowhere],
      [
        { call_id: 't', status: 'rejected', reason: 'locked' },
        { call_id: 'p', status: 'applied' },
      ],
    );
    expect(recorded.changes.outputs).to.deep.equal([nowhere]);
    expect(recorded.changes.inverse).to.deep.equal([]);
    expect(recorded.changes.unrecorded).to.deep.equal([nowhere]);
  });

  it('takes a host that returned nothing as having applied everything', () => {
    const recorded = recordHop(noChanges('r'), page, [title], undefined);
    expect(recorded.inverse.map((output) => output.type)).to.deep.equal(['set_page_value']);
  });
});
