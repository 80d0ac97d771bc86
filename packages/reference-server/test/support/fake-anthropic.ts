import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonBody } from './harness.js';

/** One streamed reply: text deltas first, then tool_use blocks whose input JSON streams in pieces. */
export interface FakeStream {
  /** Text deltas of one text block, in order. */
  text?: string[];
  /** Tool uses; `input` is the JSON text as the model writes it (it may be broken), sent in `chunk`-sized pieces. */
  tool_uses?: Array<{ id: string; name: string; input: string; chunk?: number }>;
  /** The usage to report: the prompt counts in `message_start`, `output_tokens` in `message_delta`. */
  usage?: {
    input_tokens?: number;
    cache_creation_input_tokens?: number;
    cache_read_input_tokens?: number;
    output_tokens?: number;
  };
  /**
   * Where the stream breaks: the socket is destroyed right after `message_start` (`start`) or once the text deltas
   * are flushed (`text`); `end` closes the response cleanly after the text deltas, without `message_stop`.
   */
  cut?: 'start' | 'text' | 'end';
  /** An `error` event of this type follows `message_start`, and the stream ends (as an overloaded API does). */
  error_event?: string;
}

/** What the fake does for one request. */
export type FakeAnthropicStep =
  | FakeStream
  | { status: number; type: string; message: string; headers?: Record<string, string> }
  | { hang: 'headers' | 'events' };

/** A step, or a function choosing it from the request body (a model reading its conversation). */
export type FakeAnthropicBehaviour = FakeAnthropicStep | ((body: JsonBody) => FakeAnthropicStep);

/**
 * A local HTTP server on 127.0.0.1 speaking Anthropic's Messages API (POST /v1/messages, streamed as server-sent
 * events: `message_start`, `content_block_start/delta/stop`, `message_delta`, `message_stop`, `ping`, `error`). It
 * answers from a queue and records every request it received.
 */
export async function startFakeAnthropic(queue: FakeAnthropicBehaviour[]) {
  const requests: Array<{ body: JsonBody; headers: Record<string, string | string[] | undefined> }> = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/messages') {
        sendError(res, 404, 'not_found_error', `no route ${req.url}`);
        return;
      }
      const body = JSON.parse(text);
      requests.push({ body, headers: req.headers });
      const next = queue.shift() ?? { status: 500, type: 'api_error', message: 'the fake has no more replies' };
      const step = typeof next === 'function' ? next(body) : next;
      if ('hang' in step) {
        open.add(res);
        if (step.hang === 'events') res.writeHead(200, { 'content-type': 'text/event-stream' }).flushHeaders();
        return;
      }
      if ('status' in step) {
        sendError(res, step.status, step.type, step.message, step.headers);
        return;
      }
      stream(res, body.model, requests.length, step);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** The base URL to configure: the library appends `/v1/messages`. */
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    queue,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function sendError(res: ServerResponse, status: number, type: string, message: string, headers = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

function stream(res: ServerResponse, model: string, n: number, step: FakeStream): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: JsonBody) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const usage = step.usage ?? {};
  send('message_start', {
    type: 'message_start',
    message: {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input_tokens ?? 0,
        cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
        cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
        output_tokens: 1,
      },
    },
  });
  if (step.cut === 'start') return void res.destroy();
  if (step.error_event) {
    send('error', { type: 'error', error: { type: step.error_event, message: 'Overloaded' } });
    res.end();
    return;
  }
  let index = 0;
  if (step.text) {
    send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    send('ping', { type: 'ping' });
    for (const piece of step.text) {
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    }
    if (step.cut === 'text') return void res.write(': cut\n\n', () => res.destroy());
    if (step.cut === 'end') return void res.end();
    send('content_block_stop', { type: 'content_block_stop', index });
    index += 1;
  }
  for (const use of step.tool_uses ?? []) {
    send('content_block_start', {
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} },
    });
    const size = use.chunk ?? 40;
    for (let at = 0; at < use.input.length; at += size) {
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: use.input.slice(at, at + size) },
      });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
    index += 1;
  }
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: step.tool_uses?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: usage.output_tokens ?? 0 },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}
