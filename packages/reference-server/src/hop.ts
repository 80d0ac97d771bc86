import type {
  AgentDefinition,
  AgentsConfig,
  Attachment,
  HopRequest,
  HopResponse,
  ToolOutput,
} from '@canvas-ai/protocol';
import { errorMessage } from '@canvas-ai/protocol';
import {
  answerResponse,
  collectPlacedUuids,
  continuingResponse,
  executeToolCalls,
  HopError,
  isHopError,
  joinNarration,
  maxHopsResponse,
  type HopResponseHead,
} from '@canvas-ai/protocol/server';
import { buildSystemPrompt } from './agents/system-prompt.js';
import { uniqueCallIds } from './call-ids.js';
import type { ModelReply } from './providers/model-provider.js';
import { redactUrlsIn } from './redact.js';
import { rejectionNotice } from './rejection-notice.js';
import type { ServerDeps } from './server-deps.js';
import { guardStore, LockLostError, type TurnLock, turnKey } from './store/turn-store.js';
import { admitStoredHop, isCancelled } from './turn-gate.js';
import { seedTurn } from './turn-seed.js';
import {
  storedResponse,
  turnTexts,
  type ActiveTurn,
  type FinishedTurn,
  type ModelMessage,
  type TurnSoFar,
} from './turn-state.js';

/** A hop request that passed the door, from one session. */
export interface HopInput {
  sessionId: string;
  request: HopRequest;
  attachments: readonly Attachment[];
}

/** One admitted hop: the request, the turn it continues (seeded on hop 1), and where that turn is stored. */
interface HopRun {
  deps: ServerDeps;
  key: string;
  /** The turn's lock, held for the whole hop: every save is fenced by it (spec §8). */
  lock: TurnLock;
  request: HopRequest;
  agentId: string;
  agent: AgentDefinition;
  turn: TurnSoFar;
}

/** What running the parked calls left for the decision: the conversation so far and this hop's outputs. */
interface ParkedCallsStep {
  messages: ModelMessage[];
  outputs: ToolOutput[];
  placedUuids: string[];
  executed: Array<{ name: string; ok: boolean }>;
}

/** What a hop stores and answers. */
interface NextTurn {
  response: HopResponse;
  record: ActiveTurn | FinishedTurn;
  ttlMs: number;
}

/**
 * THE HOP (spec §2): lock the turn → load it (or, on hop 1, check the session's quota and seed it) → execute the calls parked in the previous hop
 * against the layout this request carries → tell the model about rejected outputs → one model decision (none past
 * `max_hops`) → save the turn when it goes on, keep only its final response when it ends → respond.
 * A repeated hop gets its stored response. Any failure while executing deletes the turn and keeps the narration,
 * except a store that cannot save the hop: then the previous hop's turn stays, so the hop may be sent again.
 */
