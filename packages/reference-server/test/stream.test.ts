// Streamed hops (spec §6.1, revision 1.4) over real HTTP: the same turn as JSON and as NDJSON, the outputs line
// before the model is called, the model's words as they come, the last line, replays, keepalives, refusals as JSON.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { type HopResponse, HopErrorBody, type HopStreamLine } from '@canvas-ai/protocol';
import { driveScenario, type ScenarioRun } from '@canvas-ai/protocol/scenario';
import type { AppOptions } from '../src/app.js';
import type { ModelProvider, ModelReply, ModelRequest } from '../src/providers/model-provider.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import {
  EMPTY_LAYOUT,
  firstHop,
  laterHop,
  openSession,
  sharedFixtures,
  startTestServer,
  type TestServer,
  type TestSession,
} from './support/harness.js';
import { RecordingProvider } from './support/providers.js';
import { STREAM_ACCEPT, StreamReader, streamedText, streamProblems } from './support/stream-client.js';

const fixtures = await sharedFixtures();
const cookieShop = fixtures.scenarios.find((scenario) => scenario.id === 'cookie-shop')!;
const COOKIE_SHOP = 'Build a homepage for a cookie shop';
const AGENT = { agent: cookieShop.agent };

/** Uuids in the order a server assigns them, the same on every server built with it: two runs can be compared. */
function countingUuids(): () => string {
  let next = 0;
  return () => `00000000-0000-4000-8000-${String(++next).padStart(12, '0')}`;
}

/** POSTs a hop asking for a stream; `headers` replace the session's. */
function postStreamed(server: TestServer, session: TestSession, body: unknown, accept = STREAM_ACCEPT) {
  return fetch(server.hopUrl, {
    method: 'POST',
    headers: session.headers({ 'content-type': 'application/json', accept }),
    body: JSON.stringify(body),
  });
}

/** A hop asked for as a stream, read to its end. */
async function streamedHop(server: TestServer, session: TestSession, body: unknown) {
  const reply = await postStreamed(server, session, body);
  assert.equal(reply.status, 200);
  assert.equal(reply.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
  assert.equal(reply.headers.get('cache-control'), 'no-store');
  const reader = new StreamReader(reply.body!);
  const lines = await reader.all();
  assert.equal(reader.rest, '', 'the body ends with a newline');
  return lines;
}

/** The last line of a stream, which must be a response. */
function responseOf(lines: readonly HopStreamLine[]): HopResponse {
  const last = lines.at(-1);
  assert.equal(last?.type, 'response', `the last line is a response: ${JSON.stringify(last)}`);
  return (last as Extract<HopStreamLine, { type: 'response' }>).response;
}

/**
 * A `fetch` for driveScenario that asks for a stream, holds every stream to the rules of spec §6.1, and hands the
 * driver the last line as the JSON answer it would have had.
 */
function streamingFetch(streams: HopStreamLine[][]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('accept', STREAM_ACCEPT);
    const reply = await fetch(input, { ...init, headers });
    if (!reply.headers.get('content-type')?.startsWith('application/x-ndjson')) return reply;
    const lines = await new StreamReader(reply.body!).all();
    streams.push(lines);
    assert.deepEqual(streamProblems(lines), [], `hop ${streams.length} breaks a stream rule`);
    const last = lines.at(-1)!;
    if (last.type === 'error') return Response.json(last.error, { status: last.status });
    return Response.json((last as Extract<HopStreamLine, { type: 'response' }>).response);
  };
}

/** A promise with its resolve function outside it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** A provider whose decision N waits for the test: `entered(N)` resolves when it was called, `release(N)` lets it go. */
class GatedProvider implements ModelProvider {
  readonly name = 'gated';
  readonly #gates = new Map<number, { entered: ReturnType<typeof deferred>; released: ReturnType<typeof deferred> }>();

  constructor(readonly inner: ModelProvider) {}

  #gate(decision: number) {
    let gate = this.#gates.get(decision);
    if (!gate) {
      gate = { entered: deferred(), released: deferred() };
      this.#gates.set(decision, gate);
    }
    return gate;
  }

  /** Decision `decision` waits until {@link release}. */
  hold(decision: number): Promise<void> {
    return this.#gate(decision).entered.promise;
  }

  release(decision: number): void {
    this.#gate(decision).released.resolve();
  }

  async decide(request: ModelRequest): Promise<ModelReply> {
    const gate = this.#gates.get(request.turn.decision);
    if (gate) {
      gate.entered.resolve();
      await gate.released.promise;
    }
    return this.inner.decide(request);
  }
}

