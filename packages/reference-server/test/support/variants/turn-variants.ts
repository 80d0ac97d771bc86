// Planted bugs in the turn: parking, the turn rules of spec §8, replay, failures, cancel, what is left of a turn.
import { applyOutputsWithResults, type Layout, type PageValues, type ToolOutput } from '@canvas-ai/protocol';
import type { CanvasAiApp } from '../../../src/app.js';
import type { ModelReply } from '../../../src/providers/model-provider.js';
import { turnKey } from '../../../src/store/keys.js';
import { MemoryTurnStore } from '../../../src/store/memory.js';
import type { SetOptions, StoreUsage, TurnLock, TurnStore } from '../../../src/store/turn-store.js';
import {
  DeleteIgnoringStore,
  errorAnswer,
  isHopPost,
  isStatusGet,
  jsonBody,
  type Json,
  LocklessStore,
  modelWrapper,
  realApp,
  RewindableStore,
  rewriteHopResponses,
  servedTurn,
  tellTurn,
  withBody,
  withJson,
  wrap,
} from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/** The request_id named by a cancel's path. */
function cancelledId(request: Request): string | undefined {
  const match = /^\/api\/hop\/([^/]+)$/.exec(new URL(request.url).pathname);
  return request.method === 'DELETE' && match ? decodeURIComponent(match[1]!) : undefined;
}

