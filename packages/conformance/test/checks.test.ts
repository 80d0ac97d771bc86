import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { runConformance, type CheckResult, type ConformanceOptions } from '../src/index.js';
import { loadFixtures } from '@canvas-ai/protocol/node';
import { MAX_AGENT_HOPS, MAX_TURN_REQUESTS } from '@canvas-ai/protocol';
import { errorBody, hopBody, startFakeServer, type FakeRequest, type FakeResponse } from './support/fake-server.js';

// The kit's checks against tiny fake servers: each fake gets one rule right or wrong on purpose.

/** Runs the checks whose id starts with `prefix` (or is in the list) against a fake server. */
async function check(
  handle: (request: FakeRequest) => FakeResponse | Promise<FakeResponse>,
  ids: string[],
  options: Partial<ConformanceOptions> = {},
): Promise<CheckResult[]> {
  const server = await startFakeServer(handle);
  try {
    const report = await runConformance({
      endpoint: `${server.url}/api/hop`,
      inputs: { malformedRequests: [] },
      filter: (candidate) => ids.some((id) => candidate.id === id || candidate.id.startsWith(`${id}.`)),
      ...(typeof options.tokenEndpoint === 'string' ? { tokenEndpoint: `${server.url}${options.tokenEndpoint}` } : {}),
      ...Object.fromEntries(Object.entries(options).filter(([key]) => key !== 'tokenEndpoint')),
    });
    return report.results;
  } finally {
    await server.close();
  }
}

const cancelled = (request: FakeRequest): FakeResponse => ({
  status: 200,
  body: { status: true, request_id: decodeURIComponent(request.path.split('/').at(-1)!), cancelled: false },
});

describe('the concurrency check', () => {
  it('passes and counts the 409s when copies that arrive during the hop get 409 hop_in_progress', async () => {
    const burst = 5;
    let busy = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let stored: unknown;
    const [result] = await check(
      async (request) => {
        if (request.method === 'DELETE') return cancelled(request);
        if (stored) return { status: 200, body: stored };
        if (busy > 0) {
          busy += 1;
          if (busy === burst) release();
          return { status: 409, body: errorBody('hop_in_progress'), headers: { 'retry-after': '2' } };
        }
        busy = 1;
        await released; // the first copy runs until every other copy has been turned away
        stored = hopBody(request.json, {});
        return { status: 200, body: stored };
      },
      ['turn-rules.concurrent-hop-409'],
      { burst },
    );
    assert.equal(result!.status, 'pass', result!.why);
    assert.equal(
      result!.why,
      '5 copies of hop 1 at once: 1 got the same 200 response, 4 got 409 hop_in_progress with Retry-After',
    );
  });

  it('fails when a 409 hop_in_progress carries no Retry-After (revision 1.4)', async () => {
    let running = false;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let turnedAway = 0;
    const [result] = await check(
      async (request) => {
        if (request.method === 'DELETE') return cancelled(request);
        if (running) {
          if (++turnedAway === 2) release();
          return { status: 409, body: errorBody('hop_in_progress') };
        }
        running = true;
        await released;
        return { status: 200, body: hopBody(request.json, {}) };
      },
      ['turn-rules.concurrent-hop-409'],
      { burst: 3 },
    );
    assert.equal(result!.status, 'fail');
    assert.match(result!.why, /409 hop_in_progress with Retry-After null; expected a number of seconds/);
  });

  it('fails when two copies are answered differently: the hop executed twice', async () => {
    const [result] = await check(
      (request) =>
        request.method === 'DELETE'
          ? cancelled(request)
          : { status: 200, body: hopBody(request.json, { message: crypto.randomUUID() }) },
      ['turn-rules.concurrent-hop-409'],
    );
    assert.equal(result!.status, 'fail');
    assert.match(result!.why, /answered differently, so it executed twice: message: /);
  });

  it('fails when a copy gets another error than 409 hop_in_progress', async () => {
    let first = true;
    const [result] = await check(
      (request) => {
        if (request.method === 'DELETE') return cancelled(request);
        const answer = first
          ? { status: 200, body: hopBody(request.json, {}) }
          : { status: 409, body: errorBody('hop_out_of_order') };
        first = false;
        return answer;
      },
      ['turn-rules.concurrent-hop-409'],
    );
    assert.equal(result!.status, 'fail');
    assert.match(result!.why, /answered 409 hop_out_of_order; expected 200 or 409 hop_in_progress/);
  });
});

