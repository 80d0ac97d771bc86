// Deliberately broken variants of the reference server, for proving that the conformance kit catches real bugs.
// Each one is the real app with ONE small, honest fault at a seam a deployment really has: a wrapper around the
// fetch handler (what a proxy or middleware could do), or a wrapper around the turn store. No bug flag in src/.
import { applyOutputsWithResults, type Layout, type PageValues, type ToolOutput } from '@canvas-ai/protocol';
import { HopError, joinNarration, NARRATION_SEPARATOR } from '@canvas-ai/protocol/server';
import type { Fixtures } from '@canvas-ai/protocol/scenario';
import type { CanvasAiApp } from '../../src/app.js';
import { createApp } from '../../src/app.js';
import { silentLogger } from '../../src/log.js';
import { startServer, type RunningServer } from '../../src/node.js';
import { ScriptedProvider } from '../../src/providers/scripted.js';
import { MemoryTurnStore } from '../../src/store/memory.js';
import type { TurnLock, TurnStore, SetOptions } from '../../src/store/turn-store.js';

/** A broken variant: the bug it has, and the id of the conformance check that names that bug. */
export interface BrokenVariant {
  bug: string;
  failingCheck: string;
  /** The broken app over the repository's fixtures (scripted provider). */
  build(fixtures: Fixtures): CanvasAiApp;
}

/** The variants, by name. */
export const BROKEN_VARIANTS = {
  'progress-not-accumulated': {
    bug: 'each response carries only the latest narration paragraph instead of the whole turn so far',
    failingCheck: 'hop-rules.progress-accumulates',
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => ({ ...body, progress: lastParagraph(body.progress as string) })),
  },
  'answer-repeated-in-progress': {
    bug: 'the final answer is left at the end of progress as well as sent as message',
    failingCheck: 'invariants.answer-not-in-progress',
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) =>
        body.finish_reason === 'answer'
          ? { ...body, progress: joinNarration([body.progress as string, body.message as string]) }
          : body,
      ),
  },
  'outputs-in-decision-hop': {
    bug: 'tool calls execute in the hop whose model decision made them, not at the start of the next hop',
    failingCheck: 'hop-rules.outputs-in-next-hop',
    build: (fixtures) => executeInDecisionHop(realApp(fixtures)),
  },
  'state-kept-after-error': {
    bug: "a hop that fails while it executes leaves the turn's state behind, so the turn resumes",
    failingCheck: 'turn-rules.failed-turn-gone',
    build: (fixtures) => realApp(fixtures, new DeleteIgnoringStore(new MemoryTurnStore())),
  },
  'replay-executes-again': {
    bug: 'a repeated hop is executed again from the state before it instead of answered from the stored response',
    failingCheck: 'replay.tools-not-executed-again',
    build: (fixtures) => {
      const store = new RewindableStore(new MemoryTurnStore());
      return reexecuteRepeatedHops(realApp(fixtures, store), store);
    },
  },
  'replaces-dropped': {
    bug: 'edit_components and set_page_value outputs carry no replaces, so a host cannot keep the person’s edits',
    failingCheck: 'coediting.replaces',
    build: (fixtures) =>
      rewriteHopResponses(realApp(fixtures), (body) => ({
        ...body,
        outputs: (body.outputs as Json[]).map(({ replaces: _, ...output }) => output),
      })),
  },
  'ends-turn-with-outputs': {
    bug: 'a turn ends in the hop that carries its last outputs (revision 1.0), so the answer comes before the host reports on them',
    failingCheck: 'hop-rules.final-no-outputs',
    build: (fixtures) => endWithLastOutputs(realApp(fixtures)),
  },
  'status-ignores-session': {
    bug: 'the turn status looks a turn up by request_id alone, so another session reads it',
    failingCheck: 'status.other-session-410',
    build: (fixtures) => statusAcrossSessions(realApp(fixtures)),
  },
  'status-forgets-finished': {
    bug: 'the turn status answers 410 for a turn that ended, though its final response is still kept for replays',
    failingCheck: 'status.finished',
    build: (fixtures) => forgetFinishedStatus(realApp(fixtures)),
  },
  'capabilities-ignored': {
    bug: 'the remove and move tools are offered to every client, declared or not, so an older client gets outputs it cannot apply',
    failingCheck: 'capabilities.undeclared-not-offered',
    build: (fixtures) => declareForEveryClient(realApp(fixtures)),
  },
  'cors-reflects-any-origin': {
    bug: 'CORS grants whatever Origin a request names, with credentials, so any site reads the session’s answers',
    failingCheck: 'cors.unlisted-origin',
    build: (fixtures) => reflectEveryOrigin(realApp(fixtures)),
  },
  'request-id-not-required': {
    bug: 'a hop without request_id is given a generated one instead of being refused with 400',
    failingCheck: 'validation.request-id-missing',
    build: (fixtures) => injectRequestId(realApp(fixtures)),
  },
} satisfies Record<string, BrokenVariant>;

