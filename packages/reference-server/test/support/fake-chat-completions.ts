import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonBody } from './harness.js';

/** What the fake endpoint does for one request, in order. */
export type FakeBehaviour =
  | { content?: string | null; tool_calls?: Array<{ id: string; name: string; arguments: string }> }
  | { status: number; message: string }
  | { hang: true };

/**
 * A local HTTP server on 127.0.0.1 that speaks the Chat Completions wire format (POST /v1/chat/completions), as
 * OpenAI, Ollama, vLLM and LM Studio do: it answers from a queue and records every request body it received.
 */
export async function startFakeChatCompletions(queue: FakeBehaviour[]) {
  const requests: JsonBody[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const body = JSON.parse(text);
      requests.push({ body, headers: req.headers });
      const behaviour = queue.shift() ?? { status: 500, message: 'the fake has no more replies' };
      if ('hang' in behaviour) {
        hanging.push(res);
        return;
      }
      if ('status' in behaviour) {
        res.writeHead(behaviour.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: behaviour.message, type: 'server_error', code: null } }));
        return;
      }
      const toolCalls = behaviour.tool_calls?.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: behaviour.content ?? null,
                ...(toolCalls ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: toolCalls ? 'tool_calls' : 'stop',
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    queue,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
