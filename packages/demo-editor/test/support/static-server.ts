import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A plain file server for dist/: no agent server behind it, and every path it was asked for recorded. */
export interface StaticServer {
  url: string;
  requested: string[];
  stop(): Promise<void>;
}

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Serves the built demo on 127.0.0.1 (a free port); anything not a file of dist/ is a 404. */
export async function startStaticServer(): Promise<StaticServer> {
  const requested: string[] = [];
  const server: Server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    requested.push(`${request.method} ${path}`);
    const file = normalize(join(DIST, path === '/' ? 'index.html' : path));
    const body = file.startsWith(DIST) ? await readFile(file).catch(() => undefined) : undefined;
    if (!body) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requested,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
