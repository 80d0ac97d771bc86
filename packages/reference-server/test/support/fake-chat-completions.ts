import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonBody } from './harness.js';

/** A reply the fake writes as a real server would: streamed when the request asks for it, else one JSON body. */
export interface FakeReply {
  content?: string | null;
  tool_calls?: Array<{ id: string; name: string; arguments: string }>;
  /** Usage of the last chunk (sent only when the request asks for it); default prompt 1, completion 1. */
  usage?: JsonBody | null;
}

/** A scripted stream: every entry one `data:` event (an object as JSON, a string as it is, e.g. `[DONE]`). */
export interface FakeStream {
  chunks: Array<JsonBody | string>;
  /** After the chunks: `end` closes the response (default), `cut` destroys the connection, `stall` never ends. */
  ending?: 'end' | 'cut' | 'stall';
  /** Headers are sent at once; the first chunk only after this many milliseconds (a model slow to start). */
  firstChunkDelayMs?: number;
  /** Milliseconds between chunks (so a reader can see them arrive one by one). */
  gapMs?: number;
  /** After this many chunks the fake waits for `release()` (to see what a reader does before the end). */
  holdAfter?: number;
  /** HTTP status and content type; default 200 and text/event-stream. */
  status?: number;
  contentType?: string;
}

/** What the fake endpoint does for one request, in order. */
export type FakeBehaviour =
  | FakeReply
  | FakeStream
  | { status: number; message: string; headers?: Record<string, string> }
  /** An answer body as it is (JSON), e.g. a whole completion from a server that ignores `stream`, or an error body. */
  | { status?: number; json: unknown }
  | { hang: true };

/** One request the fake received. */
export interface FakeRequest {
  body: JsonBody;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A local HTTP server on 127.0.0.1 that speaks the Chat Completions wire format (POST /v1/chat/completions), as
 * OpenAI, Ollama, vLLM and LM Studio do: it answers from a queue — replies (streamed as server-sent events when the
 * request says `stream: true`), scripted chunk sequences, HTTP errors, connections cut or stalled — and records
 * every request it received.
 */
export async function startFakeChatCompletions(queue: FakeBehaviour[]) {
  const requests: FakeRequest[] = [];
  const open = new Set<ServerResponse>();
  const held: Array<() => void> = [];
  const gate = () => new Promise<void>((resolve) => held.push(resolve));
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/chat/completions') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const body = JSON.parse(text) as JsonBody;
      requests.push({ body, headers: req.headers });
      const behaviour = queue.shift() ?? { status: 500, message: 'the fake has no more replies' };
      open.add(res);
      res.on('close', () => open.delete(res));
      if ('hang' in behaviour) return;
      if ('message' in behaviour) {
        res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
        res.end(JSON.stringify({ error: { message: behaviour.message, type: 'server_error', code: null } }));
        return;
      }
      if ('json' in behaviour) {
        res.writeHead(behaviour.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(behaviour.json));
        return;
      }
      if ('chunks' in behaviour) {
        void play(res, behaviour, gate);
        return;
      }
      if (body.stream === true) {
        void play(res, { chunks: replyChunks(behaviour, body) }, gate);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(behaviour, body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    queue,
    /** Lets a held stream go on (see `holdAfter`). */
    release: () => held.shift()?.(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A started fake endpoint. */
export type FakeChatCompletions = Awaited<ReturnType<typeof startFakeChatCompletions>>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function play(res: ServerResponse, stream: FakeStream, gate: () => Promise<void>): Promise<void> {
  res.writeHead(stream.status ?? 200, {
    'content-type': stream.contentType ?? 'text/event-stream',
    'cache-control': 'no-cache',
  });
  res.flushHeaders();
  if (stream.firstChunkDelayMs) await sleep(stream.firstChunkDelayMs);
  for (const [index, chunk] of stream.chunks.entries()) {
    if (res.destroyed) return;
    if (index > 0 && stream.gapMs) await sleep(stream.gapMs);
    if (index > 0 && index === stream.holdAfter) await gate();
    res.write(`data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`);
  }
  if (stream.ending === 'cut') res.destroy();
  else if (stream.ending !== 'stall') res.end();
}

/** A reply as OpenAI streams it: a role chunk, the text in pieces, each call in two deltas, finish, usage, [DONE]. */
function replyChunks(reply: FakeReply, request: JsonBody): Array<JsonBody | string> {
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model: request.model };
  const chunk = (delta: JsonBody, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: Array<JsonBody | string> = [chunk({ role: 'assistant', content: '' })];
  const text = reply.content ?? '';
  for (let start = 0; start < text.length; start += 8) chunks.push(chunk({ content: text.slice(start, start + 8) }));
  for (const [index, call] of (reply.tool_calls ?? []).entries()) {
    const half = Math.ceil(call.arguments.length / 2);
    chunks.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments.slice(0, half) },
          },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] }),
    );
  }
  chunks.push(chunk({}, reply.tool_calls?.length ? 'tool_calls' : 'stop'));
  if (request.stream_options?.include_usage && reply.usage !== null) {
    chunks.push({
      ...base,
      choices: [],
      usage: reply.usage ?? { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  }
  chunks.push('[DONE]');
  return chunks;
}

function completion(reply: FakeReply, request: JsonBody): JsonBody {
  const toolCalls = reply.tool_calls?.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: request.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.content ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        finish_reason: toolCalls ? 'tool_calls' : 'stop',
      },
    ],
    ...(reply.usage === null
      ? {}
      : { usage: reply.usage ?? { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
  };
}
