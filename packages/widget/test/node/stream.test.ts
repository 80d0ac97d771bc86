// The streamed hop (spec §6, revision 1.4) read by the loop alone, in Node: a scripted fetch hands the loop
// streams the test writes line by line and holds open, so what the loop did before the last line is observed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HopRequest, ToolOutput } from '@canvas-ai/protocol';
import { answerResponse, continuingResponse, HopError } from '@canvas-ai/protocol/server';
import { ndjsonLines } from '../../src/ndjson-lines.js';
import {
  STREAM_ACCEPT,
  startTurn,
  type ApplyInfo,
  type RetryReport,
  type TextReport,
  type TurnOptions,
} from '../../src/hop-loop.js';

const AGENT = { id: 'page_builder', label: 'Page builder' };
const TITLE: ToolOutput = { type: 'set_page_value', call_id: 'c1', field: 'title', value: 'Cookies' };
const SUBTITLE: ToolOutput = { type: 'set_page_value', call_id: 'c2', field: 'subtitle', value: 'Fresh' };

/** A stream the test writes into: lines as objects, then a close, a cut, or nothing (held open). */
function writable() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  const encoder = new TextEncoder();
  return {
    body,
    send: (line: unknown) => controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`)),
    raw: (text: string) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
    cut: () => controller.error(new TypeError('network error')),
  };
}

function ndjson(body: ReadableStream<Uint8Array>): Response {
  return new Response(body, { headers: { 'Content-Type': 'application/x-ndjson; charset=utf-8' } });
}

/** One answer of the scripted server: a Response, given the request and how many times this hop came. */
type Answer = (request: HopRequest, init: RequestInit, attempt: number) => Response | Promise<Response>;

/** A fetch that answers hop N with `answers[N - 1]`, records every call, and answers DELETEs. */
function scriptedFetch(answers: Answer[]) {
  const posts: Array<{ request: HopRequest; init: RequestInit }> = [];
  const deletes: string[] = [];
  const attempts = new Map<number, number>();
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    if (init.method === 'DELETE') {
      deletes.push(String(input));
      return Response.json({ status: true, request_id: 'x', cancelled: true });
    }
    const request = JSON.parse(String(init.body)) as HopRequest;
    posts.push({ request, init });
    const attempt = (attempts.get(request.hop) ?? 0) + 1;
    attempts.set(request.hop, attempt);
    return answers[request.hop - 1]!(request, init, attempt);
  };
  return { fetch: fetch as typeof globalThis.fetch, posts, deletes };
}

/** Records every applyOutputs call. */
function recordingHost() {
  const calls: Array<{ outputs: ToolOutput[]; response: unknown; info: ApplyInfo }> = [];
  return {
    calls,
    getLayout: () => ({ layout: { regions: { content: { components: [] } } }, page: {} }),
    applyOutputs: (outputs: ToolOutput[], response: unknown, info: ApplyInfo) => {
      calls.push({ outputs, response, info });
      return outputs.map((output) => ({ call_id: output.call_id, status: 'applied' as const }));
    },
  };
}

const head = (request: HopRequest, outputs: ToolOutput[] = []) => ({
  requestId: request.request_id,
  hop: request.hop,
  agent: AGENT,
  outputs,
});

function options(
  fetch: typeof globalThis.fetch,
  host: ReturnType<typeof recordingHost>,
  more: Partial<TurnOptions> = {},
) {
  return {
    endpoint: 'http://127.0.0.1:1/api/hop',
    messages: [{ role: 'user' as const, text: 'Make a cookie shop' }],
    getLayout: host.getLayout,
    applyOutputs: host.applyOutputs,
    fetch,
    retryDelays: [0, 0, 0],
    ...more,
  } satisfies TurnOptions;
}

/** Waits until `check` holds, yielding to the event loop in between (no clock involved in the result). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail(`never happened: ${what}`);
}

describe('ndjsonLines', () => {
  it('yields the same lines however the bytes are cut, a character of several bytes split included', async () => {
    const text = '{"type":"text","delta":"é🍪 x"}\n\n{"type":"keepalive"}\r\n{"type":"text","delta":"ß"}\n';
    const bytes = new TextEncoder().encode(text);
    for (const size of [1, 2, 3, 5, 7, bytes.length]) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.slice(at, at + size));
          controller.close();
        },
      });
      const lines: string[] = [];
      for await (const line of ndjsonLines(body)) lines.push(line);
      assert.deepEqual(
        lines,
        ['{"type":"text","delta":"é🍪 x"}', '{"type":"keepalive"}', '{"type":"text","delta":"ß"}'],
        `chunks of ${size} bytes`,
      );
    }
  });

  it('drops a last piece that has no newline: the stream may have been cut inside it', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"type":"keepalive"}\n{"type":"response","resp'));
        controller.close();
      },
    });
    const lines: string[] = [];
    for await (const line of ndjsonLines(body)) lines.push(line);
    assert.deepEqual(lines, ['{"type":"keepalive"}']);
  });
});

describe('the hop loop reading a streamed hop', () => {
  it('asks for the stream, and for JSON only with stream: false', async () => {
    for (const stream of [undefined, false]) {
      const host = recordingHost();
      const server = scriptedFetch([(request) => Response.json(answerResponse(head(request), ['Hi.']))]);
      const result = await startTurn(options(server.fetch, host, stream === undefined ? {} : { stream })).result;
      assert.equal(result.status, 'done');
      const headers = server.posts[0]!.init.headers as Record<string, string>;
      assert.equal(headers.Accept, stream === false ? 'application/json' : STREAM_ACCEPT);
    }
  });

  it('applies the outputs line the moment it arrives (response undefined, info.hop set), and never again', async () => {
    const host = recordingHost();
    const streams = [writable(), writable()];
    const texts: TextReport[] = [];
    const hops: number[] = [];
    const server = scriptedFetch([
      (request) => Response.json(continuingResponse(head(request), ['I will set the title.'])),
      () => ndjson(streams[1]!.body),
      (request) => Response.json(answerResponse(head(request), ['I will set the title.', 'Done.'])),
    ]);
    const turn = startTurn(
      options(server.fetch, host, {
        onText: (report) => texts.push(report),
        onHop: (report) => hops.push(report.hop),
      }),
    );
    await until(() => server.posts.length === 2, 'hop 2 sent');
    const stream = streams[1]!;
    stream.send({ type: 'outputs', outputs: [TITLE] });
    await until(() => host.calls.length === 2, 'the outputs applied');
    // Applied while the response line has not been written: the stream is still open.
    assert.deepEqual(host.calls[1], {
      outputs: [TITLE],
      response: undefined,
      info: { requestId: turn.requestId, kind: 'hop', hop: 2 },
    });
    assert.deepEqual(hops, [1]);
    stream.send({ type: 'keepalive' });
    stream.send({ type: 'text', delta: 'Now the ' });
    stream.send({ type: 'text', delta: 'subtitle.' });
    await until(() => texts.length === 2, 'two text pieces');
    assert.deepEqual(
      texts.map(({ hop, delta, text }) => ({ hop, delta, text })),
      [
        { hop: 2, delta: 'Now the ', text: 'Now the ' },
        { hop: 2, delta: 'subtitle.', text: 'Now the subtitle.' },
      ],
    );
    const request = server.posts[1]!.request;
    stream.send({
      type: 'response',
      response: continuingResponse(head(request, [TITLE]), ['I will set the title.', 'Now the subtitle.']),
    });
    stream.close();
    const result = await turn.result;
    assert.equal(result.status, 'done');
    assert.deepEqual(hops, [1, 2, 3]);
    // Hop 2's outputs once (from the outputs line), hops 1 and 3 with their (empty) outputs and their response.
    assert.deepEqual(
      host.calls.map((call) => [call.info.hop, call.outputs.length, call.response === undefined]),
      [
        [1, 0, false],
        [2, 1, true],
        [3, 0, false],
      ],
    );
    assert.deepEqual(result.changes.outputs, [TITLE]);
  });

  it('ends the turn with an error when the response line carries other outputs than the ones applied', async () => {
    const host = recordingHost();
    const server = scriptedFetch([
      (request) => {
        const stream = writable();
        stream.send({ type: 'outputs', outputs: [TITLE] });
        stream.send({ type: 'response', response: continuingResponse(head(request, [SUBTITLE]), ['x']) });
        stream.close();
        return ndjson(stream.body);
      },
    ]);
    const result = await startTurn(options(server.fetch, host)).result;
    assert.equal(result.status, 'error');
    if (result.status !== 'error') return;
    assert.equal(result.error.kind, 'invalid_response');
    assert.match(result.error.message, /changed the outputs it had sent/);
    assert.equal(host.calls.length, 1, 'the outputs were applied once, the others never');
    await until(() => server.deletes.length === 1, 'the turn cancelled on the server');
  });

  it('turns an error line into the TurnError the JSON error body would give, and does not retry it', async () => {
    const host = recordingHost();
    const failure = new HopError('provider_error', 'The model provider failed.', { progress: 'So far.' });
    const jsonBody = await failure.toResponse().json();
    const server = scriptedFetch([
      () => {
        const stream = writable();
        stream.send({ type: 'text', delta: 'Let me' });
        stream.send({ type: 'error', status: 502, error: jsonBody });
        stream.close();
        return ndjson(stream.body);
      },
    ]);
    const result = await startTurn(options(server.fetch, host)).result;
    assert.equal(result.status, 'error');
    if (result.status !== 'error') return;
    assert.equal(result.error.kind, 'http');
    assert.equal(result.error.status, 502);
    assert.equal(result.error.code, 'provider_error');
    assert.equal(result.error.message, 'The model provider failed.');
    assert.equal(result.error.body?.progress, 'So far.');
    assert.equal(server.posts.length, 1);
  });

  it('sends the same hop again when the stream ends without its last line, or breaks', async () => {
    for (const end of ['close', 'cut'] as const) {
      const host = recordingHost();
      const texts: TextReport[] = [];
      const retries: RetryReport[] = [];
      const server = scriptedFetch([
        (request, _init, attempt) => {
          const stream = writable();
          if (attempt === 1) {
            stream.send({ type: 'text', delta: 'Hel' });
            stream.raw('{"type":"text","del');
            stream[end]();
          } else {
            // The replay: one response line, the stored response.
            stream.send({ type: 'response', response: answerResponse(head(request), ['Hello.']) });
            stream.close();
          }
          return ndjson(stream.body);
        },
      ]);
      const result = await startTurn(
        options(server.fetch, host, {
          onText: (report) => texts.push(report),
          onRetry: (report) => retries.push(report),
        }),
      ).result;
      assert.equal(result.status, 'done', end);
      if (result.status === 'done') assert.equal(result.response.message, 'Hello.');
      assert.deepEqual(
        server.posts.map((post) => post.request.hop),
        [1, 1],
        end,
      );
      assert.equal(retries[0]?.reason, 'network', end);
      assert.match(retries[0]?.error.message ?? '', /broke off before its end/);
      assert.equal(host.calls.length, 1, end);
    }
  });

  it('replays a cut hop: the stored response with the outputs already applied ends the hop without applying them again', async () => {
    const host = recordingHost();
    const texts: TextReport[] = [];
    const server = scriptedFetch([
      (request) => Response.json(continuingResponse(head(request), ['Setting the title.'])),
      (request, _init, attempt) => {
        const stream = writable();
        if (attempt === 1) {
          stream.send({ type: 'outputs', outputs: [TITLE] });
          stream.send({ type: 'text', delta: 'All ' });
          stream.cut();
        } else {
          stream.send({
            type: 'response',
            response: continuingResponse(head(request, [TITLE]), ['Setting the title.', 'All set.']),
          });
          stream.close();
        }
        return ndjson(stream.body);
      },
      (request) => Response.json(answerResponse(head(request), ['Setting the title.', 'All set.', 'Done.'])),
    ]);
    const result = await startTurn(options(server.fetch, host, { onText: (report) => texts.push(report) })).result;
    assert.equal(result.status, 'done');
    assert.deepEqual(
      server.posts.map((post) => post.request.hop),
      [1, 2, 2, 3],
    );
    assert.deepEqual(
      host.calls.map((call) => call.info.hop),
      [1, 2, 3],
    );
    assert.deepEqual(result.changes.outputs, [TITLE]);
    // Hop 3 reports that hop 2's output was applied.
    assert.deepEqual(server.posts[3]!.request.apply_results, [{ call_id: 'c1', status: 'applied' }]);
  });

  it('rejects a line that is not JSON, and one that does not follow its schema', async () => {
    for (const line of ['{"type":"text","delta":', '{"type":"outputs","outputs":[{"type":"nope"}]}']) {
      const host = recordingHost();
      const server = scriptedFetch([
        () => {
          const stream = writable();
          stream.raw(`${line}\n`);
          stream.close();
          return ndjson(stream.body);
        },
      ]);
      const result = await startTurn(options(server.fetch, host)).result;
      assert.equal(result.status, 'error');
      if (result.status === 'error') assert.equal(result.error.kind, 'invalid_response', line);
      assert.equal(host.calls.length, 0);
    }
  });

  it('skips a line of a type it does not know (a later revision may add one)', async () => {
    const host = recordingHost();
    const server = scriptedFetch([
      (request) => {
        const stream = writable();
        stream.send({ type: 'usage', tokens: 3 });
        stream.send({ type: 'response', response: answerResponse(head(request), ['Hi.']) });
        stream.close();
        return ndjson(stream.body);
      },
    ]);
    const result = await startTurn(options(server.fetch, host)).result;
    assert.equal(result.status, 'done');
  });

  it('stops mid-stream: the stream is aborted, the server told, and what was applied is in the changes', async () => {
    const host = recordingHost();
    const stream = writable();
    let signal: AbortSignal | undefined;
    const server = scriptedFetch([
      (_request, init) => {
        signal = init.signal ?? undefined;
        stream.send({ type: 'outputs', outputs: [TITLE] });
        stream.send({ type: 'text', delta: 'Working' });
        return ndjson(stream.body);
      },
    ]);
    const texts: TextReport[] = [];
    const turn = startTurn(options(server.fetch, host, { onText: (report) => texts.push(report) }));
    await until(() => texts.length === 1, 'the text arrived');
    turn.stop();
    const result = await turn.result;
    assert.equal(result.status, 'stopped');
    assert.equal(signal?.aborted, true);
    await until(() => server.deletes.length === 1, 'the turn cancelled on the server');
    assert.deepEqual(result.changes.outputs, [TITLE]);
  });

  it("waits the server's Retry-After on a 409 hop_in_progress, as often as it comes, beyond the count of its delays", async () => {
    for (const [retryAfter, refusals, expected] of [
      ['0', 3, 100],
      ['1', 1, 1000],
    ] as const) {
      const host = recordingHost();
      const retries: RetryReport[] = [];
      const server = scriptedFetch([
        (request, _init, attempt) => {
          if (attempt <= refusals) {
            const refused = new HopError('hop_in_progress', 'Busy.', { requestId: request.request_id }).toResponse();
            const headers = new Headers(refused.headers);
            headers.set('Retry-After', retryAfter);
            return new Response(refused.body, { status: refused.status, headers });
          }
          return Response.json(answerResponse(head(request), ['Hi.']));
        },
      ]);
      // One planned retry only: the Retry-After waits do not count against it.
      const result = await startTurn(
        options(server.fetch, host, { retryDelays: [5], onRetry: (report) => retries.push(report) }),
      ).result;
      assert.equal(result.status, 'done');
      assert.deepEqual(
        retries.map((report) => [report.reason, report.delay]),
        Array.from({ length: refusals }, () => ['hop_in_progress', expected]),
      );
    }
  });

  it("waits a 503's Retry-After within the longest of its delays, and never retries with no delays", async () => {
    for (const [delays, expected] of [
      [[5, 40], [['unavailable', 40]]],
      [[], []],
    ] as const) {
      const host = recordingHost();
      const retries: RetryReport[] = [];
      const server = scriptedFetch([
        (request, _init, attempt) => {
          if (attempt === 1) {
            const refused = new HopError('store_unavailable', 'Down.', { requestId: request.request_id }).toResponse();
            const headers = new Headers(refused.headers);
            headers.set('Retry-After', '3');
            return new Response(refused.body, { status: refused.status, headers });
          }
          return Response.json(answerResponse(head(request), ['Hi.']));
        },
      ]);
      const result = await startTurn(
        options(server.fetch, host, { retryDelays: delays, onRetry: (report) => retries.push(report) }),
      ).result;
      assert.equal(result.status, delays.length === 0 ? 'error' : 'done');
      assert.deepEqual(
        retries.map((report) => [report.reason, report.delay]),
        expected,
      );
    }
  });
});
