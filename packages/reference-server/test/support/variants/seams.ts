// The seams a planted bug is put in: the real app built with a store, a model or a config of the variant's, and
// wrappers around its fetch handler (what a proxy or a middleware could do). No bug flag in src/.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AgentsConfig } from '@canvas-ai/protocol';
import type { Fixtures } from '@canvas-ai/protocol/scenario';
import type { CanvasAiApp } from '../../../src/app.js';
import { createApp } from '../../../src/app.js';
import { silentLogger } from '../../../src/log.js';
import type { ModelProvider, ModelReply, ModelRequest } from '../../../src/providers/model-provider.js';
import { ScriptedProvider } from '../../../src/providers/scripted.js';
import { MemoryTurnStore } from '../../../src/store/memory.js';
import type { TurnLock, TurnStore } from '../../../src/store/turn-store.js';

/** A JSON object as a variant reads and rewrites it. */
export type Json = Record<string, unknown>;

/** What a variant may put in place of the real app's parts. */
export interface RealAppParts {
  store?: TurnStore;
  /** Wraps the scripted model. */
  model?: (scripted: ModelProvider) => ModelProvider;
  /** Changes the agents config. */
  agents?: (agents: AgentsConfig) => AgentsConfig;
  /** The quotas of a deployment (spec §8.8), instead of the defaults. */
  quotas?: Parameters<typeof createApp>[0]['quotas'];
}

/** The unbroken app, as the harness builds it (scripted provider over the fixtures, CSRF on), with a part replaced. */
export function realApp(fixtures: Fixtures, parts: RealAppParts = {}): CanvasAiApp {
  const scripted = new ScriptedProvider(fixtures.scenarios);
  return createApp({
    agents: parts.agents ? parts.agents(structuredClone(fixtures.agents)) : fixtures.agents,
    catalog: fixtures.catalog,
    provider: parts.model ? parts.model(scripted) : scripted,
    store: parts.store ?? new MemoryTurnStore(),
    log: silentLogger,
    ...(parts.quotas ? { quotas: parts.quotas } : {}),
  });
}

export function isHopPost(request: Request): boolean {
  return request.method === 'POST' && new URL(request.url).pathname === '/api/hop';
}

