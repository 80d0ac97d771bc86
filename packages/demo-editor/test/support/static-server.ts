import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

/**
 * A host's own web server for the built demo: plain files, no agent API, on 127.0.0.1 (another origin than it), and
 * every request it was asked recorded (`GET /path`).
 */
export interface StaticServer {
  origin: string;
  requested: string[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/**
 * Serves `root` (index.html for `/`); anything else, dot segments included, is 404. With `apiTarget`, requests under
 * `/api/` go to that server instead, as a host's reverse proxy sends them: the page's agent server on its own origin.
 */
export async function startStaticServer(root: string, options: { apiTarget?: string } = {}): Promise<StaticServer> {
  const requested: string[] = [];
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    requested.push(`${request.method} ${path}`);
    if (options.apiTarget && path.startsWith('/api/')) {
      forward(request, response, options.apiTarget);
      return;
    }
    const file = normalize(join(root, path === '/' ? 'index.html' : decodeURIComponent(path)));
    if (!file.startsWith(normalize(root))) {
      response.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requested,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Sends `request` on to `target` and its answer back, streamed both ways. A connection that ends on one side ends
 * the other: a browser's abort reaches the server, and an answer cut short reaches the browser as a network error.
 */
function forward(request: IncomingMessage, response: ServerResponse, target: string): void {
  const headers = { ...request.headers };
  delete headers.host;
  const upstream = httpRequest(new URL(request.url ?? '/', target), { method: request.method, headers }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(response);
    answer.on('aborted', () => response.destroy());
    answer.on('error', () => response.destroy());
  });
  upstream.on('error', () => response.destroy());
  response.on('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
  request.pipe(upstream);
}