/** The name of a broken variant. */
export type BrokenVariantName = keyof typeof BROKEN_VARIANTS;

/** Starts a broken variant on 127.0.0.1 (port 0). */
export function startBrokenServer(name: BrokenVariantName, fixtures: Fixtures): Promise<RunningServer> {
  return startServer(BROKEN_VARIANTS[name].build(fixtures), { port: 0, host: '127.0.0.1' });
}

/** The unbroken app, as the harness builds it (scripted provider over the fixtures, CSRF on). */
function realApp(fixtures: Fixtures, store: TurnStore = new MemoryTurnStore()): CanvasAiApp {
  return createApp({
    agents: fixtures.agents,
    catalog: fixtures.catalog,
    provider: new ScriptedProvider(fixtures.scenarios),
    store,
    log: silentLogger,
  });
}

type Json = Record<string, unknown>;

function isHopPost(request: Request): boolean {
  return request.method === 'POST' && new URL(request.url).pathname === '/api/hop';
}

/** The request's JSON body as an object, or undefined (multipart, malformed). */
async function jsonBody(request: Request): Promise<Json | undefined> {
  if (!(request.headers.get('content-type') ?? '').startsWith('application/json')) return undefined;
  try {
    const body: unknown = JSON.parse(await request.clone().text());
    return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Json) : undefined;
  } catch {
    return undefined;
  }
}

/** The same request with another JSON body (headers kept, the stale length dropped). */
function withBody(request: Request, body: Json): Request {
  const headers = new Headers(request.headers);
  headers.delete('content-length');
  return new Request(request.url, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** The same response with another JSON body (cookies and other headers kept). */
function withJson(response: Response, body: Json): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: response.status, headers });
}

/**
 * A revision 1.0 server: when a hop carries outputs and the real server would end the turn on the next hop without
 * a model call, that ending is answered at once, with the outputs. Built by sending the real server the next hop
 * itself (the page with the outputs applied, all reported applied) and folding its final response into this one.
 */
function endWithLastOutputs(app: CanvasAiApp): CanvasAiApp {
  return {
    async fetch(request) {
      const body = isHopPost(request) ? await jsonBody(request) : undefined;
      const response = await app.fetch(request);
      if (!body || response.status !== 200) return response;
      const answer = (await response.clone().json()) as Json;
      const outputs = answer.outputs as ToolOutput[];
      if (!answer.should_continue || outputs.length === 0) return response;
      const context = body.context as { current_layout: Layout; page?: PageValues };
      const applied = applyOutputsWithResults({ layout: context.current_layout, page: context.page ?? {} }, outputs);
      const next = {
        ...body,
        hop: (body.hop as number) + 1,
        context: { ...context, current_layout: applied.document.layout, page: applied.document.page },
        apply_results: applied.results,
      };
      const ahead = (await (await app.fetch(withBody(request, next))).json()) as Json;
      if (ahead.should_continue !== false || ahead.finish_reason !== 'answer') return response;
      return withJson(response, { ...ahead, hop: body.hop, outputs });
    },
  };
}

/** Rewrites the body of every 200 hop response (narration bugs: a faulty response builder). */
function rewriteHopResponses(app: CanvasAiApp, rewrite: (body: Json) => Json): CanvasAiApp {
  return {
    async fetch(request) {
      const response = await app.fetch(request);
      if (!isHopPost(request) || response.status !== 200) return response;
      return withJson(response, rewrite((await response.json()) as Json));
    },
  };
}

/** A CORS layer put in front the careless way: every origin is echoed back as granted (spec §4.6 forbids it). */
function reflectEveryOrigin(app: CanvasAiApp): CanvasAiApp {
  return {
    async fetch(request) {
      const origin = request.headers.get('origin');
      const grant: Record<string, string> = origin
        ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' }
        : {};
      if (origin && request.method === 'OPTIONS' && request.headers.has('access-control-request-method'))
        return new Response(null, { status: 204, headers: grant });
      const response = await app.fetch(request);
      const headers = new Headers(response.headers);
      for (const [name, value] of Object.entries(grant)) headers.set(name, value);
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    },
  };
}

function lastParagraph(progress: string): string {
  return progress.split(NARRATION_SEPARATOR).at(-1) ?? '';
}

/**
 * A server that does not park: the calls a decision makes are executed before the response, so their outputs come
 * with the narration that announced them. Built by answering hop N with the real server's hop N + 1 (which executes
 * hop N's calls on the same page), once a turn goes on past its first hop.
 */