export const TURN_VARIANTS = {
  'outputs-in-decision-hop': {
    bug: 'tool calls execute in the hop whose model decision made them, not at the start of the next hop',
    breaks: [must('spec §2', 'Each call MUST see the document')],
    caughtBy: 'hop-rules.outputs-in-next-hop',
    // Every turn with a tool call runs into it: every scenario, and every probe that plays hops by hand.
    alsoFailing: [
      'scenario.*',
      'hop-rules.*',
      'tools.*',
      'turn-rules.earlier-hop-409',
      'turn-rules.refusal-carries-no-narration',
      'turn-rules.failed-turn-gone',
      'turn-rules.failed-hop-keeps-narration',
      // The question is asked in the hop that decided it, so no hop is left to bring the answer.
      'waits.*',
      'screenshots.*',
      'approvals.*',
      'scripted.match-normalized-message',
      // The variant plays the next hop behind the client's back, and the status tells the turn's real hop.
      'status.active',
    ],
    build: (fixtures) => executeInDecisionHop(realApp(fixtures)),
  },
  'ends-turn-with-outputs': {
    bug: 'a turn ends in the hop that carries its last outputs (revision 1.0), so the answer comes before the host reports on them',
    breaks: [
      must('spec §2', 'A response that ends the turn MUST NOT carry outputs'),
      must('spec §16.3', 'A response that ends the turn MUST NOT carry outputs'),
    ],
    caughtBy: 'hop-rules.final-no-outputs',
    // Every scenario ends one hop early, so the kit’s own next hop meets an ended turn.
    alsoFailing: [
      'scenario.*',
      'hop-rules.answer-stripped',
      'hop-rules.validation-error-recovery',
      'coediting.replaces',
      'replay.tools-not-executed-again',
      // The variant plays the next hop behind the client's back, and the status tells the turn's real hop.
      'status.active',
    ],
    // Copies of a later hop meet an ended turn only when one of them is served first.
    mayAlsoFail: ['turn-rules.concurrent-later-hop'],
    build: (fixtures) => endWithLastOutputs(realApp(fixtures)),
  },
  'refusals-carry-narration': {
    bug: 'a 409 on a live turn carries the turn’s narration instead of progress ""',
    breaks: [must('spec §7', 'A server MUST send `progress: ""`')],
    caughtBy: 'turn-rules.refusal-carries-no-narration',
    build: (fixtures) => {
      const narration = new Map<string, string>();
      return wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        const response = await next(request);
        const id = typeof body?.request_id === 'string' ? body.request_id : undefined;
        if (id === undefined) return response;
        const answer = (await response.clone().json()) as Json;
        if (response.status === 200) narration.set(id, answer.progress as string);
        if (response.status === 409 && narration.has(id))
          return withJson(response, { ...answer, progress: narration.get(id) });
        return response;
      });
    },
  },
  'state-kept-after-error': {
    bug: "a hop that fails while it executes leaves the turn's state behind, so the turn resumes",
    breaks: [must('spec §7', "MUST delete the turn's state")],
    caughtBy: 'turn-rules.failed-turn-gone',
    build: (fixtures) => realApp(fixtures, { store: new DeleteIgnoringStore(new MemoryTurnStore()) }),
  },
  'unknown-turn-409': {
    bug: 'a hop ≥ 2 of a turn the server never saw gets 409 hop_out_of_order (the order rule checked before existence)',
    breaks: [must('spec §8', 'Before executing a hop')],
    caughtBy: 'turn-rules.unknown-turn-410',
    // The table row for a multipart hop 2 of an unknown turn expects the 410 too, and so does hop 2 of a turn whose
    // hop 1 a cancel stopped (it answered 410, so the server never saw that turn start).
    alsoFailing: [
      'validation.multipart-hop-2-without-attachments-is-read-like-json-here-an-unknown-turn',
      'cancel.during-hop',
    ],
    build: (fixtures) => {
      const started = new Set<string>();
      return wrap(realApp(fixtures), async (request, next) => {
        const response = await next(request);
        if (!isHopPost(request)) return response;
        const answer = (await response.clone().json()) as Json;
        const id = typeof answer.request_id === 'string' ? answer.request_id : undefined;
        if (id !== undefined && answer.hop === 1 && response.status === 200) started.add(id);
        const unknown = response.status === 410 && id !== undefined && !started.has(id);
        return unknown ? errorAnswer(409, 'hop_out_of_order', 'Send hop 1 first.', 'hop') : response;
      });
    },
  },
  'earlier-hop-replayed': {
    bug: 'every hop’s response is kept and an earlier hop sent again is answered with it, instead of 409',
    breaks: [must('spec §8', 'Before executing a hop')],
    caughtBy: 'turn-rules.earlier-hop-409',
    // Hop 1 of a cancelled turn is an earlier hop too, and is answered from the cache.
    alsoFailing: ['turn-rules.refusal-carries-no-narration', 'cancel.restart-410'],
    build: (fixtures) => {
      const answered = new Map<string, Json>();
      return wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        const key = `${String(body?.request_id)}#${String(body?.hop)}`;
        const kept = answered.get(key);
        if (body && kept)
          return new Response(JSON.stringify(kept), { headers: { 'content-type': 'application/json' } });
        const response = await next(request);
        if (body && response.status === 200) answered.set(key, (await response.clone().json()) as Json);
        return response;
      });
    },
  },
  'ended-turn-replays-its-end': {
    bug: 'a hop past the last hop of an ended turn gets the final response again instead of 410',
    breaks: [must('spec §8', 'Before executing a hop')],
    caughtBy: 'turn-rules.ended-turn-410',
    build: (fixtures) => {
      const finals = new Map<string, Json>();
      return wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        const id = String(body?.request_id);
        const final = finals.get(id);
        if (body && final && typeof body.hop === 'number' && body.hop > (final.hop as number))
          return new Response(JSON.stringify(final), { headers: { 'content-type': 'application/json' } });
        const response = await next(request);
        if (body && response.status === 200) {
          const answer = (await response.clone().json()) as Json;
          if (answer.should_continue === false) finals.set(id, answer);
        }
        return response;
      });
    },
  },
  'no-turn-lock': {
    bug: 'the per-turn lock never refuses, so copies of one hop sent at once all execute it',
    breaks: [must('spec §8', 'Before executing a hop')],
    caughtBy: 'turn-rules.concurrent-later-hop',
    // The copies must meet inside the hop: each decision waits a moment for the others (a slow model).
    build: (fixtures) =>
      realApp(fixtures, {
        store: new LocklessStore(new MemoryTurnStore()),
        model: (scripted) => ({
          name: 'slow',
          async decide(request) {
            if (request.turn.decision === 2) await new Promise((resolve) => setTimeout(resolve, 50));
            return scripted.decide(request);
          },
        }),
      }),
  },
  'agent-change-unchecked': {
    bug: 'a later hop naming another agent is served with the turn’s agent instead of 409 agent_changed',
    breaks: [must('spec §5', 'MUST be the same on every hop')],
    caughtBy: 'turn-rules.agent-changed-409',
    build: (fixtures) => {
      const agents = new Map<string, unknown>();
      return wrap(realApp(fixtures), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        if (!body || typeof body.request_id !== 'string') return next(request);
        if (body.hop === 1) {
          agents.set(body.request_id, body.agent);
          return next(request);
        }
        if (!agents.has(body.request_id)) return next(request);
        const { agent: _, ...rest } = body;
        const agent = agents.get(body.request_id);
        return next(withBody(request, agent === undefined ? rest : { ...rest, agent }));
      });
    },
  },
  'usage-counted-twice': {
    bug: 'the turn total of usage adds the hop’s tokens twice (once into the stored sum, once more for the response)',
    breaks: [must('spec §6.2', 'The `turn` counts')],
    caughtBy: 'invariants.usage-sums',
    build: (fixtures) =>
      rewriteHopResponses(
        realApp(fixtures, { model: (scripted) => modelWrapper(scripted, { reply: withUsage }) }),
        (body) => {
          const usage = body.usage as { hop: Record<string, number>; turn: Record<string, number> } | undefined;
          if (!usage) return body;
          const turn = Object.fromEntries(
            Object.entries(usage.turn).map(([field, n]) => [field, n + usage.hop[field]!]),
          );
          return { ...body, usage: { ...usage, turn } };
        },
      ),
  },
  'replay-executes-again': {
    bug: 'a repeated hop is executed again from the state before it instead of answered from the stored response',
    breaks: [must('spec §8.2', 'The server MUST answer it with the stored response')],
    caughtBy: 'replay.tools-not-executed-again',
    // An earlier hop sent again, and copies sent at once, are executed again as well.
    alsoFailing: [
      'turn-rules.earlier-hop-409',
      'turn-rules.refusal-carries-no-narration',
      // A streamed hop sent again is executed again too: streamed anew, and the JSON answer to it differs.
      'stream.replay-one-line',
      'stream.response-equals-json',
      // The waiting hop sent again asks again, with an `expires_at` of its own.
      'waits.status',
    ],
    // Copies sent at once are executed again only when one is served before another arrives (timing).
    mayAlsoFail: ['turn-rules.concurrent-later-hop'],
    build: (fixtures) => {
      const store = new RewindableStore(new MemoryTurnStore());
      return reexecuteRepeatedHops(realApp(fixtures, { store }), store);
    },
  },
  'cancel-not-idempotent': {
    bug: 'a second cancel of a turn answers cancelled true again',
    breaks: [must('spec §8.5', 'its parked calls MUST NOT execute')],
    caughtBy: 'cancel.running-turn',
    build: (fixtures) => {
      const cancelled = new Set<string>();
      return wrap(realApp(fixtures), async (request, next) => {
        const id = cancelledId(request);
        const response = await next(request);
        if (id === undefined || response.status !== 200) return response;
        const answer = (await response.clone().json()) as Json;
        if (answer.cancelled === true) cancelled.add(id);
        return cancelled.has(id) ? withJson(response, { ...answer, cancelled: true }) : response;
      });
    },
  },
  'cancelled-hop-keeps-its-narration': {
    bug: 'a hop whose turn is cancelled while it runs answers 410 with the narration of that hop instead of progress ""',
    breaks: [must('spec §7', 'A server MUST send `progress: ""`')],
    caughtBy: 'cancel.during-hop',
    build: (fixtures) => {
      const texts = new Map<string, string>();
      const app = realApp(fixtures, {
        model: (scripted) => {
          const held = holdForCancel(scripted);
          return {
            name: held.name,
            async decide(request) {
              const reply = await held.decide(request);
              const id = servedTurn.getStore();
              if (id !== undefined) texts.set(id, reply.text);
              return reply;
            },
          };
        },
      });
      return wrap(slowWhileCancelled(app), async (request, next) => {
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        const response = await next(request);
        const text = texts.get(String(body?.request_id));
        if (response.status !== 410 || text === undefined) return response;
        return withJson(response, { ...((await response.json()) as Json), progress: text.trim() });
      });
    },
  },
  'cancelled-hop-delivers': {
    bug: 'a hop does not look for a cancel after it saves its turn (only at its start): a cancel that lands while the hop runs is missed, and the hop answers 200 with its result',
    breaks: [must('spec §8.5', 'The hop in flight MUST NOT deliver its result')],
    caughtBy: 'cancel.during-hop',
    build: (fixtures) => realApp(fixtures, { store: new CancelBlindAfterSaveStore(new MemoryTurnStore()) }),
  },
  'cancel-drops-an-ended-turn': {
    bug: 'cancelling a turn that has ended deletes its final response, so its last hop can no longer be replayed',
    breaks: [must('spec §8.7', 'Cancelling a finished turn')],
    caughtBy: 'cancel.finished-turn-stays',
    build: (fixtures) => {
      const ended = new Set<string>();
      const dropped = new Set<string>();
      return wrap(realApp(fixtures), async (request, next) => {
        const id = cancelledId(request);
        if (id !== undefined) {
          if (ended.has(id)) dropped.add(id);
          return next(request);
        }
        const body = isHopPost(request) ? await jsonBody(request) : undefined;
        const turn = String(body?.request_id);
        if (body && dropped.has(turn)) return errorAnswer(410, 'turn_not_found', 'This turn is gone.');
        const response = await next(request);
        if (body && response.status === 200 && ((await response.clone().json()) as Json).should_continue === false)
          ended.add(turn);
        return response;
      });
    },
  },
  'refused-hop-drops-the-turn': {
    bug: 'a hop refused with 409 hop_out_of_order runs the failure path, which deletes the turn, so the right next hop gets 410',
    breaks: [must('spec §7', 'MUST change nothing: the turn it names')],
    caughtBy: 'turn-rules.out-of-order-409',
    // An earlier hop sent again is refused with the same code, and drops the turn too.
    alsoFailing: ['turn-rules.earlier-hop-409'],
    build: (fixtures) => {
      const app = realApp(fixtures);
      return wrap(app, async (request, next) => {
        const response = await next(request);
        const body = (await response
          .clone()
          .json()
          .catch(() => undefined)) as Json | undefined;
        const code = (body?.error as Json | undefined)?.code;
        if (!isHopPost(request) || response.status !== 409 || code !== 'hop_out_of_order') return response;
        // The failure path's clean-up, as a cancel of the turn would do it (the same session and token).
        await app.fetch(
          new Request(new URL(`/api/hop/${encodeURIComponent(String(body?.request_id))}`, request.url), {
            method: 'DELETE',
            headers: request.headers,
          }),
        );
        return response;
      });
    },
  },
  'cancel-marker-expires-at-once': {
    bug: "the cancel marker is written with the lifetime left to the turn's record, which the cancel has just deleted (0 ms), so it is gone before the turn's next hop",
    breaks: [must('spec §8.7', 'The marker MUST outlive every hop of the turn that may still be running')],
    caughtBy: 'cancel.restart-410',
    // A hop cancelled while it runs finds no marker either, when the cancel lands while it runs.
    mayAlsoFail: ['cancel.during-hop'],
    build: (fixtures) => realApp(fixtures, { store: new ShortMarkerStore(new MemoryTurnStore()) }),
  },
  'status-read-keeps-the-lock': {
    bug: 'the status endpoint reads a turn under its lock, as a hop does, and returns without releasing it: the next hop finds the turn busy',
    breaks: [must('spec §8.6', 'The endpoint is read-only: it MUST NOT change the turn')],
    caughtBy: 'status.active',
    // A waiting hop sent again after a status read finds its turn locked too.
    alsoFailing: ['waits.status'],
    build: (fixtures) => {
      const store = new MemoryTurnStore();
      return wrap(realApp(fixtures, { store }), async (request, next) => {
        const session = /canvas_ai_session=([^.;]+)\./.exec(request.headers.get('cookie') ?? '')?.[1];
        if (isStatusGet(request) && session !== undefined) {
          const id = decodeURIComponent(new URL(request.url).pathname.slice('/api/hop/'.length));
          await store.lock(turnKey(session, id), 5 * 60_000);
        }
        return next(request);
      });
    },
  },
} satisfies Record<string, BrokenVariant>;

