// The msw mock (src/mock.ts): the reference server itself behind msw handlers, with the options a host developer sets.
import { strict as assert } from 'node:assert';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { setupServer } from 'msw/node';
import {
  AgentsResponse,
  CancelResponse,
  HopErrorBody,
  HopResponse,
  PROTOCOL_VERSION,
  TokenResponse,
  applyOutputs,
  type CanvasDocument,
  type HopRequest,
  type HopRequestInput,
} from '@canvas-ai/protocol';
import { driveScenario, type Scenario } from '@canvas-ai/protocol/scenario';
import { loadFixtures } from '@canvas-ai/protocol/node';
import { createMockHandlers } from '../src/mock.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import type { JsonBody } from './support/harness.js';
import { STREAM_ACCEPT, StreamReader, streamedText, streamProblems } from './support/stream-client.js';

const fixtures = await loadFixtures();
const ORIGIN = 'http://mock.test';
const ENDPOINT = `${ORIGIN}/api/hop`;
const received: HopRequest[] = [];
const attachmentsSeen: Array<{ requestId: string; mediaType: string; size: number }> = [];
const server = setupServer(
  ...createMockHandlers({
    scenarios: fixtures.scenarios,
    catalog: fixtures.catalog,
    agents: fixtures.agents,
    onHopRequest: (request, details) => {
      received.push(request);
      for (const attachment of details.attachments) {
        attachmentsSeen.push({
          requestId: request.request_id,
          mediaType: attachment.mediaType,
          size: attachment.bytes.length,
        });
      }
    },
  }),
);

before(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
after(() => server.close());

function scenario(id: string): Scenario {
  const found = fixtures.scenarios.find((candidate) => candidate.id === id);
  assert.ok(found, `scenario ${id} exists`);
  return found;
}

/** Hop 1 of a scenario's turn, as a client would send it. */
function firstHop(of: Scenario, requestId: string): HopRequestInput {
  return {
    protocol: PROTOCOL_VERSION,
    request_id: requestId,
    hop: 1,
    ...(of.agent ? { agent: of.agent } : {}),
    messages: [{ role: 'user', text: of.user_message }],
    context: { current_layout: fixtures.layouts[of.layout]!, page: {}, selected_component: null },
  };
}

async function post(body: unknown, endpoint = ENDPOINT): Promise<{ status: number; body: JsonBody }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

function countTopLevelRows(document: CanvasDocument): number {
  return document.layout.regions.content!.components.length;
}

describe('the msw mock serves every scenario', () => {
  it('has scenario files to play: one test per fixtures/scenarios/*.yaml', async () => {
    const files = (await readdir(join(fixtures.dir, 'scenarios'))).filter((name) => name.endsWith('.yaml'));
    assert.ok(files.length > 0, 'no scenario file');
    assert.equal(fixtures.scenarios.length, files.length);
  });

  for (const each of fixtures.scenarios) {
    it(`plays "${each.id}" hop by hop with zero mismatches`, async () => {
      const run = await driveScenario(each, { endpoint: ENDPOINT, fixtures });
      const mismatches = run.hops.flatMap((hop) => hop.mismatches);
      assert.deepEqual(mismatches, []);
      assert.equal(run.hops.length, each.hops.length);
      assert.equal(run.passed, true);
    });
  }

  it('receives the PNG of the image-attachment scenario as a multipart attachment on hop 1', async () => {
    const run = await driveScenario(scenario('image-attachment'), { endpoint: ENDPOINT, fixtures });
    assert.equal(run.passed, true);
    const seen = attachmentsSeen.filter((attachment) => attachment.requestId === run.requestId);
    assert.deepEqual(seen, [
      {
        requestId: run.requestId,
        mediaType: 'image/png',
        size: fixtures.attachments['attachments/cookie.png']!.length,
      },
    ]);
    const hero = run.document.layout.regions.content!.components[0]!;
    assert.deepEqual(hero.props.image, { src: 'attachments/cookie.png', alt: 'A round chocolate chip cookie' });
  });
});

describe('a streamed hop through the mock (spec §6.1)', () => {
  it('passes the NDJSON stream through msw: the outputs line, the words, the response last', async () => {
    const shop = scenario('cookie-shop');
    const requestId = `mock-stream-${crypto.randomUUID()}`;
    const hop = async (body: unknown) => {
      const reply = await fetch(ENDPOINT, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: STREAM_ACCEPT },
        body: JSON.stringify(body),
      });
      assert.equal(reply.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
      return new StreamReader(reply.body!).all();
    };
    const first = await hop(firstHop(shop, requestId));
    const { messages: _messages, ...later } = firstHop(shop, requestId);
    const second = await hop({ ...later, hop: 2 });
    for (const lines of [first, second]) assert.deepEqual(streamProblems(lines), []);
    assert.ok(streamedText(first).startsWith("I'll start with a hero"));
    assert.deepEqual(
      second.map((line) => line.type),
      ['outputs', ...second.slice(1, -1).map(() => 'text'), 'response'],
    );
  });
});