describe('a streamed hop (spec §6.1)', () => {
  let server: TestServer;
  let json: TestServer;
  before(async () => {
    server = await startTestServer({ newUuid: countingUuids() });
    json = await startTestServer({ newUuid: countingUuids() });
  });
  after(async () => {
    await server.close();
    await json.close();
  });

  it('plays the cookie-shop turn with every stream well-formed, ending in the responses the JSON turn gets', async () => {
    const requestId = `stream-cookie-${crypto.randomUUID()}`;
    const streams: HopStreamLine[][] = [];
    const streamSession = await openSession(server);
    const jsonSession = await openSession(json);
    const streamed = await driveScenario(cookieShop, {
      endpoint: server.hopUrl,
      fixtures,
      requestId,
      headers: () => streamSession.headers(),
      fetch: streamingFetch(streams),
    });
    const plain: ScenarioRun = await driveScenario(cookieShop, {
      endpoint: json.hopUrl,
      fixtures,
      requestId,
      headers: () => jsonSession.headers(),
    });
    assert.deepEqual(
      streamed.hops.flatMap((hop) => hop.mismatches),
      [],
    );
    assert.equal(streamed.passed, true);
    assert.equal(streams.length, cookieShop.hops.length, 'every hop was streamed');
    assert.deepEqual(
      streamed.hops.map((hop) => hop.body),
      plain.hops.map((hop) => hop.body),
      'the last lines are the JSON responses of the same turn',
    );
    const withOutputs = streams.filter((lines) => lines[0]?.type === 'outputs').length;
    assert.equal(withOutputs, plain.hops.filter((hop) => (hop.body as HopResponse).outputs.length > 0).length);
    assert.ok(withOutputs >= 5, 'the turn has outputs lines to check');
  });

  it("streams each decision's words, joined the hop's new narration, or the answer it holds back", async () => {
    const session = await openSession(server);
    const requestId = `stream-words-${crypto.randomUUID()}`;
    const streams: HopStreamLine[][] = [];
    const run = await driveScenario(cookieShop, {
      endpoint: server.hopUrl,
      fixtures,
      requestId,
      headers: () => session.headers(),
      fetch: streamingFetch(streams),
    });
    const responses = run.hops.map((hop) => hop.body as HopResponse);
    const final = responses.at(-1)!;
    assert.equal(final.should_continue, false);
    let previous = '';
    let narrated = 0;
    let heldAnswer = 0;
    for (const [index, lines] of streams.entries()) {
      const response = responses[index]!;
      const text = streamedText(lines);
      const paragraph = response.progress.slice(previous.length).replace(/^\n\n/, '');
      previous = response.progress;
      assert.ok(text.split(' ').length > 1 || text === '', 'a reply comes word by word');
      if (text === '') continue;
      assert.ok(lines.filter((line) => line.type === 'text').length > 1, `hop ${index + 1} sent its words apart`);
      if (paragraph !== '') {
        assert.equal(text.trim(), paragraph, `hop ${index + 1}: the words are the new narration`);
        narrated += 1;
      } else {
        assert.equal(text.trim(), final.should_continue ? '' : final.message, `hop ${index + 1} holds the answer`);
        heldAnswer += 1;
      }
    }
    assert.ok(narrated >= 5 && heldAnswer === 1, `${narrated} narrated hops, ${heldAnswer} held answer`);
  });

  it('sends the outputs line before the model is called', async () => {
    const gated = new GatedProvider(new ScriptedProvider(fixtures.scenarios));
    const own = await startTestServer({ provider: gated });
    try {
      const session = await openSession(own);
      const requestId = `stream-early-${crypto.randomUUID()}`;
      assert.equal((await session.hop(firstHop(requestId, COOKIE_SHOP, AGENT))).status, 200);
      // Decision 2 waits until this test has read the outputs line: were it sent after the model, this would hang.
      const decided = gated.hold(2);
      const reply = await postStreamed(own, session, laterHop(requestId, 2, structuredClone(EMPTY_LAYOUT), AGENT));
      const reader = new StreamReader(reply.body!);
      const first = await reader.next();
      assert.equal(first?.type, 'outputs');
      await decided;
      gated.release(2);
      const lines = await reader.all();
      assert.deepEqual(streamProblems(lines), []);
      assert.deepEqual(first, { type: 'outputs', outputs: responseOf(lines).outputs });
      assert.equal(responseOf(lines).outputs[0]?.type, 'place_components');
    } finally {
      await own.close();
    }
  });

  it('ends with an error line carrying the status and body of a provider failure after the stream began', async () => {
    const scripted = new ScriptedProvider(fixtures.scenarios);
    const failing: ModelProvider = {
      name: 'fails-on-decision-2',
      async decide(request) {
        if (request.turn.decision < 2) return scripted.decide(request);
        request.onText?.('Half a ');
        throw new Error('connection reset by http://10.0.0.7:8080/v1');
      },
    };
    const own = await startTestServer({ provider: failing });
    try {
      const session = await openSession(own);
      const requestId = `stream-fail-${crypto.randomUUID()}`;
      const hop1 = await session.hop(firstHop(requestId, COOKIE_SHOP, AGENT));
      const lines = await streamedHop(own, session, laterHop(requestId, 2, structuredClone(EMPTY_LAYOUT), AGENT));
      assert.deepEqual(
        lines.map((line) => line.type),
        ['outputs', 'text', 'error'],
      );
      const last = lines.at(-1) as Extract<HopStreamLine, { type: 'error' }>;
      assert.equal(last.status, 502);
      assert.equal(last.error.error.code, 'provider_error');
      assert.equal(HopErrorBody.safeParse(last.error).success, true);
      assert.equal(last.error.progress, hop1.body.progress, 'the narration so far is kept (spec §7)');
      assert.doesNotMatch(JSON.stringify(last), /10\.0\.0\.7/, 'no upstream address in the error');
      // The failure deleted the turn, as a JSON failure does: the same hop again is refused, as JSON.
      const again = await postStreamed(own, session, laterHop(requestId, 2, structuredClone(EMPTY_LAYOUT), AGENT));
      assert.equal(again.status, 410);
      assert.match(again.headers.get('content-type') ?? '', /^application\/json/);
    } finally {
      await own.close();
    }
  });

  it('answers a repeated hop with one response line, the stored response', async () => {
    const session = await openSession(server);
    const requestId = `stream-replay-${crypto.randomUUID()}`;
    const first = await streamedHop(server, session, firstHop(requestId, COOKIE_SHOP, AGENT));
    const hop2 = laterHop(requestId, 2, structuredClone(EMPTY_LAYOUT), AGENT);
    const second = await streamedHop(server, session, hop2);
    assert.equal(second[0]?.type, 'outputs');
    const replayed = await streamedHop(server, session, hop2);
    assert.deepEqual(replayed, [{ type: 'response', response: responseOf(second) }]);
    assert.deepEqual((await session.hop(hop2)).body, responseOf(second), 'the same as a JSON replay');
    assert.ok(first.length > 1, 'hop 1 streamed its words');
  });

  it('sends a keepalive line while the model is quiet', async () => {
    const gated = new GatedProvider(new ScriptedProvider(fixtures.scenarios));
    const own = await startTestServer({ provider: gated, limits: { streamKeepaliveMs: 5 } });
    try {
      const session = await openSession(own);
      gated.hold(1);
      const reply = await postStreamed(
        own,
        session,
        firstHop(`stream-quiet-${crypto.randomUUID()}`, COOKIE_SHOP, AGENT),
      );
      const reader = new StreamReader(reply.body!);
      // The model answers only once a keepalive came: without keepalives this would hang.
      await reader.until('keepalive');
      gated.release(1);
      const lines = await reader.all();
      assert.deepEqual(streamProblems(lines), []);
      assert.equal(responseOf(lines).hop, 1);
    } finally {
      await own.close();
    }
  });

  it('runs the hop to its end when the client goes away, so the retry gets its response', async () => {
    const gated = new GatedProvider(new ScriptedProvider(fixtures.scenarios));
    const own = await startTestServer({ provider: gated });
    try {
      const session = await openSession(own);
      const requestId = `stream-gone-${crypto.randomUUID()}`;
      assert.equal((await session.hop(firstHop(requestId, COOKIE_SHOP, AGENT))).status, 200);
      const decided = gated.hold(2);
      const hop2 = laterHop(requestId, 2, structuredClone(EMPTY_LAYOUT), AGENT);
      const reader = new StreamReader((await postStreamed(own, session, hop2)).body!);
      const outputs = await reader.until('outputs');
      await reader.cancel();
      await decided;
      gated.release(2);
      // The retry waits out the hop still running (409 with Retry-After), then gets its stored response.
      let retry = await session.hop(hop2);
      while (retry.status === 409) retry = await session.hop(hop2);
      assert.equal(retry.status, 200);
      assert.deepEqual(retry.body.outputs, outputs.outputs);
      assert.ok(own.logs.some((entry) => entry.event === 'hop' && entry.request_id === requestId && entry.hop === 2));
    } finally {
      await own.close();
    }
  });
});

