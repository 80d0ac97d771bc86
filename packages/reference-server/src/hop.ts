import {
  answerResponse,
  collectPlacedUuids,
  continuingResponse,
  executeToolCalls,
  HopError,
  isHopError,
  joinNarration,
  maxHopsResponse,
  type AgentDefinition,
  type AgentsConfig,
  type Attachment,
  type Catalog,
  type HopRequest,
  type HopResponse,
  type HopResponseHead,
  type ToolDefinition,
  type ToolOutput,
} from '@canvas-ai/protocol';
import { buildSystemPrompt } from './agents/system-prompt.js';
import type { Logger } from './log.js';
import type { ModelProvider, ModelReply } from './providers/model-provider.js';
import { turnKey, type TurnStore } from './store/turn-store.js';
import { admitStoredHop, isCancelled } from './turn-gate.js';
import { rejectionNotice, seedTurn, storedResponse, turnTexts, type TurnSoFar } from './turn-messages.js';
import type { ActiveTurn, FinishedTurn, ModelMessage } from './turn-state.js';

/** How long the store keeps things, in milliseconds. */
export interface TurnTtls {
  /** An active turn between hops; an abandoned turn is evicted after this. */
  turnMs: number;
  /**
   * A finished turn's final response (for a repeated last hop). A cancel marker lives the longer of this and
   * `lockMs`, so it outlasts any hop that was running when the turn was cancelled.
   */
  finishedMs: number;
  /** The per-turn lock; longer than the slowest model call. */
  lockMs: number;
}

/** Everything a hop needs besides the request. */
export interface HopDeps {
  config: AgentsConfig;
  catalog: Catalog;
  tools: Readonly<Record<string, ToolDefinition<any>>>;
  provider: ModelProvider;
  store: TurnStore;
  docs: string;
  log: Logger;
  newUuid: () => string;
  ttl: TurnTtls;
}

/** A hop request that passed the door, from one session. */
export interface HopInput {
  sessionId: string;
  request: HopRequest;
  attachments: readonly Attachment[];
}

/**
 * THE HOP (DESIGN §2): lock the turn → load it (or seed it on hop 1) → execute the calls parked in the previous hop
 * against the layout this request carries → tell the model about rejected outputs → one model decision (none past
 * `max_hops`) → save the turn when it goes on, keep only its final response when it ends → respond.
 * A repeated hop gets its stored response. Any failure while executing deletes the turn and keeps the narration,
 * except a store that cannot save the hop: then the previous hop's turn stays, so the hop may be sent again.
 */
export async function runHop(deps: HopDeps, input: HopInput): Promise<HopResponse> {
  const { request } = input;
  const agentId = request.agent ?? deps.config.main_agent;
  const agent = offeredAgent(deps.config, agentId, request.request_id);
  const key = turnKey(input.sessionId, request.request_id);

  const lock = await storeCall(() => deps.store.lock(key, deps.ttl.lockMs), request.request_id);
  try {
    const admission = await admitStoredHop(deps.store, key, request, agentId, lock);
    if (admission.kind === 'replay') {
      deps.log({ event: 'hop_replayed', request_id: request.request_id, hop: request.hop, agent: agentId });
      return admission.response;
    }
    const turn = admission.turn ?? seedTurn(deps.config, agentId, input.request, input.attachments);
    return await executeHop(deps, input, key, agentId, agent, turn);
  } finally {
    await lock?.release().catch(() => undefined);
  }
}

/** The agent a request names, if the picker offers it (the main agent or one of `tools`). */
function offeredAgent(config: AgentsConfig, agentId: string, requestId: string): AgentDefinition {
  const offered = agentId === config.main_agent || config.tools.includes(agentId);
  const agent = Object.hasOwn(config.agents, agentId) ? config.agents[agentId] : undefined;
  if (!offered || !agent) {
    throw new HopError(
      'unknown_agent',
      `There is no agent "${agentId}". Pick one of: ${[config.main_agent, ...config.tools].join(', ')} (GET /api/agents).`,
      {
        field: 'agent',
        requestId,
      },
    );
  }
  return agent;
}

