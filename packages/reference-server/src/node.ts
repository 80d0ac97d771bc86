import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { CanvasAiApp, StaticFiles } from './app.js';

/** A running Node HTTP server. */
export interface RunningServer {
  /** `http://host:port`, with the real port when 0 was asked for. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves the app on Node's HTTP server (the Hono Node adapter). Port 0 picks a free port. */
export function startServer(app: CanvasAiApp, options: { port?: number; host?: string } = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: (request) => app.fetch(request), port: options.port ?? 8787, hostname: host },
      (info: AddressInfo) => {
        const hostInUrl = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${hostInUrl}:${info.port}`,
          port: info.port,
          close: () =>
            new Promise<void>((done, fail) => {
              server.close((error) => (error ? fail(error) : done()));
              // Keep-alive connections would hold close() open until they time out.
              if ('closeAllConnections' in server) server.closeAllConnections();
            }),
        });
      },
    );
    server.once('error', reject);
  });
}

/** Serves files from a directory (relative to the working directory, or absolute) for `createApp({ staticFiles })`. */
export function staticDirectory(root: string): StaticFiles {
  const files = new Hono();
  files.use('/*', serveStatic({ root: resolve(root), index: 'index.html' }));
  return async (request) => {
    const response = await files.fetch(request);
    return response.status === 404 ? undefined : response;
  };
}