export async function runHop(deps: ServerDeps, input: HopInput): Promise<HopResponse> {
  const { request } = input;
  const agentId = request.agent ?? deps.config.main_agent;
  const agent = offeredAgent(deps.config, agentId, request.request_id);
  const key = turnKey(input.sessionId, request.request_id);

  const lock = await guardStore(() => deps.store.lock(key, deps.ttl.lockMs), request.request_id);
  try {
    const admission = await admitStoredHop(deps.store, key, request, agentId, lock);
    if (admission.kind === 'replay') {
      deps.log({ event: 'hop_replayed', request_id: request.request_id, hop: request.hop, agent: agentId });
      return admission.response;
    }
    if (!admission.turn) await deps.admitNewTurn(key, request.request_id);
    const turn = admission.turn ?? seedTurn(deps.config, agentId, request, input.attachments);
    // Admission ran the turn rules, the first of which is the lock: past it, the lock is held.
    return await executeHop({ deps, key, lock: lock!, request, agentId, agent, turn });
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

/** The steps of an admitted hop, in order; any failure goes through {@link failHop}. */
async function executeHop(run: HopRun): Promise<HopResponse> {
  const started = Date.now();
  let reply: ModelReply | undefined;
  try {
    const step = await runParkedCalls(run);
    reply = await decideOnce(run, step);
    const { response, record, ttlMs } = nextTurn(run, step, reply);
    await persist(run, record, ttlMs);
    logHop(run, step, response, Date.now() - started);
    return response;
  } catch (error) {
    const before = turnTexts(run.turn);
    const now = reply ? [...before, reply.text] : before;
    throw await failHop(run, { before, now }, error, Date.now() - started);
  }
}

/**
 * Executes the calls parked in the previous hop against the layout the browser just sent (spec §2, step 2), then
 * adds the notice about outputs the browser could not apply, so the model hears of both before its next decision.
 */
async function runParkedCalls({ deps, request, agent, turn }: HopRun): Promise<ParkedCallsStep> {
  const step: ParkedCallsStep = {
    messages: [...turn.messages],
    outputs: [],
    placedUuids: [...turn.placed_uuids],
    executed: [],
  };
  if (turn.parked.length > 0) {
    const execution = await executeToolCalls(turn.parked, {
      tools: Object.fromEntries(agent.tools.map((name) => [name, deps.tools[name]!])),
      toolSettings: agent.tool_settings,
      catalog: deps.catalog,
      document: { layout: request.context.current_layout, page: request.context.page },
      pageFields: deps.config.page_fields,
      newUuid: deps.newUuid,
    });
    step.outputs = execution.outputs;
    step.executed = execution.results.map((result) => ({ name: result.name, ok: result.ok }));
    for (const result of execution.results) {
      step.messages.push({ role: 'tool', call_id: result.call_id, name: result.name, content: result.content });
    }
    step.placedUuids.push(...collectPlacedUuids(step.outputs));
  }
  const notice = rejectionNotice(request, step.messages);
  if (notice) step.messages.push({ role: 'notice', text: notice });
  return step;
}

/**
 * One model decision, unless the turn has used its `max_hops` (counted in the stored state, across the turn): then
 * the parked calls ran, so the page matches what was narrated, and the turn ends without a model call (undefined).
 */
async function decideOnce(run: HopRun, step: ParkedCallsStep): Promise<ModelReply | undefined> {
  const { deps, request, agentId, agent, turn } = run;
  if (turn.decisions >= agent.max_hops) return undefined;
  await deps.pause();
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
    const reply = await deps.provider.decide({
      agentId,
      mainAgent: deps.config.main_agent,
      system,
      messages: step.messages,
      tools: agent.tools.map((name) => deps.tools[name]!),
      turn: {
        userMessage: turn.user_message,
        decision: turn.decisions + 1,
        placedUuids: step.placedUuids,
        selectedComponent: request.context.selected_component,
      },
    });
    return { ...reply, toolCalls: uniqueCallIds(reply.toolCalls) };
  } catch (error) {
    if (isHopError(error)) throw error;
    // The provider's own words go to the log only: they may name its endpoint (spec §7).
    throw new HopError('provider_error', 'The model is unavailable right now, so this turn stopped. Try again soon.', {
      cause: error,
      detail: redactUrlsIn(`The model provider failed: ${errorMessage(error)}`),
    });
  }
}

/**
 * The response and what to store for it (pure): a reply with tool calls continues the turn and parks them; an
 * answer, or no decision left, ends it and keeps only the final response.
 */
function nextTurn(
  { deps, request, agentId, agent, turn }: HopRun,
  step: ParkedCallsStep,
  reply?: ModelReply,
): NextTurn {
  const texts = turnTexts(turn);
  const messages = [...step.messages];
  if (reply) {
    texts.push(reply.text);
    messages.push({ role: 'assistant', text: reply.text, tool_calls: reply.toolCalls });
  }
  const head: HopResponseHead = {
    requestId: request.request_id,
    hop: request.hop,
    agent: { id: agentId, label: agent.label },
    outputs: step.outputs,
  };
  if (reply && reply.toolCalls.length > 0) {
    const response = continuingResponse(head, texts);
    const record: ActiveTurn = {
      kind: 'active',
      agent: agentId,
      user_message: turn.user_message,
      hop: request.hop,
      decisions: turn.decisions + 1,
      messages,
      parked: reply.toolCalls,
      narration_from: turn.narration_from,
      placed_uuids: step.placedUuids,
      response: storedResponse(response),
    };
    return { response, record, ttlMs: deps.ttl.turnMs };
  }
  const response = reply ? answerResponse(head, texts) : maxHopsResponse(head, texts, agent.max_hops);
  return {
    response,
    record: { kind: 'finished', agent: agentId, hop: request.hop, response },
    ttlMs: deps.ttl.finishedMs,
  };
}

/**
 * Saves the turn, then looks for a cancel that landed while this hop ran: if there is one, the turn just written is
 * deleted and the hop answers 410. A cancel writes its marker before it deletes the turn, so whatever the
 * interleaving either it deletes after this write, or this read sees its marker: the cancel wins (spec §8.5).
 */
async function persist(
  { deps, key, lock, request }: HopRun,
  record: ActiveTurn | FinishedTurn,
  ttlMs: number,
): Promise<void> {
  const requestId = request.request_id;
  // One write of the whole record: if it fails the store still holds the previous hop's turn, never half of this one.
  // Fenced by the lock: if it expired while this hop ran, another run of the hop may own the turn now, and this one
  // must not overwrite it (spec §8).
  try {
    await deps.store.set(key, record, ttlMs, { fence: lock });
  } catch (error) {
    if (error instanceof LockLostError) throw lockLost(requestId);
    throw new HopError('store_unavailable', 'The turn store is unavailable; try again shortly.', {
      requestId,
      cause: error,
    });
  }
  if (await isCancelled(deps.store, key, requestId)) {
    await guardStore(() => deps.store.delete(key), requestId);
    throw new HopError('turn_not_found', 'This turn was cancelled while the hop ran; its result was dropped.', {
      requestId,
    });
  }
}

/** A hop that ran past its lock's TTL and found another run of it in charge: nothing of it was saved. */
function lockLost(requestId: string): HopError {
  return new HopError(
    'hop_in_progress',
    'This hop took longer than its turn lock lasts, and another run of it took the turn over; nothing of this one ' +
      'was saved. Send the same hop again to get that run’s answer.',
    { requestId },
  );
}

/** The one log line of a hop that answered. */
function logHop({ deps, request, agentId }: HopRun, step: ParkedCallsStep, response: HopResponse, durationMs: number) {
  deps.log({
    event: 'hop',
    request_id: request.request_id,
    hop: request.hop,
    agent: agentId,
    tools: step.executed.map((call) => call.name),
    tool_errors: step.executed.filter((call) => !call.ok).length,
    outputs: step.outputs.length,
    duration_ms: durationMs,
    should_continue: response.should_continue,
    ...(response.should_continue ? {} : { finish_reason: response.finish_reason }),
  });
}

/**
 * A failed hop. A failure while executing (provider, tool, bug) deletes the turn so it never resumes broken, and the
 * error keeps the narration so far, this hop's included (spec §7). A store that could not save the hop changes
 * nothing (spec §7): nothing of this hop was delivered, so the previous hop's turn is kept, the same hop may be sent
 * again and runs again, and the error carries the narration the client already has. A turn cancelled meanwhile is
 * already gone.
 */
async function failHop(
  { deps, key, lock, request, agentId }: HopRun,
  narration: { before: readonly string[]; now: readonly string[] },
  error: unknown,
  durationMs: number,
): Promise<HopError> {
  const code = isHopError(error) ? error.code : 'internal_error';
  const keepsTurn = code === 'turn_not_found' || code === 'store_unavailable' || code === 'hop_in_progress';
  // A hop whose lock expired meanwhile no longer owns the turn: deleting it would delete another run's work.
  if (!keepsTurn && (await lock.held().catch(() => false))) await deps.store.delete(key).catch(() => undefined);
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
    ...(hopError.detail === undefined ? {} : { detail: hopError.detail }),
    duration_ms: durationMs,
    ...(isHopError(error) ? {} : { error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  });
  const progress = joinNarration(code === 'store_unavailable' ? narration.before : narration.now);
  return hopError.withProgress(progress, request.request_id);
}