describe('the cookie-shop turn', () => {
  it('grows the page by exactly one top-level row per placing hop, chained below the previous row', async () => {
    const shop = scenario('cookie-shop');
    const requestId = 'cookie-shop-rows';
    let document: CanvasDocument = { layout: structuredClone(fixtures.layouts[shop.layout]!), page: {} };
    const rowsAfterHop: number[] = [];
    let previousRow: string | undefined;
    for (let hop = 1; ; hop += 1) {
      const request: HopRequestInput = {
        ...firstHop(shop, requestId),
        hop,
        context: { current_layout: document.layout, page: document.page, selected_component: null },
      };
      if (hop > 1) delete request.messages;
      const { status, body } = await post(request);
      assert.equal(status, 200);
      const response = HopResponse.parse(body);
      const before = countTopLevelRows(document);
      document = applyOutputs(document, response.outputs);
      const rows = document.layout.regions.content!.components;
      rowsAfterHop.push(rows.length);
      const placing = response.outputs.filter((output) => output.type === 'place_components');
      if (placing.length > 0) {
        assert.equal(placing.length, 1, `hop ${hop} has one placement`);
        assert.equal(rows.length, before + 1, `hop ${hop} adds exactly one row`);
        const operation = placing[0]!.type === 'place_components' ? placing[0]!.operations[0]! : undefined;
        assert.equal(operation?.reference_uuid, previousRow, `hop ${hop} places below the previous row`);
        assert.equal(rows.at(-1)!.uuid, operation?.components[0]?.uuid);
        previousRow = rows.at(-1)!.uuid;
      } else {
        assert.equal(rows.length, before, `hop ${hop} adds no row`);
      }
      if (!response.should_continue) {
        assert.deepEqual(response.outputs, [], 'the response that ends the turn carries no outputs (spec §2, step 7)');
        break;
      }
    }
    // Hop 7 sets the page values; hop 8 ends the turn once the host reported on them.
    assert.deepEqual(rowsAfterHop, [0, 1, 2, 3, 4, 5, 5, 5]);
    assert.deepEqual(
      document.layout.regions.content!.components.map((row) => row.component),
      ['sdc.demo.hero', 'sdc.demo.section', 'sdc.demo.two_column', 'sdc.demo.section', 'sdc.demo.footer'],
    );
    const bestSellers = document.layout.regions.content!.components[1]!;
    assert.equal(bestSellers.slots?.content?.[0]?.slots?.items?.length, 3, 'the best sellers grid holds three cards');
    assert.equal(document.page.title, 'Crumb & Co. | Fresh cookies, baked every morning');
  });
});

