import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as a fake server sees it. */
export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body text. */
  text: string;
  /** The body as JSON, or undefined. */
  // biome-ignore lint/suspicious/noExplicitAny: whatever the kit sent, valid or not; each test reads the fields it planted.
  json: any;
}

/** What a fake server answers. */
export interface FakeResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Sent verbatim instead of `body` as JSON (a streamed hop's NDJSON lines). */
  text?: string;
}

/** A tiny HTTP server on 127.0.0.1 (port 0) answering with `handle`, for testing the kit's checks one by one. */
export async function startFakeServer(
  handle: (request: FakeRequest) => FakeResponse | Promise<FakeResponse>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const answer = await handle({
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers: incoming.headers,
        text,
        json,
      });
      outgoing.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      outgoing.end(answer.text ?? JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** A protocol error body. */
export function errorBody(code: string, extra: Record<string, unknown> = {}) {
  return {
    status: false,
    should_continue: false,
    protocol: 'canvas-ai/1',
    progress: '',
    message: `fake ${code}`,
    error: { code },
    ...extra,
  };
}

/** A 200 hop response. */
export function hopBody(request: { request_id: string; hop: number }, fields: Record<string, unknown>) {
  return {
    status: true,
    protocol: 'canvas-ai/1',
    request_id: request.request_id,
    hop: request.hop,
    agent: { id: 'qa', label: 'Q&A' },
    outputs: [],
    progress: '',
    should_continue: false,
    message: 'Hi.',
    finish_reason: 'answer',
    ...fields,
  };
}