/** A turn store whose cancel markers expire as they are written (their lifetime taken from a deleted record). */
/**
 * A store whose hop never sees a cancel marker in the read that follows its own fenced save (the look a hop takes for
 * a cancel that landed while it ran, spec §8.5); every other read sees it, so later hops still get 410.
 */
class CancelBlindAfterSaveStore implements TurnStore {
  /** Turn keys just saved under a fence: the next read of their marker comes from the hop that saved them. */
  private readonly justSaved = new Set<string>();
  constructor(private readonly inner: TurnStore) {}
  async get(key: string): Promise<unknown> {
    const turn = key.endsWith('/cancelled') ? key.slice(0, -'/cancelled'.length) : undefined;
    if (turn !== undefined && this.justSaved.delete(turn)) return undefined;
    return this.inner.get(key);
  }
  async set(key: string, value: unknown, ttlMs: number, options?: SetOptions): Promise<void> {
    await this.inner.set(key, value, ttlMs, options);
    if (options?.fence) this.justSaved.add(key);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(key, ttlMs);
  }
  usage(): Promise<StoreUsage> {
    return this.inner.usage!();
  }
}

class ShortMarkerStore implements TurnStore {
  constructor(private readonly inner: TurnStore) {}
  get(key: string): Promise<unknown> {
    return this.inner.get(key);
  }
  set(key: string, value: unknown, ttlMs: number): Promise<void> {
    return this.inner.set(key, value, key.endsWith('/cancelled') ? 0 : ttlMs);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(key, ttlMs);
  }
}