describe('the mock turn rules', () => {
  it('returns the stored response when a hop is repeated, and executes nothing twice', async () => {
    const hero = scenario('place-hero-two-hop');
    const hop1 = firstHop(hero, 'replay-turn');
    const first = await post(hop1);
    const again = await post(hop1);
    assert.equal(first.status, 200);
    assert.deepEqual(again, first);

    const layout = fixtures.layouts[hero.layout]!;
    const hop2 = { ...hop1, hop: 2, context: { current_layout: layout, page: {}, selected_component: null } };
    const second = await post(hop2);
    const secondAgain = await post(hop2);
    assert.equal(second.status, 200);
    assert.deepEqual(secondAgain, second, 'the same outputs, with the same server-assigned uuids');
    assert.equal(second.body.outputs.length, 1);
    assert.equal(second.body.should_continue, true, 'the answer waits for the report on the hero (spec §2, step 7)');

    const placed = applyOutputs({ layout, page: {} }, HopResponse.parse(second.body).outputs);
    const hop3 = {
      ...hop1,
      hop: 3,
      context: { current_layout: placed.layout, page: placed.page, selected_component: null },
      apply_results: [{ call_id: second.body.outputs[0].call_id, status: 'applied' }],
    };
    const third = await post(hop3);
    const thirdAgain = await post(hop3);
    assert.equal(third.status, 200);
    assert.deepEqual(thirdAgain, third, 'the final response, replayed as it was');
    assert.deepEqual(third.body.outputs, []);
    assert.equal(third.body.should_continue, false);
    assert.equal(third.body.message, hero.replies[1]!.text);
  });

  it('answers 409 hop_out_of_order to a skipped hop, and the turn carries on', async () => {
    const edit = scenario('load-then-edit');
    const hop1 = firstHop(edit, 'skip-turn');
    assert.equal((await post(hop1)).status, 200);
    const skipped = await post({ ...hop1, hop: 3 });
    assert.equal(skipped.status, 409);
    assert.equal(HopErrorBody.parse(skipped.body).error.code, 'hop_out_of_order');
    const next = await post({ ...hop1, hop: 2 });
    assert.equal(next.status, 200);
    assert.equal(next.body.hop, 2);
  });

  it('answers 409 hop_in_progress to a hop of a turn whose previous hop is still running', async () => {
    let arrived!: () => void;
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
    server.use(
      ...createMockHandlers({
        baseUrl: 'http://slow.test',
        scenarios: fixtures.scenarios,
        catalog: fixtures.catalog,
        agents: fixtures.agents,
        latencyMs: 500,
        // Called right before the hop locks its turn, in the same tick: from here on the turn is busy.
        onHopRequest: () => arrived(),
      }),
    );
    const hop1 = firstHop(scenario('place-hero-two-hop'), 'busy-turn');
    const running = post(hop1, 'http://slow.test/api/hop');
    await firstArrived;
    const concurrent = await post(hop1, 'http://slow.test/api/hop');
    assert.equal(concurrent.status, 409);
    assert.equal(HopErrorBody.parse(concurrent.body).error.code, 'hop_in_progress');
    assert.equal((await running).status, 200);
    const replayed = await post(hop1, 'http://slow.test/api/hop');
    assert.deepEqual(replayed, await running, 'once the hop is done, a repeat replays it');
  });

  it('answers 410 turn_not_found to a later hop of a turn it does not know', async () => {
    const hop1 = firstHop(scenario('place-hero-two-hop'), 'never-started');
    const lost = await post({ ...hop1, hop: 2 });
    assert.equal(lost.status, 410);
    assert.equal(HopErrorBody.parse(lost.body).error.code, 'turn_not_found');
  });

  it('cancels a turn with DELETE, idempotently, after which its next hop is 410', async () => {
    const hop1 = firstHop(scenario('cookie-shop'), 'cancelled-turn');
    assert.equal((await post(hop1)).status, 200);
    const cancel = async () =>
      CancelResponse.parse(await (await fetch(`${ENDPOINT}/cancelled-turn`, { method: 'DELETE' })).json());
    assert.deepEqual(await cancel(), { status: true, request_id: 'cancelled-turn', cancelled: true });
    assert.deepEqual(await cancel(), { status: true, request_id: 'cancelled-turn', cancelled: false });
    const next = await post({ ...hop1, hop: 2 });
    assert.equal(next.status, 410);
  });

  it('answers 410 to hop 1 of a cancelled turn sent again: the turn does not restart (spec §8, rule 2)', async () => {
    const hop1 = firstHop(scenario('cookie-shop'), 'cancelled-restart');
    assert.equal((await post(hop1)).status, 200);
    assert.equal(
      CancelResponse.parse(await (await fetch(`${ENDPOINT}/cancelled-restart`, { method: 'DELETE' })).json()).cancelled,
      true,
    );
    const again = await post(hop1);
    assert.equal(again.status, 410);
    assert.equal(HopErrorBody.parse(again.body).error.code, 'turn_not_found');
    assert.equal((await post({ ...hop1, hop: 2 })).status, 410, 'nor does it go on');
  });

  it('leaves an unknown turn unmarked by a cancel: its hop 1 still starts it', async () => {
    const cancel = CancelResponse.parse(
      await (await fetch(`${ENDPOINT}/cancelled-before-start`, { method: 'DELETE' })).json(),
    );
    assert.equal(cancel.cancelled, false);
    assert.equal((await post(firstHop(scenario('qa-one-hop'), 'cancelled-before-start'))).status, 200);
  });

  it('fails a decision naming a component not placed yet with 502 provider_error', async () => {
    const hero = scenario('cookie-shop');
    const hop1 = firstHop(hero, 'unplaced-reference');
    assert.equal((await post({ ...hop1, context: { current_layout: { regions: {} } } })).status, 200);
    // No region: the hero of reply 1 cannot be placed, so reply 2's {{placed.1}} names nothing.
    const failed = await post({ ...hop1, hop: 2, context: { current_layout: { regions: {} } } });
    assert.equal(failed.status, 502);
    assert.equal(HopErrorBody.parse(failed.body).error.code, 'provider_error');
    assert.match(failed.body.message, /placed\.1/);
  });

  it('cancels nothing once a turn has ended, and its final hop stays replayable', async () => {
    const qa = firstHop(scenario('qa-one-hop'), 'ended-turn');
    const final = await post(qa);
    assert.equal(final.body.should_continue, false);
    const cancel = CancelResponse.parse(await (await fetch(`${ENDPOINT}/ended-turn`, { method: 'DELETE' })).json());
    assert.equal(cancel.cancelled, false);
    assert.deepEqual(await post(qa), final);
    assert.equal((await post({ ...qa, hop: 2 })).status, 410, 'a hop past the last one');
  });

  it('answers 410 to a hop that was running when its turn was cancelled', async () => {
    let arrived!: () => void;
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
    server.use(
      ...createMockHandlers({
        baseUrl: 'http://cancel.test',
        scenarios: fixtures.scenarios,
        catalog: fixtures.catalog,
        agents: fixtures.agents,
        latencyMs: 1_000,
        onHopRequest: () => arrived(),
      }),
    );
    let answered = false;
    const running = post(firstHop(scenario('cookie-shop'), 'cancel-while-running'), 'http://cancel.test/api/hop').then(
      (reply) => {
        answered = true;
        return reply;
      },
    );
    await firstArrived;
    // The hop has passed the mock's own door; the server's door (which pauses between its steps) may still be reading
    // it. A cancel of a turn not yet running changes nothing, so it is sent again until it finds the hop running.
    let cancelled = false;
    while (!cancelled && !answered) {
      const cancel = CancelResponse.parse(
        await (await fetch('http://cancel.test/api/hop/cancel-while-running', { method: 'DELETE' })).json(),
      );
      cancelled = cancel.cancelled;
      if (!cancelled) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal(cancelled, true, 'the cancel found the hop running');
    const { status, body } = await running;
    assert.equal(status, 410);
    assert.equal(HopErrorBody.parse(body).error.code, 'turn_not_found');
  });

  it('fails a hop whose scenario has no reply left with 502 provider_error, keeps the narration, and ends the turn', async () => {
    const hero = scenario('place-hero-two-hop');
    const truncated: Scenario = { ...hero, replies: hero.replies.slice(0, 1) };
    server.use(
      ...createMockHandlers({
        baseUrl: 'http://broken.test',
        scenarios: [truncated],
        catalog: fixtures.catalog,
        agents: fixtures.agents,
      }),
    );
    const hop1 = firstHop(hero, 'broken-turn');
    assert.equal((await post(hop1, 'http://broken.test/api/hop')).status, 200);
    const failed = await post({ ...hop1, hop: 2 }, 'http://broken.test/api/hop');
    assert.equal(
      failed.status,
      502,
      'a decision scripted mode cannot replay is a failure of the model (spec/conformance.md §3, item 5)',
    );
    const error = HopErrorBody.parse(failed.body);
    assert.equal(error.error.code, 'provider_error');
    assert.equal(error.progress, hero.replies[0]!.text);
    assert.match(error.message, /has 1 replies; decision 2 has none to replay/);
    assert.equal(
      (await post({ ...hop1, hop: 2 }, 'http://broken.test/api/hop')).status,
      410,
      'a failed turn never resumes',
    );
  });

  it('keeps two createMockHandlers calls as two independent servers', async () => {
    server.use(
      ...createMockHandlers({
        baseUrl: 'http://other.test',
        scenarios: fixtures.scenarios,
        catalog: fixtures.catalog,
        agents: fixtures.agents,
      }),
    );
    const hop1 = firstHop(scenario('place-hero-two-hop'), 'shared-id');
    assert.equal((await post(hop1, 'http://other.test/api/hop')).status, 200);
    const unknown = await post({ ...hop1, hop: 2 });
    assert.equal(unknown.status, 410, 'the default server never saw turn shared-id');
    const known = await post({ ...hop1, hop: 2 }, 'http://other.test/api/hop');
    assert.equal(known.status, 200);
  });

  it('answers a message no scenario matches with the scripted-mode explanation in one hop', async () => {
    const { status, body } = await post({
      protocol: PROTOCOL_VERSION,
      request_id: 'unmatched',
      hop: 1,
      messages: [{ role: 'user', text: 'What is the weather like?' }],
      context: { current_layout: fixtures.layouts['layouts/empty.yaml']! },
    });
    assert.equal(status, 200);
    const response = HopResponse.parse(body);
    assert.equal(response.should_continue, false);
    assert.equal(response.should_continue === false && response.finish_reason, 'answer');
    const scripted = await new ScriptedProvider(fixtures.scenarios).decide({
      agentId: 'qa',
      mainAgent: 'qa',
      system: '',
      messages: [],
      tools: [],
      turn: { userMessage: 'What is the weather like?', decision: 1, placedUuids: [], selectedComponent: null },
    });
    assert.equal(response.should_continue === false && response.message, scripted.text, "the server's own answer");
    assert.ok(scripted.text.includes('How do I get the assistant to change my page?'));
    assert.equal(response.progress, '');
  });

  it('matches a scenario whatever the case and spacing of the user message', async () => {
    const hop1 = firstHop(scenario('cookie-shop'), 'loose-match');
    hop1.messages = [{ role: 'user', text: '  build a   HOMEPAGE for a cookie shop ' }];
    const { body } = await post(hop1);
    assert.equal(body.should_continue, true);
    assert.equal(body.progress, scenario('cookie-shop').replies[0]!.text);
  });

  it('validates requests with parseHopRequest and answers the protocol error body', async () => {
    const missing = await post({ protocol: PROTOCOL_VERSION, hop: 1, context: { current_layout: { regions: {} } } });
    assert.equal(missing.status, 400);
    assert.equal(HopErrorBody.parse(missing.body).error.field, 'request_id');
    const agent = await post({ ...firstHop(scenario('cookie-shop'), 'bad-agent'), agent: 'nobody' });
    assert.equal(agent.status, 400);
    assert.equal(agent.body.error.code, 'unknown_agent');
    const text = await fetch(ENDPOINT, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    assert.equal(text.status, 415);
  });

  it('answers 415 to a +json content type: only application/json and multipart/form-data are hops (spec §4.1)', async () => {
    const hop1 = firstHop(scenario('qa-one-hop'), 'vendor-json');
    const sent = await fetch(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify(hop1),
    });
    assert.equal(sent.status, 415);
    assert.equal(HopErrorBody.parse(await sent.json()).error.code, 'unsupported_media_type');
  });

  it('answers 413 to a streamed body over the limit by counting its bytes, as the server does, not from Content-Length alone', async () => {
    server.use(
      ...createMockHandlers({
        baseUrl: 'http://small.test',
        scenarios: fixtures.scenarios,
        catalog: fixtures.catalog,
        agents: fixtures.agents,
        maxBodyBytes: 1000,
      }),
    );
    let chunks = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (chunks++ === 3) return controller.close();
        controller.enqueue(new Uint8Array(400).fill(0x20));
      },
    });
    const sent = await fetch('http://small.test/api/hop', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    assert.equal(sent.status, 413);
    assert.equal(HopErrorBody.parse(await sent.json()).error.code, 'payload_too_large');
  });

  it('reads a multipart request part sent as a JSON file, and rejects an attachment that is not an image', async () => {
    const send = async (hop: HopRequestInput, file: Blob) => {
      const form = new FormData();
      form.append('request', new Blob([JSON.stringify(hop)], { type: 'application/json' }), 'request.json');
      form.append('attachments', file, 'upload.png');
      const response = await fetch(ENDPOINT, { method: 'POST', body: form });
      return { status: response.status, body: await response.json() };
    };
    const photo = scenario('image-attachment');
    const png = new Blob([fixtures.attachments['attachments/cookie.png']!.slice()], { type: 'image/png' });
    const accepted = await send(firstHop(photo, 'multipart-file-part'), png);
    assert.equal(accepted.status, 200);
    assert.equal(accepted.body.progress, photo.hops[0]!.progress);

    const fake = new Blob(['GIF? no, just text'], { type: 'image/png' });
    const rejected = await send(firstHop(photo, 'multipart-not-an-image'), fake);
    assert.equal(rejected.status, 400);
    assert.equal(HopErrorBody.parse(rejected.body).error.code, 'attachment_rejected');
    assert.equal(rejected.body.error.field, 'attachments.0');

    const later = await send({ ...firstHop(photo, 'multipart-file-part'), hop: 2 }, png);
    assert.equal(later.status, 400, 'only hop 1 may be multipart');
    assert.equal(later.body.error.code, 'attachment_rejected');
  });

  it('refuses a change of agent within a turn with 409 agent_changed', async () => {
    const hop1 = firstHop(scenario('place-hero-two-hop'), 'agent-switch');
    assert.equal((await post(hop1)).status, 200);
    const switched = await post({ ...hop1, hop: 2, agent: 'copy_editor' });
    assert.equal(switched.status, 409);
    assert.equal(switched.body.error.code, 'agent_changed');
    const { agent: _agent, ...withoutAgent } = hop1;
    const absent = await post({ ...withoutAgent, hop: 2 });
    assert.equal(absent.body.error.code, 'agent_changed', 'an absent agent means the main agent');
    assert.equal((await post({ ...hop1, hop: 2 })).status, 200, 'the turn carries on');
  });

  it('records every valid hop request through onHopRequest, apply_results included', async () => {
    const run = await driveScenario(scenario('place-hero-two-hop'), { endpoint: ENDPOINT, fixtures });
    const hops = received.filter((request) => request.request_id === run.requestId);
    assert.deepEqual(
      hops.map((request) => request.hop),
      [1, 2, 3],
    );
    assert.deepEqual(hops[1]!.apply_results, [], 'hop 1 returned no output, so hop 2 reports none');
    assert.deepEqual(
      hops[2]!.apply_results,
      [{ call_id: 'call_hero', status: 'applied' }],
      "hop 3 reports on hop 2's hero",
    );
  });

  it('answers a known path with another method with 405 method_not_allowed, as the reference server does', async () => {
    for (const [method, path, allowed] of [
      ['GET', '/api/hop', 'POST'],
      ['POST', '/api/token', 'GET'],
      ['POST', '/api/agents', 'GET'],
      ['DELETE', '/healthz', 'GET'],
      ['PUT', '/api/hop/some-turn', 'GET, DELETE'],
    ]) {
      const reply = await fetch(`${ORIGIN}${path}`, { method });
      assert.equal(reply.status, 405, `${method} ${path}`);
      assert.equal(HopErrorBody.parse(await reply.json()).error.code, 'method_not_allowed');
      assert.equal(reply.headers.get('allow'), allowed);
    }
  });

  it('lists the agents and hands out a CSRF token', async () => {
    const agents = AgentsResponse.parse(await (await fetch(`${ORIGIN}/api/agents`)).json());
    assert.equal(agents.main_agent.id, 'qa');
    assert.deepEqual(
      agents.tools.map((agent) => agent.id),
      ['page_builder', 'copy_editor', 'careful_builder'],
    );
    const token = TokenResponse.parse(await (await fetch(`${ORIGIN}/api/token`)).json());
    assert.equal(token.header, 'X-CSRF-Token');
    assert.deepEqual(await (await fetch(`${ORIGIN}/healthz`)).json(), { status: 'ok', protocol: PROTOCOL_VERSION });
  });
});