describe('the prompt-turn invariants', () => {
  /** A server that plays a fixed turn: `bodies[hop - 1]` for each hop, replayed as is. */
  const playing =
    (bodies: Array<Record<string, unknown>>) =>
    (request: FakeRequest): FakeResponse => {
      if (request.method === 'DELETE') return cancelled(request);
      const body = bodies[request.json.hop - 1];
      return body
        ? { status: 200, body: hopBody(request.json, body) }
        : { status: 410, body: errorBody('turn_not_found') };
    };
  const going = (progress: string, extra: Record<string, unknown> = {}) => ({
    should_continue: true,
    progress,
    message: undefined,
    finish_reason: undefined,
    ...extra,
  });

  it('passes a well-formed two-hop turn', async () => {
    const results = await check(playing([going('Looking.'), { progress: 'Looking.', message: 'Done.' }]), [
      'invariants',
      'replay.same-response',
      'turn-rules.ended-turn-410',
    ]);
    assert.deepEqual(
      results.filter((result) => result.status !== 'pass'),
      [],
    );
    assert.equal(
      results.find((result) => result.id === 'invariants.turn-completes')!.why,
      '2 hop(s), finish_reason answer',
    );
  });

  it('fails turn-completes when the turn goes on past max_hops + 2 hops, the most any valid agent allows', async () => {
    const hops: number[] = [];
    const results = await check(
      (request) => {
        if (request.method === 'DELETE') return cancelled(request);
        hops.push(request.json.hop);
        return { status: 200, body: hopBody(request.json, going('Still going.')) };
      },
      ['invariants.turn-completes'],
    );
    assert.equal(results[0]!.status, 'fail');
    assert.equal(
      results[0]!.why,
      `the turn still went on after ${MAX_TURN_REQUESTS} hops (max_hops is at most ${MAX_AGENT_HOPS})`,
    );
    assert.equal(Math.max(...hops), MAX_TURN_REQUESTS, 'the kit sends no hop past the bound');
  });

  it('fails final-fields-last-hop-only when a continuing hop carries message', async () => {
    const results = await check(
      playing([going('Looking.', { message: 'early' }), { progress: 'Looking.', message: 'Done.' }]),
      ['invariants.final-fields-last-hop-only'],
    );
    assert.equal(results[0]!.status, 'fail');
    assert.equal(results[0]!.why, 'hop 1 continues but carries message');
  });

  it('fails progress-never-shrinks when a hop forgets the earlier narration', async () => {
    const results = await check(playing([going('One.'), going('Two.'), { progress: 'Two.', message: 'Done.' }]), [
      'invariants.progress-never-shrinks',
    ]);
    assert.equal(results[0]!.status, 'fail');
    assert.match(results[0]!.why, /hop 2's progress "Two\." does not start with hop 1's "One\."/);
  });

  it('fails answer-not-in-progress when the answer is also the end of progress', async () => {
    const results = await check(playing([going('One.'), { progress: 'One.\n\nDone.', message: 'Done.' }]), [
      'invariants.answer-not-in-progress',
    ]);
    assert.equal(results[0]!.status, 'fail');
    assert.match(results[0]!.why, /ends with the final answer "Done\."/);
  });

  const tokens = (input: number, output: number, cached = 0) => ({
    input_tokens: input,
    output_tokens: output,
    cached_input_tokens: cached,
  });

  it('passes usage-sums when each turn count is the sum of the hops so far, a hop without a model call counting 0', async () => {
    const results = await check(
      playing([
        going('One.', { usage: { hop: tokens(100, 10, 40), turn: tokens(100, 10, 40) } }),
        going('One.', { usage: { hop: tokens(0, 0), turn: tokens(100, 10, 40) } }),
        { progress: 'One.', message: 'Done.', usage: { hop: tokens(150, 5, 100), turn: tokens(250, 15, 140) } },
      ]),
      ['invariants.usage-sums'],
    );
    assert.equal(results[0]!.status, 'pass', results[0]!.why);
    assert.equal(results[0]!.why, "3 of 3 hop(s) carry usage, each turn count the sum of the hops'");
  });

  it('passes usage-sums, saying so, when no response carries usage (it is optional)', async () => {
    const results = await check(playing([going('One.'), { progress: 'One.', message: 'Done.' }]), [
      'invariants.usage-sums',
    ]);
    assert.equal(results[0]!.status, 'pass');
    assert.match(results[0]!.why, /no response of the 2 hop\(s\) carries usage/);
  });

  it('fails usage-sums when a turn count goes down (the turn reports only its latest hop)', async () => {
    const results = await check(
      playing([
        going('One.', { usage: { hop: tokens(300, 10), turn: tokens(300, 10) } }),
        { progress: 'One.', message: 'Done.', usage: { hop: tokens(200, 5), turn: tokens(200, 5) } },
      ]),
      ['invariants.usage-sums'],
    );
    assert.equal(results[0]!.status, 'fail');
    assert.match(
      results[0]!.why,
      /hop 2: usage\.turn\.input_tokens is 200, but the hops' input_tokens so far sum to 500/,
    );
  });

  it('ends the turn as a problem when usage breaks the schema (cached tokens above input)', async () => {
    const results = await check(
      playing([{ progress: '', message: 'Done.', usage: { hop: tokens(10, 1, 20), turn: tokens(10, 1, 20) } }]),
      ['invariants.usage-sums'],
    );
    assert.equal(results[0]!.status, 'fail');
    assert.match(results[0]!.why, /usage\.hop\.cached_input_tokens/);
  });

  it('fails first-hop-no-outputs when hop 1 already returns an output', async () => {
    const output = { type: 'set_page_value', call_id: 'c1', field: 'title', value: 'Hi' };
    const results = await check(playing([{ outputs: [output], progress: '', message: 'Done.' }]), [
      'invariants.first-hop-no-outputs',
    ]);
    assert.equal(results[0]!.status, 'fail');
    assert.match(results[0]!.why, /hop 1 returned set_page_value c1/);
  });

  it('fails replay.same-response when a repeated hop is answered differently', async () => {
    let count = 0;
    const results = await check(
      (request) => {
        count += 1;
        return { status: 200, body: hopBody(request.json, { message: `answer ${count}` }) };
      },
      ['replay.same-response'],
    );
    assert.equal(results[0]!.status, 'fail');
    assert.match(results[0]!.why, /hop 1 sent again answered differently: message: "answer 1" vs "answer 2"/);
  });
});