/**
 * The turns whose model is slow until a cancel has landed: a decision of a turn the kit cancels while its hop runs
 * (its request_id says `cancel-during`) waits for that cancel, at most 5 seconds; every other decision is instant.
 */
const waitingForCancel = new Map<string, () => void>();

function holdForCancel(scripted: Parameters<typeof modelWrapper>[0]) {
  return {
    name: 'slow-until-cancelled',
    async decide(request: Parameters<typeof scripted.decide>[0]) {
      const id = servedTurn.getStore();
      if (id?.includes('cancel-during'))
        await new Promise<void>((resolve) => {
          waitingForCancel.set(id, resolve);
          setTimeout(resolve, 5_000);
        });
      return scripted.decide(request);
    },
  };
}

/** Releases a held decision once a cancel of its turn has been answered `cancelled: true`. */
function slowWhileCancelled(app: CanvasAiApp): CanvasAiApp {
  return wrap(tellTurn(app), async (request, next) => {
    const id = cancelledId(request);
    const response = await next(request);
    if (id !== undefined && response.status === 200 && ((await response.clone().json()) as Json).cancelled === true)
      waitingForCancel.get(id)?.();
    return response;
  });
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
  // Through wrap(): it reads and rewrites JSON answers, so a request for a stream is served as JSON.
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    if (!body || typeof body.request_id !== 'string' || typeof body.hop !== 'number') return next(request);
    const hop = body.hop;
    if (ahead.has(body.request_id)) return renumbered(await next(withBody(request, { ...body, hop: hop + 1 })), hop);
    const decided = await next(request);
    if (hop !== 1 || decided.status !== 200 || !((await decided.clone().json()) as Json).should_continue)
      return decided;
    ahead.add(body.request_id);
    return renumbered(await next(withBody(request, { ...body, hop: 2 })), 1);
  });
}

