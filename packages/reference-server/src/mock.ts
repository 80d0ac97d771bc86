// @canvas-ai/reference-server/mock: msw handlers that run this server in the page (or in a test) while you build.
// Browser-safe: everything imported here uses web APIs only, so the files are imported directly, never index.ts
// (which pulls the Redis store and the Node adapter).
import { LIMITS, type AgentsConfig, type Attachment, type Catalog, type HopRequest } from '@canvas-ai/protocol';
import { readHopRequest } from '@canvas-ai/protocol/server';
import type { Scenario } from '@canvas-ai/protocol/scenario';
import { http, type HttpHandler } from 'msw';
import { type AppOptions, createApp } from './app.js';
import { ENDPOINTS } from './endpoints.js';
import { silentLogger } from './log.js';
import type { ModelProvider } from './providers/model-provider.js';
import { ScriptedProvider } from './providers/scripted.js';
import { MemoryTurnStore } from './store/memory.js';

/** Options of {@link createMockHandlers}: the fixtures as data (no file system, so it runs in a browser too). */
export interface MockOptions {
  /** The scenarios the scripted model replays (e.g. `loadFixtures()` from `@canvas-ai/protocol/node`). */
  scenarios: readonly Scenario[];
  /** The agents config: the main agent, the picker's agents, their tools and limits. */
  agents: AgentsConfig;
  /** The component catalog. */
  catalog: Catalog;
  /** Tools added to the built-in ones, as `createApp`'s `tools`; default: the built-in tools only. */
  tools?: AppOptions['tools'];
  /** The origin and path prefix served, e.g. `http://localhost:5173`; default: any origin. */
  baseUrl?: string;
  /** Milliseconds each model decision takes, with the turn locked (so a concurrent hop of it gets 409); default 0. */
  latencyMs?: number;
  /** The largest hop body in bytes, counted as it streams in (413 past it); default `LIMITS.maxBodyBytes`. */
  maxBodyBytes?: number;
  /** Demand on hops and cancels the `X-CSRF-Token` of `GET /api/token` (403 `csrf_invalid`); default off. */
  requireCsrf?: boolean;
  /** Called with every hop request that passes the door (content type, size, schema), before the server runs it. */
  onHopRequest?: (request: HopRequest, details: { attachments: Attachment[] }) => void;
}

/** Every request of the mock is one session: msw in Node keeps no cookies, and a page under development is one user. */
const MOCK_SESSION = 'mock-session';

/**
 * msw handlers that forward the server's paths (`/api/hop`, `/api/agents`, `/api/token`, `/healthz`) to the reference
 * server itself (`createApp`) with the scripted provider and a memory store: the same routes, turn rules, CSRF tokens,
 * errors and texts as a real deployment.
 * Handlers are values: pass them to `setupWorker` or `setupServer`. Each call is its own server with its own turns.
 */
export function createMockHandlers(options: MockOptions): HttpHandler[] {
  const maxBodyBytes = options.maxBodyBytes ?? LIMITS.maxBodyBytes;
  const app = createApp({
    agents: options.agents,
    catalog: options.catalog,
    provider: withLatency(new ScriptedProvider(options.scenarios), options.latencyMs ?? 0),
    store: new MemoryTurnStore(),
    ...(options.tools ? { tools: options.tools } : {}),
    log: silentLogger,
    security: {
      csrf: options.requireCsrf ?? false,
      sessionId: () => MOCK_SESSION,
      // The page under development is on whatever origin its dev server has; the mock answers it there.
      allowedHosts: '*',
    },
    limits: { maxBodyBytes },
  });
  const base = options.baseUrl === undefined ? '*' : options.baseUrl.replace(/\/+$/, '');
  const prefix = pathPrefix(base);

  const serve = async ({ request }: { request: Request }): Promise<Response> => {
    if (options.onHopRequest && request.method === 'POST' && new URL(request.url).pathname === `${prefix}/api/hop`) {
      await reportHop(request.clone(), maxBodyBytes, options.onHopRequest);
    }
    return app.fetch(prefix ? withoutPrefix(request, prefix) : request);
  };
  // The server's own paths only, every method (a wrong one gets the server's 405): a host's other `/api/*`
  // endpoints stay its own.
  return ENDPOINTS.map(({ path }) => http.all(`${base}${path}`, serve));
}

/** The scripted model, each decision delayed by `ms` (the hop holds its turn's lock meanwhile, as with a real one). */
function withLatency(provider: ModelProvider, ms: number): ModelProvider {
  if (ms <= 0) return provider;
  return {
    name: provider.name,
    decide: async (request) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return provider.decide(request);
    },
  };
}

/** Hands a hop to `onHopRequest` if it passes the door; one that does not is left to the server to refuse. */
async function reportHop(
  request: Request,
  maxBodyBytes: number,
  onHopRequest: NonNullable<MockOptions['onHopRequest']>,
): Promise<void> {
  const received = await readHopRequest(request, { maxBodyBytes }).catch(() => undefined);
  if (received) onHopRequest(received.request, { attachments: received.attachments });
}

/** The path part of `baseUrl` (`http://host/app` → `/app`), which the server's routes do not have. */
function pathPrefix(base: string): string {
  if (base === '*') return '';
  const path = /^[a-z][a-z0-9+.-]*:\/\//i.test(base) ? new URL(base).pathname : base;
  return path.replace(/\/+$/, '');
}

/** The same request at the server's own path: `/app/api/hop` → `/api/hop`. */
function withoutPrefix(request: Request, prefix: string): Request {
  const url = new URL(request.url);
  url.pathname = url.pathname.slice(prefix.length);
  return new Request(url, request);
}