describe('CSRF and the session cookie', () => {
  /** A server that binds tokens to a session cookie, like the reference server. */
  const guarded = (request: FakeRequest): FakeResponse => {
    // Only the ids it issues (uuids) are sessions: any other cookie value counts as none.
    const session = /sid=([0-9a-f]{8}-[0-9a-f-]{27})\b/.exec(request.headers.cookie ?? '')?.[1];
    if (request.method === 'GET') {
      const id = session ?? crypto.randomUUID();
      return {
        status: 200,
        body: { token: `tok-${id}`, header: 'X-CSRF-Token' },
        headers: { 'set-cookie': `sid=${id}; Path=/; HttpOnly` },
      };
    }
    if (!session || request.headers['x-csrf-token'] !== `tok-${session}`)
      return { status: 403, body: errorBody('csrf_invalid') };
    return request.method === 'DELETE' ? cancelled(request) : { status: 200, body: hopBody(request.json, {}) };
  };

  it('passes every CSRF check against a server that binds the token to the session cookie', async () => {
    const results = await check(guarded, ['csrf', 'schemas.token-response'], { tokenEndpoint: '/api/token' });
    assert.deepEqual(
      results.map((result) => [result.id, result.status]),
      [
        ['csrf.missing-header', 'pass'],
        ['csrf.wrong-token', 'pass'],
        ['csrf.other-session-token', 'pass'],
        ['csrf.no-session', 'pass'],
        ['csrf.cancel-needs-token', 'pass'],
        ['csrf.cookie-reaches-endpoints', 'pass'],
        ['csrf.unknown-cookie', 'pass'],
        ['schemas.token-response', 'pass'],
      ],
    );
  });

  it('fails csrf.cookie-reaches-endpoints when the cookie is set for the token path only', async () => {
    const narrow = (request: FakeRequest): FakeResponse => {
      const answer = guarded(request);
      const cookie = answer.headers?.['set-cookie'];
      return cookie ? { ...answer, headers: { 'set-cookie': cookie.replace('Path=/', 'Path=/api/token') } } : answer;
    };
    const [result] = await check(narrow, ['csrf.cookie-reaches-endpoints'], { tokenEndpoint: '/api/token' });
    assert.equal(result!.status, 'fail');
    assert.match(result!.why, /sid has Path \/api\/token, so it is not sent to \/api\/hop/);
  });

  it('fails csrf.unknown-cookie when the server takes any cookie value as a session', async () => {
    const trusting = (request: FakeRequest): FakeResponse => {
      const session = /sid=([a-z0-9-]+)/.exec(request.headers.cookie ?? '')?.[1];
      if (request.method !== 'GET') return guarded(request);
      const id = session ?? crypto.randomUUID();
      return {
        status: 200,
        body: { token: `tok-${id}`, header: 'X-CSRF-Token' },
        headers: session ? {} : { 'set-cookie': `sid=${id}; Path=/` },
      };
    };
    const [result] = await check(trusting, ['csrf.unknown-cookie'], { tokenEndpoint: '/api/token' });
    assert.equal(result!.status, 'fail');
    assert.match(result!.why, /without a new sid/);
  });

  it('fails every CSRF check against a server that checks nothing', async () => {
    const open = (request: FakeRequest): FakeResponse =>
      request.method === 'GET'
        ? { status: 200, body: { token: crypto.randomUUID(), header: 'X-CSRF-Token' } }
        : request.method === 'DELETE'
          ? cancelled(request)
          : { status: 200, body: hopBody(request.json, {}) };
    const results = await check(open, ['csrf'], { tokenEndpoint: '/api/token' });
    // It sets no cookie, so the two cookie checks have nothing to judge and pass.
    assert.deepEqual(
      results.map((result) => result.status),
      ['fail', 'fail', 'fail', 'fail', 'fail', 'pass', 'pass'],
    );
    assert.equal(results[0]!.why, 'expected 403 csrf_invalid, got 200');
  });

  it('skips the CSRF checks when no token endpoint is given', async () => {
    const results = await check(guarded, ['csrf']);
    assert.ok(results.every((result) => result.status === 'skip' && result.why.startsWith('no --token-endpoint')));
  });
});