describe('what stays JSON (spec §6.1, §8.3)', () => {
  let server: TestServer;
  let recording: RecordingProvider;
  before(async () => {
    recording = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
    server = await startTestServer({ provider: recording } satisfies Partial<AppOptions>);
  });
  after(() => server.close());

  for (const [who, accept] of [
    ['a client that sends no Accept (revision 1.3 and older)', undefined],
    ['a client that asks for JSON', 'application/json'],
    ['a client that refuses the stream (q=0)', 'application/x-ndjson;q=0, application/json'],
  ] as const) {
    it(`answers ${who} with JSON`, async () => {
      const session = await openSession(server);
      const headers = session.headers({ 'content-type': 'application/json', ...(accept ? { accept } : {}) });
      const reply = await fetch(server.hopUrl, {
        method: 'POST',
        headers,
        body: JSON.stringify(firstHop(`json-${crypto.randomUUID()}`, COOKIE_SHOP, AGENT)),
      });
      assert.equal(reply.status, 200);
      assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(((await reply.json()) as HopResponse).hop, 1);
    });
  }

  it('streams to an Accept in capitals with parameters', async () => {
    const session = await openSession(server);
    const reply = await postStreamed(
      server,
      session,
      firstHop(`caps-${crypto.randomUUID()}`, COOKIE_SHOP, AGENT),
      'Application/X-NDJSON; q=1',
    );
    assert.equal(reply.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
    assert.deepEqual(streamProblems(await new StreamReader(reply.body!).all()), []);
  });

  it('refuses before the hop runs with a JSON error, never a stream', async () => {
    const session = await openSession(server);
    const noToken = await fetch(server.hopUrl, {
      method: 'POST',
      headers: { cookie: session.cookie, 'content-type': 'application/json', accept: STREAM_ACCEPT },
      body: JSON.stringify(firstHop(`refused-${crypto.randomUUID()}`, COOKIE_SHOP, AGENT)),
    });
    const unknownTurn = await postStreamed(
      server,
      session,
      laterHop(`unknown-${crypto.randomUUID()}`, 2, structuredClone(EMPTY_LAYOUT)),
    );
    const invalid = await postStreamed(server, session, { protocol: 'canvas-ai/1', hop: 1 });
    for (const [reply, status] of [
      [noToken, 403],
      [unknownTurn, 410],
      [invalid, 400],
    ] as const) {
      assert.equal(reply.status, status);
      assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(HopErrorBody.safeParse(await reply.json()).success, true);
    }
  });

  it('answers a hop sent while its turn runs with 409 hop_in_progress and Retry-After, as JSON to a stream client', async () => {
    const session = await openSession(server);
    const request = firstHop(`busy-${crypto.randomUUID()}`, COOKIE_SHOP, AGENT);
    const held = recording.holdNext();
    const running = session.hop(request);
    await held.entered;
    const busy = await postStreamed(server, session, request);
    const busyJson = await fetch(server.hopUrl, {
      method: 'POST',
      headers: session.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify(request),
    });
    held.release();
    assert.equal((await running).status, 200);
    for (const reply of [busy, busyJson]) {
      assert.equal(reply.status, 409);
      assert.equal(reply.headers.get('retry-after'), '2');
      assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(((await reply.json()) as HopErrorBody).error.code, 'hop_in_progress');
    }
  });
});

describe('the scripted provider streams its words', () => {
  const request = (onText?: (delta: string) => void): ModelRequest => ({
    agentId: cookieShop.agent!,
    mainAgent: fixtures.agents.main_agent,
    system: '',
    messages: [],
    tools: [],
    turn: { userMessage: COOKIE_SHOP, decision: 1, placedUuids: [], selectedComponent: null },
    onText,
  });

  for (const wordDelayMs of [0, 1]) {
    it(`hands onText one word at a time, joined the reply's text (word delay ${wordDelayMs} ms)`, async () => {
      const words: string[] = [];
      const reply = await new ScriptedProvider(fixtures.scenarios, { wordDelayMs }).decide(
        request((delta) => words.push(delta)),
      );
      assert.equal(words.join(''), reply.text);
      assert.equal(words.length, reply.text.split(' ').length);
      assert.ok(
        words.every((word) => word.trim() !== '' && !/\s\S/.test(word)),
        'one word each',
      );
    });
  }

  it('replies the same without onText', async () => {
    const provider = new ScriptedProvider(fixtures.scenarios, { wordDelayMs: 1 });
    assert.deepEqual(await provider.decide(request()), await provider.decide(request(() => undefined)));
  });
});
