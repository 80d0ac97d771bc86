import { realpathSync, statSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { serve, type HttpBindings } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { CanvasAiApp, StaticFiles } from './app.js';
import { addressBucket, clientAddress } from './client-address.js';
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
 * A client is its address's bucket (`addressBucket`: an IPv6 /64, an IPv4-mapped address as its IPv4). Behind a
 * reverse proxy every connection comes from the proxy: raise `maxConnectionsPerIp` there (or set 0), and let the
 * proxy limit each client.
 */
export interface ConnectionLimits {
  /** Connections open at once; one more is closed on arrival. Default 512 (below the usual 1,024 open files). */
  maxConnections?: number;
  /** Connections open at once from one client address; 0: no limit. Default 64. */
  maxConnectionsPerIp?: number;
  /**
   * The last this many of `maxConnections` are kept for clients that hold fewer than
   * {@link RESERVE_SHARE} connections (a health check, a new visitor): a few addresses holding slow bodies cannot
   * take every connection. At most a quarter of `maxConnections`; 0: no reserve. Default 64.
   */
  reservedConnections?: number;
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

/** How the Node server learns a request's client address. */
export interface ClientAddressOptions {
  /**
   * The request header a reverse proxy in front writes the client's address in (`x-forwarded-for`, `x-real-ip`);
   * of a list, the last entry (the one that proxy added). Only behind such a proxy: anyone else can write the
   * header. Default: none, the socket's address.
   */
  clientAddressHeader?: string;
}

/** A client holding fewer connections than this may use the reserve of {@link ConnectionLimits.reservedConnections}. */
const RESERVE_SHARE = 4;

/** The defaults of {@link ConnectionLimits} (the CLI's too). */
const DEFAULT_CONNECTION_LIMITS: Required<ConnectionLimits> = {
  maxConnections: 512,
  maxConnectionsPerIp: 64,
  reservedConnections: 64,
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
  options: { port?: number; host?: string } & ConnectionLimits & ClientAddressOptions = {},
): Promise<RunningServer> {
  const { port, host = '127.0.0.1', clientAddressHeader, ...given } = options;
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...definedOnly(given) };
  const header = clientAddressHeader?.trim().toLowerCase() || undefined;
  return new Promise((resolve, reject) => {
    const server = serve(
      {
        fetch: (request, env) =>
          app.fetch(request, {
            clientAddress: clientAddress((env as HttpBindings).incoming.socket.remoteAddress, request.headers, header),
          }),
        port: port ?? 8787,
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
    if (limits.maxConnectionsPerIp > 0 || limits.reservedConnections > 0) limitPerAddress(server, limits);
    server.once('error', reject);
  });
}

/**
 * Closes a connection on arrival when its address's bucket already holds `maxConnectionsPerIp` open ones, or when
 * only the reserve is left and the bucket already holds {@link RESERVE_SHARE}: the last connections go to clients
 * that hold few (spec §4.4).
 */
function limitPerAddress(
  server: { on(event: 'connection', listener: (socket: Socket) => void): unknown },
  limits: Required<ConnectionLimits>,
) {
  const open = new Map<string, number>();
  const reserve = Math.min(limits.reservedConnections, Math.floor(limits.maxConnections / 4));
  let total = 0;
  server.on('connection', (socket: Socket) => {
    const bucket = addressBucket(socket.remoteAddress ?? '');
    const held = open.get(bucket) ?? 0;
    const overShare = limits.maxConnectionsPerIp > 0 && held >= limits.maxConnectionsPerIp;
    const inReserve = reserve > 0 && total >= limits.maxConnections - reserve && held >= RESERVE_SHARE;
    if (overShare || inReserve) {
      socket.destroy();
      return;
    }
    open.set(bucket, held + 1);
    total += 1;
    socket.once('close', () => {
      total -= 1;
      const left = (open.get(bucket) ?? 1) - 1;
      if (left > 0) open.set(bucket, left);
      else open.delete(bucket);
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