/**
 * A revision 1.0 server: when a hop carries outputs and the real server would end the turn on the next hop without
 * a model call, that ending is answered at once, with the outputs. Built by sending the real server the next hop
 * itself (the page with the outputs applied, all reported applied) and folding its final response into this one.
 */
function endWithLastOutputs(app: CanvasAiApp): CanvasAiApp {
  // Through wrap(): it reads and rewrites JSON answers, so a request for a stream is served as JSON.
  return wrap(app, async (request, next) => {
    const body = isHopPost(request) ? await jsonBody(request) : undefined;
    const response = await next(request);
    if (!body || response.status !== 200) return response;
    const answer = (await response.clone().json()) as Json;
    const outputs = answer.outputs as ToolOutput[];
    if (!answer.should_continue || outputs.length === 0) return response;
    const context = body.context as { current_layout: Layout; page?: PageValues };
    const applied = applyOutputsWithResults({ layout: context.current_layout, page: context.page ?? {} }, outputs);
    const following = {
      ...body,
      hop: (body.hop as number) + 1,
      context: { ...context, current_layout: applied.document.layout, page: applied.document.page },
      apply_results: applied.results,
    };
    const ahead = (await (await next(withBody(request, following))).json()) as Json;
    if (ahead.should_continue !== false || ahead.finish_reason !== 'answer') return response;
    return withJson(response, { ...ahead, hop: body.hop, outputs });
  });
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

/** A model that reports usage, as a real one does (the scripted one reports none): more tokens each decision. */
function withUsage(reply: ModelReply): ModelReply {
  const input = 1000 + 10 * reply.text.length;
  return { ...reply, usage: { input_tokens: input, output_tokens: 20, cached_input_tokens: Math.floor(input / 2) } };
}
