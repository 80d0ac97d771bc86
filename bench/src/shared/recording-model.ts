import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolvePlacedRefs, type ScenarioReply } from '@canvas-ai/protocol/scenario';

/** One Chat Completions request as the endpoint received it. */
export interface RecordedRequest {
  /** The raw JSON body. */
  text: string;
  body: { model?: string; stream?: boolean; tools?: unknown[]; messages?: unknown[] };
}

/** A Chat Completions endpoint on 127.0.0.1 that plays scripted replies and keeps every request it got. */
export interface RecordingModel {
  /** `http://127.0.0.1:port/v1`, for the provider's `baseURL`. */
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Starts the endpoint. Request N gets reply N, its `{{placed.N}}` resolved against `placed()` (the uuids the server
 * assigned so far, in placed-reference order). It answers in the format
 * the request asks for: server-sent chunks for `stream: true`, one JSON completion otherwise, so the bench measures
 * the provider whichever way it calls.
 */
export async function startRecordingModel(
  replies: readonly ScenarioReply[],
  placed: () => readonly string[],
): Promise<RecordingModel> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        return fail(res, 404, `no route ${req.method} ${req.url}`);
      }
      const body = JSON.parse(text) as RecordedRequest['body'];
      requests.push({ text, body });
      const reply = replies[requests.length - 1];
      if (!reply) return fail(res, 500, `there are ${replies.length} replies, none for request ${requests.length}`);
      const toolCalls = reply.tool_calls.map((call) => ({
        id: call.id,
        type: 'function' as const,
        function: { name: call.name, arguments: resolvePlacedRefs(call.arguments, placed()) },
      }));
      const id = `chatcmpl-${requests.length}`;
      const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
      const usage = { prompt_tokens: Math.ceil(text.length / 4), completion_tokens: 1, total_tokens: 0 };
      usage.total_tokens = usage.prompt_tokens + 1;
      if (body.stream === true) {
        const chunk = (delta: object, finishReason: string | null = null) =>
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(chunk({ role: 'assistant', content: '' }));
        // The narration in a few pieces, as a model streams it.
        for (const piece of reply.text.match(/.{1,24}/gs) ?? []) res.write(chunk({ content: piece }));
        for (const [index, call] of toolCalls.entries()) res.write(chunk({ tool_calls: [{ index, ...call }] }));
        res.write(chunk({}, finish));
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, choices: [], usage })}\n\n`,
        );
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: reply.text,
                ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: finish,
            },
          ],
          usage,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function fail(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'server_error', code: null } }));
}