async function executeHop(
  deps: HopDeps,
  input: HopInput,
  key: string,
  agentId: string,
  agent: AgentDefinition,
  turn: TurnSoFar,
): Promise<HopResponse> {
  const { request } = input;
  const started = Date.now();
  const messages = [...turn.messages];
  const texts = turnTexts(turn);
  const placed = [...turn.placed_uuids];
  const agentTools = Object.fromEntries(agent.tools.map((name) => [name, deps.tools[name]!]));
  let executed: Array<{ name: string; ok: boolean }> = [];
  try {
    // 1. The calls parked in the previous hop, against the layout the browser just sent (DESIGN §2 step 2).
    let outputs: ToolOutput[] = [];
    if (turn.parked.length > 0) {
      const execution = await executeToolCalls(turn.parked, {
        tools: agentTools,
        toolSettings: agent.tool_settings,
        catalog: deps.catalog,
        document: { layout: request.context.current_layout, page: request.context.page },
        pageFields: deps.config.page_fields,
        newUuid: deps.newUuid,
      });
      outputs = execution.outputs;
      executed = execution.results.map((result) => ({ name: result.name, ok: result.ok }));
      for (const result of execution.results) {
        messages.push({ role: 'tool', call_id: result.call_id, name: result.name, content: result.content });
      }
      placed.push(...collectPlacedUuids(outputs));
    }
    // 2. Outputs the browser could not apply are told to the model before its next decision.
    const notice = rejectionNotice(request, messages);
    if (notice) messages.push({ role: 'notice', text: notice });

    // 3. One model decision, unless the turn has used its max_hops (counted in the stored state, across the turn):
    //    then the parked calls ran, so the page matches what was narrated, and the turn ends without a model call.
    let reply: ModelReply | undefined;
    if (turn.decisions < agent.max_hops) {
      reply = await decide(deps, agentId, agent, request, turn, messages, placed);
      texts.push(reply.text);
      messages.push({ role: 'assistant', text: reply.text, tool_calls: reply.toolCalls });
    }

    const head: HopResponseHead = {
      requestId: request.request_id,
      hop: request.hop,
      agent: { id: agentId, label: agent.label },
      outputs,
    };
    let response: HopResponse;
    if (reply && reply.toolCalls.length > 0) {
      const continuing = continuingResponse(head, texts);
      response = continuing;
      const next: ActiveTurn = {
        kind: 'active',
        agent: agentId,
        user_message: turn.user_message,
        hop: request.hop,
        decisions: turn.decisions + 1,
        messages,
        parked: reply.toolCalls,
        narration_from: turn.narration_from,
        placed_uuids: placed,
        response: storedResponse(continuing),
      };
      await persist(deps, key, request.request_id, next, deps.ttl.turnMs);
    } else {
      const final = reply ? answerResponse(head, texts) : maxHopsResponse(head, texts, agent.max_hops);
      response = final;
      const finished: FinishedTurn = { kind: 'finished', agent: agentId, hop: request.hop, response: final };
      await persist(deps, key, request.request_id, finished, deps.ttl.finishedMs);
    }
    deps.log({
      event: 'hop',
      request_id: request.request_id,
      hop: request.hop,
      agent: agentId,
      tools: executed.map((call) => call.name),
      tool_errors: executed.filter((call) => !call.ok).length,
      outputs: outputs.length,
      duration_ms: Date.now() - started,
      should_continue: response.should_continue,
      ...(response.should_continue ? {} : { finish_reason: response.finish_reason }),
    });
    return response;
  } catch (error) {
    throw await failHop(
      deps,
      key,
      request,
      agentId,
      { before: turnTexts(turn), now: texts },
      error,
      Date.now() - started,
    );
  }
}

