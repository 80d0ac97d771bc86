import type { Layout } from '@canvas-ai/protocol';
import type { Fixtures } from '@canvas-ai/protocol/scenario';
import { loadFixtures } from '@canvas-ai/protocol/node';
import { createApp, type AppOptions } from '../../src/app.js';
import type { LogEntry } from '../../src/log.js';
import { startServer, type RunningServer } from '../../src/node.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import { MemoryTurnStore } from '../../src/store/memory.js';

/** A JSON body as the tests read it: they reach into its fields, and a missing one fails the assertion. */
// biome-ignore lint/suspicious/noExplicitAny: the assertions are the type check of a body a test reads.
export type JsonBody = any;

/** A page with one empty `content` region: the layout most hops of these tests send. */
export const EMPTY_LAYOUT: Layout = { regions: { content: { components: [] } } };

let fixtures: Promise<Fixtures> | undefined;
/** The repository's fixtures, read once per test file. */
export function sharedFixtures(): Promise<Fixtures> {
  fixtures ??= loadFixtures();
  return fixtures;
}

/** A real server on 127.0.0.1 (port 0) with the scripted provider and the memory store, plus its log lines. */
export interface TestServer extends RunningServer {
  hopUrl: string;
  logs: LogEntry[];
  store: MemoryTurnStore;
  fixtures: Fixtures;
}

/** Starts the real HTTP server; options override the defaults (scripted provider, memory store, fixtures). */
export async function startTestServer(
  overrides: Partial<AppOptions> = {},
  serverOptions: Parameters<typeof startServer>[1] = {},
): Promise<TestServer> {
  const loaded = await sharedFixtures();
  const logs: LogEntry[] = [];
  const store = new MemoryTurnStore();
  const app = createApp({
    agents: loaded.agents,
    catalog: loaded.catalog,
    provider: new ScriptedProvider(loaded.scenarios),
    store,
    log: (entry) => logs.push(entry),
    ...overrides,
  });
  const server = await startServer(app, { ...serverOptions, port: 0, host: '127.0.0.1' });
  return { ...server, hopUrl: `${server.url}/api/hop`, logs, store, fixtures: loaded };
}

/** A browser-like session: the cookie from `GET /api/token` and the CSRF token, sent with every request. */
export interface TestSession {
  cookie: string;
  /** The session id the cookie carries (signed: `<id>.<signature>`): what turn keys are scoped to. */
  id: string;
  token: string;
  headers(extra?: Record<string, string>): Record<string, string>;
  /** POSTs a hop request as JSON. */
  hop(body: unknown): Promise<{ status: number; body: JsonBody }>;
  /** DELETE /api/hop/:request_id. */
  cancel(requestId: string): Promise<{ status: number; body: JsonBody }>;
}

/**
 * Opens a session against a running server, as the widget does before its first hop; `sent` goes with every request
 * of the session (e.g. the `x-forwarded-for` of a proxy in front).
 */
export async function openSession(server: { url: string }, sent: Record<string, string> = {}): Promise<TestSession> {
  const response = await fetch(`${server.url}/api/token`, { headers: sent });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { token } = (await response.json()) as { token: string };
  const headers = (extra: Record<string, string> = {}) => ({ ...sent, cookie, 'x-csrf-token': token, ...extra });
  return {
    cookie,
    id: cookie.split('=')[1]?.split('.')[0] ?? '',
    token,
    headers,
    async hop(body) {
      const reply = await fetch(`${server.url}/api/hop`, {
        method: 'POST',
        headers: headers({ 'content-type': 'application/json' }),
        body: JSON.stringify(body),
      });
      return { status: reply.status, body: await reply.json() };
    },
    async cancel(requestId) {
      const reply = await fetch(`${server.url}/api/hop/${encodeURIComponent(requestId)}`, {
        method: 'DELETE',
        headers: headers(),
      });
      return { status: reply.status, body: await reply.json() };
    },
  };
}

/** A hop-1 request for a user message. */
export function firstHop(requestId: string, text: string, extra: Record<string, unknown> = {}) {
  return {
    protocol: 'canvas-ai/1',
    request_id: requestId,
    hop: 1,
    messages: [{ role: 'user', text }],
    context: { current_layout: structuredClone(EMPTY_LAYOUT) },
    ...extra,
  };
}

/** A later hop of a turn, carrying the layout the client holds now. */
export function laterHop(requestId: string, hop: number, layout: unknown, extra: Record<string, unknown> = {}) {
  return { protocol: 'canvas-ai/1', request_id: requestId, hop, context: { current_layout: layout }, ...extra };
}