function executeInDecisionHop(app: CanvasAiApp): CanvasAiApp {
  const ahead = new Set<string>();
  const renumbered = async (response: Response, hop: number): Promise<Response> =>
    response.status === 200 ? withJson(response, { ...((await response.json()) as Json), hop }) : response;
  return {
    async fetch(request) {
      const body = isHopPost(request) ? await jsonBody(request) : undefined;
      if (!body || typeof body.request_id !== 'string' || typeof body.hop !== 'number') return app.fetch(request);
      const hop = body.hop;
      if (ahead.has(body.request_id))
        return renumbered(await app.fetch(withBody(request, { ...body, hop: hop + 1 })), hop);
      const decided = await app.fetch(request);
      if (hop !== 1 || decided.status !== 200 || !((await decided.clone().json()) as Json).should_continue)
        return decided;
      ahead.add(body.request_id);
      return renumbered(await app.fetch(withBody(request, { ...body, hop: 2 })), 1);
    },
  };
}

/** A turn store whose `delete` does nothing: the failure path's cleanup is lost. */
class DeleteIgnoringStore implements TurnStore {
  constructor(private readonly inner: TurnStore) {}
  get(key: string): Promise<unknown> {
    return this.inner.get(key);
  }
  set(key: string, value: unknown, ttlMs: number, options?: SetOptions): Promise<void> {
    return this.inner.set(key, value, ttlMs, options);
  }
  async delete(): Promise<void> {}
  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(key, ttlMs);
  }
}

/** A turn store that remembers every state it held, so a turn can be put back to how it was before a hop. */
class RewindableStore implements TurnStore {
  readonly #history = new Map<string, unknown[]>();
  constructor(private readonly inner: TurnStore) {}
  get(key: string): Promise<unknown> {
    return this.inner.get(key);
  }
  async set(key: string, value: unknown, ttlMs: number, options?: SetOptions): Promise<void> {
    this.#history.set(key, [...(this.#history.get(key) ?? []), value]);
    await this.inner.set(key, value, ttlMs, options);
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

/** A server without a response cache: a hop it already answered is run again from the state before it. */
function reexecuteRepeatedHops(app: CanvasAiApp, store: RewindableStore): CanvasAiApp {
  const answered = new Set<string>();
  return {
    async fetch(request) {
      const body = isHopPost(request) ? await jsonBody(request) : undefined;
      if (!body || typeof body.request_id !== 'string' || typeof body.hop !== 'number') return app.fetch(request);
      const key = `${body.request_id}#${body.hop}`;
      if (answered.has(key)) await store.rewind(body.request_id, body.hop);
      const response = await app.fetch(request);
      if (response.status === 200) answered.add(key);
      return response;
    },
  };
}

/** A server that makes up a turn id when the client sends none, instead of refusing the hop. */
function injectRequestId(app: CanvasAiApp): CanvasAiApp {
  return {
    async fetch(request) {
      const body = isHopPost(request) ? await jsonBody(request) : undefined;
      if (!body || 'request_id' in body) return app.fetch(request);
      return app.fetch(withBody(request, { ...body, request_id: `generated-${crypto.randomUUID()}` }));
    },
  };
}

function isStatusGet(request: Request): boolean {
  return request.method === 'GET' && new URL(request.url).pathname.startsWith('/api/hop/');
}

/**
 * A status endpoint keyed by request_id alone: every status read is answered as the session that started the turn
 * (its cookie, remembered from hop 1), whoever asks.
 */
function statusAcrossSessions(app: CanvasAiApp): CanvasAiApp {
  const owners = new Map<string, string>();
  return {
    async fetch(request) {
      const body = isHopPost(request) ? await jsonBody(request) : undefined;
      if (body?.hop === 1 && typeof body.request_id === 'string')
        owners.set(body.request_id, request.headers.get('cookie') ?? '');
      if (!isStatusGet(request)) return app.fetch(request);
      const id = decodeURIComponent(new URL(request.url).pathname.slice('/api/hop/'.length));
      const owner = owners.get(id);
      if (owner === undefined) return app.fetch(request);
      const headers = new Headers(request.headers);
      headers.set('cookie', owner);
      return app.fetch(new Request(request.url, { method: 'GET', headers }));
    },
  };
}

/** A status endpoint that reads only active turns: a finished one is answered as gone. */
function forgetFinishedStatus(app: CanvasAiApp): CanvasAiApp {
  return {
    async fetch(request) {
      const response = await app.fetch(request);
      if (!isStatusGet(request) || response.status !== 200) return response;
      const body = (await response.clone().json()) as Json;
      if (body.state !== 'finished') return response;
      return new HopError('turn_not_found', 'No such turn.', { requestId: body.request_id as string }).toResponse();
    },
  };
}

/** A server that offers every tool to every client: hop 1 is run as if it had declared the remove and move outputs. */
function declareForEveryClient(app: CanvasAiApp): CanvasAiApp {
  return {
    async fetch(request) {
      const body = isHopPost(request) ? await jsonBody(request) : undefined;
      if (body?.hop !== 1 || 'capabilities' in body) return app.fetch(request);
      return app.fetch(
        withBody(request, { ...body, capabilities: { outputs: ['remove_components', 'move_components'] } }),
      );
    },
  };
}