async function decide(
  deps: HopDeps,
  agentId: string,
  agent: AgentDefinition,
  request: HopRequest,
  turn: TurnSoFar,
  messages: readonly ModelMessage[],
  placed: readonly string[],
): Promise<ModelReply> {
  const system = buildSystemPrompt({
    agent,
    catalog: deps.catalog,
    context: request.context,
    pageFields: deps.config.page_fields,
    docs: deps.docs,
  });
  try {
    // No abort signal from the client's connection: a hop whose response is lost still completes and is stored,
    // so the client's retry of the same hop gets it instead of a failed turn.
    return await deps.provider.decide({
      agentId,
      mainAgent: deps.config.main_agent,
      system,
      messages,
      tools: agent.tools.map((name) => deps.tools[name]!),
      turn: {
        userMessage: turn.user_message,
        decision: turn.decisions + 1,
        placedUuids: placed,
        selectedComponent: request.context.selected_component,
      },
    });
  } catch (error) {
    if (isHopError(error)) throw error;
    throw new HopError('provider_error', `The model provider failed: ${(error as Error)?.message ?? String(error)}`, {
      cause: error,
    });
  }
}

/**
 * Saves the turn, then looks for a cancel that landed while this hop ran: if there is one, the turn just written is
 * deleted and the hop answers 410. A cancel writes its marker before it deletes the turn, so whatever the
 * interleaving either it deletes after this write, or this read sees its marker: the cancel wins (§8.5).
 */
async function persist(
  deps: HopDeps,
  key: string,
  requestId: string,
  value: ActiveTurn | FinishedTurn,
  ttlMs: number,
): Promise<void> {
  // One write of the whole record: if it fails the store still holds the previous hop's turn, never half of this one.
  await storeCall(() => deps.store.set(key, value, ttlMs), requestId);
  if (await isCancelled(deps.store, key, requestId)) {
    await storeCall(() => deps.store.delete(key), requestId);
    throw new HopError('turn_not_found', 'This turn was cancelled while the hop ran; its result was dropped.', {
      requestId,
    });
  }
}

/**
 * A failed hop. A failure while executing (provider, tool, bug) deletes the turn so it never resumes broken, and the
 * error keeps the narration so far, this hop's included (DESIGN §3). A store that could not save the hop changes
 * nothing (spec §7): nothing of this hop was delivered, so the previous hop's turn is kept, the same hop may be sent
 * again and runs again, and the error carries the narration the client already has. A turn cancelled meanwhile is
 * already gone.
 */
async function failHop(
  deps: HopDeps,
  key: string,
  request: HopRequest,
  agentId: string,
  narration: { before: readonly string[]; now: readonly string[] },
  error: unknown,
  durationMs: number,
): Promise<HopError> {
  const code = isHopError(error) ? error.code : 'internal_error';
  const keepsTurn = code === 'turn_not_found' || code === 'store_unavailable';
  if (!keepsTurn) await deps.store.delete(key).catch(() => undefined);
  const hopError = isHopError(error)
    ? error
    : new HopError(
        'internal_error',
        'The server failed while running this hop, so the turn was stopped. Send your message again.',
        { cause: error },
      );
  deps.log({
    event: 'hop_failed',
    request_id: request.request_id,
    hop: request.hop,
    agent: agentId,
    code: hopError.code,
    message: hopError.message,
    duration_ms: durationMs,
    ...(isHopError(error) ? {} : { error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  });
  const progress = joinNarration(code === 'store_unavailable' ? narration.before : narration.now);
  return hopError.withProgress(progress, request.request_id);
}

/** Runs a store call; a store that cannot answer is a 503, and nothing changed. */
export async function storeCall<T>(call: () => Promise<T>, requestId?: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new HopError('store_unavailable', 'The turn store is unavailable; try again shortly.', {
      requestId,
      cause: error,
    });
  }
}