/** The request's JSON body as an object, or undefined (multipart, malformed). */
export async function jsonBody(request: Request): Promise<Json | undefined> {
  if (!(request.headers.get('content-type') ?? '').startsWith('application/json')) return undefined;
  try {
    const body: unknown = JSON.parse(await request.clone().text());
    return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** The same request with another JSON body (headers kept, the stale length dropped). */
export function withBody(request: Request, body: Json): Request {
  const headers = new Headers(request.headers);
  headers.delete('content-length');
  return new Request(request.url, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** The same response with another JSON body (cookies and other headers kept). */
export function withJson(response: Response, body: unknown, status = response.status): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status, headers });
}

/** An error answer with the protocol's body, as a buggy server would build it by hand. */
export function errorAnswer(status: number, code: string, message: string, field?: string): Response {
  return new Response(
    JSON.stringify({
      status: false,
      should_continue: false,
      protocol: 'canvas-ai/1',
      progress: '',
      message,
      error: { code, ...(field === undefined ? {} : { field }) },
    }),
    { status, headers: { 'content-type': 'application/json' } },
  );
}

/**
 * A middleware in front of the app: it sees every request and may answer it, or hand it on and rewrite the answer.
 * It reads and rewrites JSON answers, so it serves no streams: a request for one is handed on asking for JSON (a
 * server MAY answer JSON to it, spec §6.1), unless the variant rewrites streams itself (`streams`).
 */
export function wrap(
  app: VariantApp,
  handle: (request: Request, next: (request: Request) => Promise<Response>) => Promise<Response>,
  options: { streams?: boolean } = {},
): VariantApp {
  return {
    fetch: (request) => handle(options.streams ? request : askingForJson(request), (forwarded) => app.fetch(forwarded)),
    streams: options.streams === true && app.streams !== false,
  };
}

/** An app as a variant builds it: `streams` is false when a layer of it serves every hop as JSON. */
export interface VariantApp extends CanvasAiApp {
  streams?: boolean;
}

/** The request with `Accept: application/json` when it asked for a stream. */
function askingForJson(request: Request): Request {
  if (!(request.headers.get('accept') ?? '').toLowerCase().includes('application/x-ndjson')) return request;
  const headers = new Headers(request.headers);
  headers.set('accept', 'application/json');
  return new Request(request, { headers });
}

export function isStatusGet(request: Request): boolean {
  return request.method === 'GET' && new URL(request.url).pathname.startsWith('/api/hop/');
}

/**
 * Rewrites the body of every 200 hop response (a faulty response builder), and so the final response a turn status
 * hands back (spec §8.6), which is the response as it was built and sent.
 */
export function rewriteHopResponses(
  app: CanvasAiApp,
  rewrite: (body: Json, request: Json | undefined) => Json,
): CanvasAiApp {
  return wrap(app, async (request, next) => {
    const sent = isHopPost(request) ? await jsonBody(request) : undefined;
    const response = await next(request);
    if (response.status !== 200) return response;
    if (isStatusGet(request)) {
      const status = (await response.clone().json()) as Json;
      if (status.state !== 'finished') return response;
      return withJson(response, { ...status, response: rewrite(status.response as Json, undefined) });
    }
    if (!isHopPost(request)) return response;
    return withJson(response, rewrite((await response.json()) as Json, sent));
  });
}

/** A turn store whose keys lose their session part: one turn per request_id, whoever asks. */
export class SessionBlindStore implements TurnStore {
  constructor(private readonly inner: TurnStore) {}
  #key(key: string): string {
    return `shared:${key.slice(key.indexOf(':') + 1)}`;
  }
  get(key: string): Promise<unknown> {
    return this.inner.get(this.#key(key));
  }
  set(key: string, value: unknown, ttlMs: number): Promise<void> {
    return this.inner.set(this.#key(key), value, ttlMs);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(this.#key(key));
  }
  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(this.#key(key), ttlMs);
  }
}

/** A turn store whose `delete` does nothing: the failure path's cleanup is lost. */
export class DeleteIgnoringStore implements TurnStore {
  constructor(private readonly inner: TurnStore) {}
  get(key: string): Promise<unknown> {
    return this.inner.get(key);
  }
  set(key: string, value: unknown, ttlMs: number): Promise<void> {
    return this.inner.set(key, value, ttlMs);
  }
  async delete(): Promise<void> {}
  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(key, ttlMs);
  }
}

/** A turn store whose lock never refuses: two hops of one turn run at once. */
export class LocklessStore implements TurnStore {
  constructor(private readonly inner: TurnStore) {}
  get(key: string): Promise<unknown> {
    return this.inner.get(key);
  }
  set(key: string, value: unknown, ttlMs: number): Promise<void> {
    return this.inner.set(key, value, ttlMs);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  async lock(): Promise<TurnLock> {
    // Its saves are not fenced either (set drops the fence): a lock that never refuses can never be lost.
    return { release: async () => undefined, held: async () => true };
  }
}

/** A turn store that remembers every state it held, so a turn can be put back to how it was before a hop. */
export class RewindableStore implements TurnStore {
  readonly #history = new Map<string, unknown[]>();
  constructor(private readonly inner: TurnStore) {}
  get(key: string): Promise<unknown> {
    return this.inner.get(key);
  }
  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    this.#history.set(key, [...(this.#history.get(key) ?? []), value]);
    await this.inner.set(key, value, ttlMs);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(key, ttlMs);
  }
  /** Puts every session's turn `requestId` back to its state before hop `hop` ran. */
  async rewind(requestId: string, hop: number): Promise<void> {
    for (const [key, states] of this.#history) {
      if (!key.endsWith(`:${requestId}`)) continue;
      const before = states.findLast(
        (state) =>
          (state as { kind?: string; hop?: number }).kind === 'active' && (state as { hop: number }).hop === hop - 1,
      );
      if (hop === 1) await this.inner.delete(key);
      else if (before !== undefined) await this.inner.set(key, before, 30 * 60_000);
    }
  }
}

/** A model wrapper: the scripted model's decision, with the request or the reply changed. */
export function modelWrapper(
  inner: ModelProvider,
  change: { request?: (request: ModelRequest) => ModelRequest; reply?: (reply: ModelReply) => ModelReply },
): ModelProvider {
  return {
    name: `${inner.name}+variant`,
    async decide(request) {
      const reply = await inner.decide(change.request ? change.request(request) : request);
      return change.reply ? change.reply(reply) : reply;
    },
  };
}

/** The request_id of the hop being served, for a model wrapper that needs to know the turn it decides for. */
export const servedTurn = new AsyncLocalStorage<string>();

/** Runs the app with the hop's request_id in {@link servedTurn}. */
export function tellTurn(app: CanvasAiApp): CanvasAiApp {
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    const id = typeof body?.request_id === 'string' ? body.request_id : undefined;
    return id === undefined ? next(request) : servedTurn.run(id, () => next(request));
  });
}

/** Rewrites the YAML strings of a reply's tool calls (`components` of each operation, `component_edits`). */
export function rewriteToolYaml(reply: ModelReply, rewrite: (yaml: string) => string): ModelReply {
  return {
    ...reply,
    toolCalls: reply.toolCalls.map((call) => {
      let args: Json;
      try {
        args = JSON.parse(call.arguments) as Json;
      } catch {
        return call;
      }
      if (typeof args.component_edits === 'string') args.component_edits = rewrite(args.component_edits);
      if (Array.isArray(args.operations))
        for (const operation of args.operations as Json[])
          if (typeof operation.components === 'string') operation.components = rewrite(operation.components);
      return { ...call, arguments: JSON.stringify(args) };
    }),
  };
}
