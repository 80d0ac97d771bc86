import { realpathSync, statSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { serve, type HttpBindings } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { CanvasAiApp, StaticFiles } from './app.js';
import { LOOPBACK_HOSTS } from './origins.js';

/** A running Node HTTP server. */
export interface RunningServer {
  /** `http://host:port`, with the real port when 0 was asked for. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * What one client may hold of the Node server (spec §4.4): connections, and how long a request may take to arrive.
 * Behind a reverse proxy every client has the proxy's address: raise `maxConnectionsPerIp` there (or set 0),
 * and let the proxy limit each client.
 */
export interface ConnectionLimits {
  /** Connections open at once; one more is closed on arrival. Default 512 (below the usual 1,024 open files). */
  maxConnections?: number;
  /** Connections open at once from one client IP address; 0: no limit. Default 64. */
  maxConnectionsPerIp?: number;
  /** The request line and headers must arrive within this many milliseconds, or Node answers 408. Default 10,000. */
  headersTimeoutMs?: number;
  /**
   * The whole request must arrive within this many milliseconds, or Node answers 408 and closes the connection.
   * A backstop: the app's `bodyTimeoutMs` answers first, with the protocol's error body. Default 75,000.
   */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this many milliseconds. Default 5,000. */
  keepAliveTimeoutMs?: number;
}

/** The defaults of {@link ConnectionLimits} (the CLI's too). */
const DEFAULT_CONNECTION_LIMITS: Required<ConnectionLimits> = {
  maxConnections: 512,
  maxConnectionsPerIp: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 75_000,
  keepAliveTimeoutMs: 5_000,
};

/**
 * Serves the app on Node's HTTP server (the Hono Node adapter). Port 0 picks a free port. Each request reaches the
 * app with the client's address (`app.fetch(request, { clientAddress })`), for its per-client quotas.
 */
export function startServer(
  app: CanvasAiApp,
  options: { port?: number; host?: string } & ConnectionLimits = {},
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...definedOnly(options) };
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: (request, env) =>
          app.fetch(request, { clientAddress: (env as HttpBindings).incoming.socket.remoteAddress }),
        port: options.port ?? 8787,
        hostname: host,
        serverOptions: {
          headersTimeout: limits.headersTimeoutMs,
          requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
          keepAliveTimeout: limits.keepAliveTimeoutMs,
          // Node looks for expired requests every 30 s by default, so a 10 s timeout could take 40.
          connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
        },
      },
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
    (server as { maxConnections?: number }).maxConnections = limits.maxConnections;
    if (limits.maxConnectionsPerIp > 0) limitPerAddress(server, limits.maxConnectionsPerIp);
    server.once('error', reject);
  });
}

/** Closes a connection on arrival when its address already holds `max` open ones. */
function limitPerAddress(
  server: { on(event: 'connection', listener: (socket: Socket) => void): unknown },
  max: number,
) {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/**
 * The host names a server bound to `bindHost` answers to by default (spec §4.5): the loopback names when it is bound
 * to loopback; bound to one address, that address and the machine's name too; bound to every interface (`0.0.0.0`,
 * `::`), the address of each and the machine's name. Any other name (a domain in front of it) must be allowed by
 * name (`--allowed-hosts`).
 */
export function allowedHostsFor(bindHost: string): string[] {
  const asHost = (address: string) => (address.includes(':') ? `[${address}]` : address);
  const names = new Set(LOOPBACK_HOSTS);
  const bind = bindHost.replace(/^\[|\]$/g, '');
  if (isLoopback(bind)) return [...names];
  names.add(hostname().toLowerCase());
  if (bind === '0.0.0.0' || bind === '::') {
    for (const entries of Object.values(networkInterfaces()))
      for (const entry of entries ?? []) names.add(asHost(entry.address.toLowerCase()));
  } else {
    names.add(asHost(bind.toLowerCase()));
  }
  return [...names];
}

function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || /^127\./.test(address);
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * Serves files from a directory (relative to the working directory, or absolute) for `createApp({ staticFiles })`.
 * Never a dotfile or a file under a dot folder (`.env`, `.git/`), and never a file whose real path, symlinks
 * followed, is outside the directory: a link in the folder does not publish what it points to.
 */
export function staticDirectory(root: string): StaticFiles {
  const base = resolve(root);
  const realBase = realpathSync(base);
  const files = new Hono();
  files.use(
    '/*',
    serveStatic({
      root: base,
      index: 'index.html',
      // serveStatic has already refused . and .. segments and backslashes; a path refused here becomes one that
      // cannot exist (a NUL byte), so it answers 404 like any missing file.
      rewriteRequestPath: (path) => (isServable(realBase, base, path) ? path : '/\0'),
    }),
  );
  return async (request) => {
    const response = await files.fetch(request);
    return response.status === 404 ? undefined : response;
  };
}

/** Whether the request path names no dotfile and its real file (or folder index) is inside the root. */
function isServable(realBase: string, base: string, path: string): boolean {
  if (path.split('/').some((segment) => segment.startsWith('.'))) return false;
  const inside = (real: string) => real === realBase || real.startsWith(`${realBase}${sep}`);
  let real: string;
  try {
    real = realpathSync(join(base, path));
  } catch {
    // Nothing there: serveStatic answers 404.
    return true;
  }
  if (!inside(real)) return false;
  try {
    if (statSync(real).isDirectory()) return inside(realpathSync(join(real, 'index.html')));
  } catch {
    return true;
  }
  return true;
}