describe('the mock with requireCsrf', () => {
  it('refuses a hop without the token with 403 and serves it with the token from /api/token', async () => {
    server.use(
      ...createMockHandlers({
        baseUrl: 'http://csrf.test',
        scenarios: fixtures.scenarios,
        catalog: fixtures.catalog,
        agents: fixtures.agents,
        requireCsrf: true,
      }),
    );
    const refused = await post(firstHop(scenario('qa-one-hop'), 'csrf-turn'), 'http://csrf.test/api/hop');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'csrf_invalid');
    const { token } = TokenResponse.parse(await (await fetch('http://csrf.test/api/token')).json());
    const run = await driveScenario(scenario('cookie-shop'), {
      endpoint: 'http://csrf.test/api/hop',
      fixtures,
      headers: () => ({ 'X-CSRF-Token': token }),
    });
    assert.deepEqual(
      run.hops.flatMap((hop) => hop.mismatches),
      [],
    );
    const cancel = await fetch('http://csrf.test/api/hop/csrf-turn', { method: 'DELETE' });
    assert.equal(cancel.status, 403, 'a cancel needs the token too');
  });
});

describe('the mock in a browser page', () => {
  it('serves under a baseUrl with a path prefix, and leaves the host its other /api paths', async () => {
    server.use(
      ...createMockHandlers({
        baseUrl: 'http://prefixed.test/app/',
        scenarios: fixtures.scenarios,
        catalog: fixtures.catalog,
        agents: fixtures.agents,
      }),
    );
    const run = await driveScenario(scenario('qa-one-hop'), { endpoint: 'http://prefixed.test/app/api/hop', fixtures });
    assert.equal(run.passed, true);
    assert.deepEqual(await (await fetch('http://prefixed.test/app/healthz')).json(), {
      status: 'ok',
      protocol: PROTOCOL_VERSION,
    });
    await assert.rejects(fetch(`${ORIGIN}/api/users`), 'not a path of the server: msw lets it through, unhandled');
  });
});