describe('the trace context check', () => {
  /** A server whose door refuses the kit's agent, and, when `strict`, any traceparent it does not like. */
  const door =
    (strict: boolean) =>
    (request: FakeRequest): FakeResponse => {
      const traceparent = request.headers.traceparent;
      if (strict && traceparent !== undefined && !String(traceparent).startsWith('00-4bf9'))
        return { status: 400, body: errorBody('invalid_request') };
      return { status: 400, body: errorBody('unknown_agent', { error: { code: 'unknown_agent', field: 'agent' } }) };
    };

  it('passes when every traceparent, well-formed or not, gets the answer the hop gets without one', async () => {
    const [result] = await check(door(false), ['trace.malformed-ignored']);
    assert.equal(result!.status, 'pass', result!.why);
    assert.match(result!.why, /6 traceparent values, each answered as without one \(400 unknown_agent/);
  });

  it('fails when a malformed traceparent is refused', async () => {
    const [result] = await check(door(true), ['trace.malformed-ignored']);
    assert.equal(result!.status, 'fail');
    assert.match(result!.why, /with a traceparent of garbage: 400 invalid_request/);
  });
});

describe('a server that cannot be reached', () => {
  it('fails each check with the network error instead of throwing', async () => {
    // A port that was free a moment ago: nothing listens there now.
    const gone = await startFakeServer(() => ({ status: 200, body: {} }));
    await gone.close();
    const report = await runConformance({
      endpoint: `${gone.url}/api/hop`,
      inputs: { malformedRequests: [] },
      filter: (candidate) =>
        candidate.id === 'turn-rules.unknown-turn-410' || candidate.id === 'invariants.turn-completes',
    });
    assert.deepEqual(
      report.results.map((result) => result.status),
      ['fail', 'fail'],
    );
    for (const result of report.results)
      assert.match(result.why, /^cannot reach the server: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });
});

describe('the schema checks', () => {
  it('fails an error body whose code does not have the HTTP status it was sent with', async () => {
    const results = await check(
      (request) =>
        request.method === 'DELETE' ? cancelled(request) : { status: 400, body: errorBody('turn_not_found') },
      ['turn-rules.unknown-turn-410', 'schemas.error-bodies'],
    );
    assert.equal(results[1]!.status, 'fail');
    assert.match(results[1]!.why, /answered 400 with code turn_not_found, whose status is 410/);
  });

  it('fails a 200 hop answer that is not a HopResponse', async () => {
    const results = await check(
      (request) => ({ status: 200, body: { ...hopBody(request.json, {}), outputs: 'none' } }),
      ['invariants.turn-completes', 'schemas.hop-responses'],
    );
    assert.equal(results[1]!.status, 'fail');
    assert.match(results[1]!.why, /outputs: /);
  });
});

describe('the level-2 turn checks', () => {
  const level2 = async () => ({ level: 2 as const, inputs: { malformedRequests: [], fixtures: await loadFixtures() } });
  const going = (request: FakeRequest): FakeResponse => ({
    status: 200,
    body: hopBody(request.json, {
      should_continue: true,
      progress: 'Going.',
      message: undefined,
      finish_reason: undefined,
    }),
  });

  it('fails the failure checks when a decision that cannot be replayed gets 500 internal_error instead of 502 provider_error', async () => {
    const results = await check(
      (request) => {
        if (request.method === 'DELETE') return cancelled(request);
        if (request.json.hop === 1) return going(request);
        return { status: 500, body: errorBody('internal_error') };
      },
      ['turn-rules.failed-turn-gone', 'turn-rules.failed-hop-keeps-narration'],
      await level2(),
    );
    assert.deepEqual(
      results.map((result) => result.status),
      ['fail', 'fail'],
    );
    assert.match(
      results[0]!.why,
      /answered 500 internal_error; scripted mode MUST fail a decision .* \(502 provider_error\)/,
    );
  });

  it('fails cancel.restart-410 against a server that starts a cancelled turn over on hop 1', async () => {
    const results = await check(
      (request) =>
        request.method === 'DELETE'
          ? {
              status: 200,
              body: { status: true, request_id: decodeURIComponent(request.path.split('/').at(-1)!), cancelled: true },
            }
          : going(request),
      ['cancel.restart-410'],
      await level2(),
    );
    assert.equal(results[0]!.status, 'fail');
    assert.match(results[0]!.why, /hop 1 of the cancelled turn, sent again, answered 200, expected 410 turn_not_found/);
  });

  it('passes cancel.restart-410 against a server that answers 410 to any hop of a cancelled turn', async () => {
    const gone = new Set<string>();
    const results = await check(
      (request) => {
        if (request.method === 'DELETE') {
          const id = decodeURIComponent(request.path.split('/').at(-1)!);
          gone.add(id);
          return { status: 200, body: { status: true, request_id: id, cancelled: true } };
        }
        return gone.has(request.json.request_id) ? { status: 410, body: errorBody('turn_not_found') } : going(request);
      },
      ['cancel.restart-410'],
      await level2(),
    );
    assert.equal(results[0]!.status, 'pass', results[0]!.why);
  });
});

describe('the stream checks (spec §6.1)', () => {
  const STREAM_JUDGES = [
    'stream.content-type',
    'stream.lines-valid',
    'stream.outputs-first',
    'stream.one-final-line',
    'stream.response-equals-json',
    'stream.replay-one-line',
  ];
  const output = { type: 'set_page_value', call_id: 'call_1', field: 'title', value: 'Crumb & Co.' };
  const asksForStream = (request: FakeRequest) => String(request.headers.accept ?? '').includes('x-ndjson');
  const ndjson = (lines: unknown[]): FakeResponse => ({
    status: 200,
    body: undefined,
    headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store' },
    text: lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
  });
  /** A server whose one-hop turn streams `lines(response)`, and answers replays as a server must. */
  const streaming =
    (lines: (response: unknown) => unknown[], replayed = new Set<string>()) =>
    (request: FakeRequest): FakeResponse => {
      if (request.method === 'DELETE') return cancelled(request);
      const response = hopBody(request.json, { outputs: [output] });
      const again = replayed.has(request.json.request_id);
      replayed.add(request.json.request_id);
      if (!asksForStream(request)) return { status: 200, body: response };
      return ndjson(again ? [{ type: 'response', response }] : lines(response));
    };

  it('fails, saying so, against a server that claims streaming and answers JSON to a request for a stream', async () => {
    const results = await check(
      (request) =>
        request.method === 'DELETE' ? cancelled(request) : { status: 200, body: hopBody(request.json, {}) },
      STREAM_JUDGES,
    );
    assert.equal(results.length, STREAM_JUDGES.length);
    for (const result of results) {
      assert.equal(result.status, 'fail', result.id);
      assert.match(
        result.why,
        /the server does not stream: it answered 200 application\/json.*though it claims streaming/,
      );
    }
  });

  it('passes a well-formed stream: outputs, words, response', async () => {
    const results = await check(
      streaming((response) => [
        { type: 'outputs', outputs: [output] },
        { type: 'text', delta: 'Hi' },
        { type: 'text', delta: '.' },
        { type: 'response', response },
      ]),
      STREAM_JUDGES,
    );
    assert.deepEqual(
      results.filter((result) => result.status !== 'pass').map((result) => `${result.id}: ${result.why}`),
      [],
    );
  });

  it('fails stream.outputs-first when the outputs line comes after a text line', async () => {
    const results = await check(
      streaming((response) => [
        { type: 'text', delta: 'Hi.' },
        { type: 'outputs', outputs: [output] },
        { type: 'response', response },
      ]),
      STREAM_JUDGES,
    );
    const failed = results.filter((result) => result.status === 'fail');
    assert.deepEqual(
      failed.map((result) => result.id),
      ['stream.outputs-first'],
    );
    assert.match(failed[0]!.why, /prompt hop 1 sent its outputs line after a text line/);
  });

  it('fails stream.one-final-line for a stream cut off before its last line, and for a line after it', async () => {
    const [cut] = await check(
      streaming(() => [{ type: 'text', delta: 'Hi.' }]),
      ['stream.one-final-line'],
    );
    assert.equal(cut!.status, 'fail');
    assert.match(cut!.why, /ended without a response or error line/);
    const [after] = await check(
      streaming((response) => [{ type: 'response', response }, { type: 'keepalive' }]),
      ['stream.one-final-line'],
    );
    assert.equal(after!.status, 'fail');
    assert.match(after!.why, /a keepalive line after the last line/);
  });

  it('fails stream.replay-one-line when a replay streams the hop again, and stream.lines-valid for a line of no type', async () => {
    const results = await check(
      (request) => {
        if (request.method === 'DELETE') return cancelled(request);
        const response = hopBody(request.json, {});
        if (!asksForStream(request)) return { status: 200, body: response };
        return ndjson([{ type: 'text', delta: 'Hi.' }, { kind: 'note' }, { type: 'response', response }]);
      },
      ['stream.replay-one-line', 'stream.lines-valid'],
    );
    assert.deepEqual(
      results.map((result) => [result.id, result.status]),
      [
        ['stream.lines-valid', 'fail'],
        ['stream.replay-one-line', 'fail'],
      ],
    );
    assert.match(results[0]!.why, /line 2 is not a HopStreamLine/);
    assert.match(results[1]!.why, /sent again got 2 lines \(text, response\), not one response line/);
  });

  it('fails stream.refusal-is-json and stream.json-without-accept against a server that always streams', async () => {
    const results = await check(
      (request) =>
        request.method === 'DELETE'
          ? cancelled(request)
          : ndjson([{ type: 'error', status: 410, error: errorBody('turn_not_found') }]),
      ['stream.refusal-is-json', 'stream.json-without-accept'],
    );
    assert.deepEqual(
      results.map((result) => [result.id, result.status]),
      [
        ['stream.json-without-accept', 'fail'],
        ['stream.refusal-is-json', 'fail'],
      ],
    );
    assert.match(results[0]!.why, /a hop without Accept was answered with a stream/);
    assert.match(results[1]!.why, /hop 2 of an unknown turn was answered with a stream/);
  });
});
