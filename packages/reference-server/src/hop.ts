import type { AgentDefinition, AgentsConfig, Attachment, HopRequest, HopResponse, HopUsage } from '@canvas-ai/protocol';
import { applyOutputs, errorMessage } from '@canvas-ai/protocol';
import {
  agentToolNames,
  BUSY_RETRY_AFTER_SECONDS,
  collectPlacedUuids,
  type DocumentDigest,
  executeToolCalls,
  HopError,
  isHopError,
  joinNarration,
  offeredTools,
  PropsPrints,
} from '@canvas-ai/protocol/server';
import { buildSystemPrompt } from './agents/system-prompt.js';
import { uniqueCallIds } from './call-ids.js';
import { type HopEvents, NO_HOP_EVENTS } from './hop-events.js';
import type { HopRun, ParkedCallsStep } from './hop-run.js';
import { endWith, heldEndingNow, type NextTurn, nextTurn, type Outcome, outcomeOf } from './next-turn.js';
import type { ModelReply } from './providers/model-provider.js';
import { forgetEarlierPages, pageNotice } from './page-notice.js';
import { detectPersonChanges, fingerprintNext, type PersonChanges } from './person-changes.js';
import { redactUrlsIn } from './redact.js';
import { rejectionNotice } from './rejection-notice.js';
import type { ServerDeps } from './server-deps.js';
import { turnKey } from './store/keys.js';
import { guardStore, LockLostError } from './store/turn-store.js';
import { admitStoredHop, isCancelled } from './turn-gate.js';
import { waitExpired, waitExpiredError, waitingFor, withAnswer } from './waiting.js';
import { approvedOutputs, holdProposals } from './approvals.js';
import { seedTurn } from './turn-seed.js';
import { storedPageKeys, storePages, withStoredPages } from './stored-pages.js';
import { describeHopSpan, inSpan, tracedDecision, tracedTools } from './tracing.js';
import { hopUsage } from './usage.js';
import { turnTexts } from './turn-state.js';

/** A hop request that passed the door, from one session. */
export interface HopInput {
  sessionId: string;
  request: HopRequest;
  attachments: readonly Attachment[];
  /** The hop's props cache, when the door had it (default: a new one). */
  prints?: PropsPrints | undefined;
  /** The fingerprint of the request's page, when the door's walk of its layout built it (spec §16.1). */
  digest?: DocumentDigest | undefined;
}

/**
 * THE HOP (spec §2): lock the turn → load it (or, on hop 1, check the session's quota and seed it) → find the
 * person's changes since the last decision (spec §16.1) → execute the calls parked in the previous hop against the
 * layout this request carries → tell the model about the person's changes and rejected outputs → one model decision
 * (none past `max_hops`) → how the turn goes on (next-turn.ts) → save the turn when it goes on, keep only its final
 * response when it ends → respond.
 * A repeated hop gets its stored response. Any failure while executing deletes the turn and keeps the narration,
 * except a store that cannot save the hop: then the previous hop's turn stays, so the hop may be sent again.
 * `events` hear of the hop once it passed the turn rules, and of its outputs and model text as they come.
 */
export async function runHop(
  deps: ServerDeps,
  input: HopInput,
  events: HopEvents = NO_HOP_EVENTS,
): Promise<HopResponse> {
  const { request } = input;
  const key = turnKey(input.sessionId, request.request_id);
  describeHopSpan({ requestId: request.request_id, hop: request.hop, agent: request.agent ?? deps.config.main_agent });

  const lock = await inSpan('canvas_ai.store.lock', () =>
    guardStore(() => deps.store.lock(key, deps.ttl.lockMs), request.request_id),
  );
  try {
    const admission = await inSpan('canvas_ai.store.load', () =>
      admitStoredHop(deps.store, key, request, deps.config.main_agent, lock),
    );
    const agentId = admission.agentId;
    if (admission.kind === 'replay') {
      deps.log({ event: 'hop_replayed', request_id: request.request_id, hop: request.hop, agent: agentId });
      events.admitted();
      return admission.response;
    }
    // A new turn takes an agent offered now; a turn in flight runs the agent it started with to its end, even when
    // the settings or the agents file changed since (spec §12.4).
    const agent = admission.turn
      ? (admission.turn.definition ?? definedAgent(deps.config, agentId, request.request_id))
      : offeredAgent(deps.config, agentId, request.request_id);
    if (admission.turn?.waiting && waitExpired(admission.turn.waiting, Date.now())) {
      // The turn is over (spec §20.1): nothing of it runs again, and its record goes.
      await guardStore(() => deps.store.delete(key), request.request_id);
      await dropPages(deps, storedPageKeys(key, admission.turn));
      throw waitExpiredError(request.request_id);
    }
    // The large notices the record keeps apart, back in the conversation before anything reads it.
    const stored =
      admission.turn && (await guardStore(() => withStoredPages(deps.store, key, admission.turn!), request.request_id));
    // The answer is checked before anything runs: a refused hop changes nothing and may be sent again.
    const answered = withAnswer(stored, request, input.attachments);
    const approved = approvedOutputs(stored, request);
    if (!admission.turn) await deps.admitNewTurn(key, request.request_id);
    events.admitted();
    const turn = answered ?? seedTurn(deps.config, agentId, agent, request, input.attachments);
    const previousOutputs = stored?.response.outputs ?? [];
    // Decided by hop 1's capabilities, kept with the turn (spec §5.1): the same tools on every hop.
    const tools = offeredTools(
      deps.tools,
      agentToolNames(agent),
      turn.declared_outputs ?? [],
      turn.declared_waits ?? [],
    );
    return await executeHop({
      deps,
      key,
      lock: admission.lock,
      request,
      agentId,
      agent,
      turn,
      previousOutputs,
      prints: input.prints ?? new PropsPrints(deps.derivedOf),
      requestDigest: input.digest,
      tools,
      events,
      approved,
    });
  } finally {
    await lock?.release().catch(() => undefined);
  }
}

/** The agent a new turn names, if the picker offers it now (the main agent or one of `tools`). */
function offeredAgent(config: AgentsConfig, agentId: string, requestId: string): AgentDefinition {
  const offered = agentId === config.main_agent || config.tools.includes(agentId);
  return definedAgent(config, agentId, requestId, offered);
}

/** The definition of an agent the config defines (and, with `offered` false, refused as not offered). */
function definedAgent(config: AgentsConfig, agentId: string, requestId: string, offered = true): AgentDefinition {
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
    const held = heldEndingNow(run);
    const decides = !held && run.turn.decisions < run.agent.max_hops;
    // Other requests are served before a large page is compared and described: one request never holds the server.
    // Each step below may grow with the page: a pause between them, so two of them never make one long stall
    // (spec §13.2). The pause is none for a small request (pauseFor).
    const { pause } = run.deps;
    if (decides) await pause();
    const person = await detectPersonChanges(run);
    await pause();
    const step = await runParkedCalls(run, person);
    if (step.outputs.length > 0) run.events.outputs(step.outputs);
    await pause();
    // A hop whose call asked the person calls no model: the turn waits for the answer (spec §20.1).
    const waits = step.waiting !== undefined;
    if (decides && !waits) await tellPage(run, step, person);
    await pause();
    reply = decides && !waits ? await decideOnce(run, step, systemPrompt(run)) : undefined;
    const usage = hopUsage(run.turn.usage, reply?.usage);
    const outcome: Outcome = step.waiting
      ? { kind: 'waits', waiting: step.waiting }
      : outcomeOf(held, reply, step.outputs);
    const { next, digestMs } = await turnAfter(run, step, outcome, { decided: reply !== undefined, usage });
    await pause();
    await persist(run, next);
    logHop(run, step, next.response, {
      personChanges: person.changes.length,
      changeDetectionMs: person.ms + digestMs,
      durationMs: Date.now() - started,
    });
    return next.response;
  } catch (error) {
    const before = turnTexts(run.turn);
    const now = reply ? [...before, reply.text] : before;
    throw await failHop(run, { before, now }, error, Date.now() - started);
  }
}

/**
 * Executes the calls parked in the previous hop against the layout the browser just sent (spec §2, step 2), an
 * output that would overwrite the person's edits refused, then adds the notices about the person's changes and about
 * outputs the browser could not apply, so the model hears of all of them before its next decision.
 */
async function runParkedCalls(
  { deps, request, agent, turn, tools, approved }: HopRun,
  person: PersonChanges,
): Promise<ParkedCallsStep> {
  const document = { layout: request.context.current_layout, page: request.context.page };
  const step: ParkedCallsStep = {
    messages: [...turn.messages],
    outputs: [],
    document,
    placedUuids: [...turn.placed_uuids],
    executed: [],
  };
  if (turn.parked.length > 0) {
    const execution = await executeToolCalls(turn.parked, {
      tools: tracedTools(tools),
      declaredOutputs: turn.declared_outputs,
      toolSettings: agent.tool_settings,
      catalog: deps.catalog,
      document,
      pageFields: deps.config.page_fields,
      newUuid: deps.newUuid,
      refuseOutput: person.refuseOutput,
      // Between the calls of the reply: their work grows with the reply, whatever the request's size.
      pause: turn.parked.length > 1 ? deps.turnstile : deps.pause,
    });
    step.outputs = execution.outputs;
    step.document = execution.document;
    step.executed = execution.results.map((result) => ({ name: result.name, ok: result.ok }));
    for (const result of execution.results) {
      step.messages.push({ role: 'tool', call_id: result.call_id, name: result.name, content: result.content });
    }
    if (execution.wait) step.waiting = waitingFor(execution.wait, deps.ttl.waitMs, Date.now());
    // Outputs the agent's rule marks wait for the person's approval, or are not sent (spec §20.5).
    holdProposals({ deps, agent, turn, request }, step, Date.now());
    step.placedUuids.push(...collectPlacedUuids(step.outputs, deps.catalog));
  } else if (approved && approved.length > 0) {
    // The hop that brings the person's approval sends what they approved (spec §20.5).
    step.outputs = [...approved];
    step.document = applyOutputs(document, approved);
    step.placedUuids.push(...collectPlacedUuids(step.outputs, deps.catalog));
  }
  // After the tool results, never between a reply's calls and their results (providers refuse that order).
  if (person.notice) step.messages.push({ role: 'notice', text: person.notice.text });
  const notice = rejectionNotice(request, step.messages, turn.held);
  if (notice) step.messages.push({ role: 'notice', text: notice });
  return step;
}

/**
 * Appends what the model must hear of the page before its decision, after the tool results and notices: the whole
 * page on its first decision, then only what changed that nothing else told (page-notice.ts). Messages already sent
 * are never rewritten, so each call's prompt starts with the previous one's (a provider's prompt cache reuses it).
 */
async function tellPage(
  { deps, request, turn, prints }: HopRun,
  step: ParkedCallsStep,
  person: PersonChanges,
): Promise<void> {
  const notice = await pageNotice({
    context: request.context,
    prints,
    told: turn.told,
    person: person.notice,
    pause: deps.pause,
  });
  if (notice.whole) forgetEarlierPages(step.messages);
  for (const text of notice.texts) step.messages.push({ role: 'notice', text });
  step.told = notice.told;
}

/** The system prompt of the turn: the same on every call (no page in it), so a provider's prompt cache reuses it. */
function systemPrompt({ deps, agent, tools }: HopRun): string {
  return buildSystemPrompt({
    agent,
    tools: Object.keys(tools),
    catalog: deps.catalog,
    pageFields: deps.config.page_fields,
    docs: deps.docs,
  });
}

/**
 * One model decision. None is made once the turn has used its `max_hops` (counted in the stored state, across the
 * turn): then the parked calls ran, so the page matches what was narrated, and the turn ends without a model call.
 */
async function decideOnce(run: HopRun, step: ParkedCallsStep, system: string): Promise<ModelReply> {
  const { deps, request, agentId, turn } = run;
  if (deps.logModelRequests) {
    deps.log({
      event: 'model_request',
      request_id: request.request_id,
      hop: request.hop,
      decision: turn.decisions + 1,
      system,
      messages: step.messages,
    });
  }
  try {
    // No abort signal from the client's connection: a hop whose response is lost still completes and is stored,
    // so the client's retry of the same hop gets it instead of a failed turn.
    const reply = await tracedDecision(deps.provider, {
      agentId,
      mainAgent: deps.config.main_agent,
      system,
      messages: step.messages,
      tools: Object.values(run.tools),
      onText: run.events.text,
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
 * The response and record the outcome leads to. A turn that goes on stores the fingerprint of the page its next
 * request should carry; its time joins the hop's change detection time in the log.
 */
async function turnAfter(
  run: HopRun,
  step: ParkedCallsStep,
  outcome: Outcome,
  hop: { decided: boolean; usage: HopUsage | undefined },
): Promise<{ next: NextTurn; digestMs: number }> {
  if (outcome.kind === 'ends') return { next: endWith(run, step, outcome.ending, hop.usage), digestMs: 0 };
  // The page the outputs left may be much larger than the request's: then its fingerprint waits its turn too.
  const pause = step.outputs.length > 0 ? run.deps.turnstile : run.deps.pause;
  const expected = await fingerprintNext({ ...run, deps: { pause } }, step);
  return { next: nextTurn(run, step, { outcome, ...hop, expected: expected.digest }), digestMs: expected.ms };
}

/**
 * Saves the turn, then looks for a cancel that landed while this hop ran: if there is one, the turn just written is
 * deleted and the hop answers 410. A cancel writes its marker before it deletes the turn, so whatever the
 * interleaving either it deletes after this write, or this read sees its marker: the cancel wins (spec §8.5).
 */
async function persist({ deps, key, lock, request, turn }: HopRun, next: NextTurn): Promise<void> {
  const requestId = request.request_id;
  const { ttlMs } = next;
  // The page told whole is written once, under its own key, before the record that names it (stored-pages.ts).
  const { record, writes, dropped } =
    next.record.kind === 'active'
      ? storePages(key, next.record, turn, ttlMs, Date.now())
      : { record: next.record, writes: [], dropped: storedPageKeys(key, turn) };
  for (const write of writes) await guardStore(() => deps.store.set(write.key, write.text, write.ttlMs), requestId);
  // One write of the whole record: if it fails the store still holds the previous hop's turn, never half of this one.
  // Fenced by the lock: if it expired while this hop ran, another run of the hop may own the turn now, and this one
  // must not overwrite it (spec §8).
  await inSpan('canvas_ai.store.save', () =>
    guardStore(
      () =>
        deps.store.set(key, record, ttlMs, { fence: lock }).catch((error: unknown) => {
          throw error instanceof LockLostError ? lockLost(requestId) : error;
        }),
      requestId,
    ),
  );
  if (await isCancelled(deps.store, key, requestId)) {
    await guardStore(() => deps.store.delete(key), requestId);
    await dropPages(deps, [...dropped, ...writes.map((write) => write.key)]);
    throw new HopError('turn_not_found', 'This turn was cancelled while the hop ran; its result was dropped.', {
      requestId,
    });
  }
  await dropPages(deps, dropped);
}

/** Deletes notices no record names any more; one that stays expires with its TTL. */
async function dropPages({ store }: ServerDeps, keys: readonly string[]): Promise<void> {
  for (const page of keys) await store.delete(page).catch(() => undefined);
}

/** A hop that ran past its lock's TTL and found another run of it in charge: nothing of it was saved. */
function lockLost(requestId: string): HopError {
  return new HopError(
    'hop_in_progress',
    'This hop took longer than its turn lock lasts, and another run of it took the turn over; nothing of this one ' +
      'was saved. Send the same hop again to get that run’s answer.',
    { requestId, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS },
  );
}

/** The one log line of a hop that answered. */
function logHop(
  { deps, request, agentId }: HopRun,
  step: ParkedCallsStep,
  response: HopResponse,
  measured: { personChanges: number; changeDetectionMs: number; durationMs: number },
) {
  deps.log({
    event: 'hop',
    request_id: request.request_id,
    hop: request.hop,
    agent: agentId,
    tools: step.executed.map((call) => call.name),
    tool_errors: step.executed.filter((call) => !call.ok).length,
    outputs: step.outputs.length,
    // How many of the person's changes the model was told about (spec §16.1), and the time spent finding them and
    // fingerprinting the page the next request should carry.
    person_changes: measured.personChanges,
    change_detection_ms: Math.round(measured.changeDetectionMs * 100) / 100,
    duration_ms: measured.durationMs,
    should_continue: response.should_continue,
    ...(response.should_continue ? {} : { finish_reason: response.finish_reason }),
    ...usageFields(response),
  });
}

/** The hop's and the turn's token counts as flat log fields (spec §6.2), when the model reported usage. */
function usageFields({ usage }: HopResponse): Record<string, number> {
  if (!usage) return {};
  return {
    input_tokens: usage.hop.input_tokens,
    output_tokens: usage.hop.output_tokens,
    cached_input_tokens: usage.hop.cached_input_tokens,
    turn_input_tokens: usage.turn.input_tokens,
    turn_output_tokens: usage.turn.output_tokens,
    turn_cached_input_tokens: usage.turn.cached_input_tokens,
  };
}

/**
 * A failed hop. A failure while executing (provider, tool, bug) deletes the turn so it never resumes broken, and the
 * error keeps the narration so far, this hop's included (spec §7). A store that could not save the hop changes
 * nothing (spec §7): nothing of this hop was delivered, so the previous hop's turn is kept, the same hop may be sent
 * again and runs again, and the error carries the narration the client already has. A turn cancelled meanwhile is
 * already gone.
 */
async function failHop(
  { deps, key, lock, request, agentId, turn }: HopRun,
  narration: { before: readonly string[]; now: readonly string[] },
  error: unknown,
  durationMs: number,
): Promise<HopError> {
  const code = isHopError(error) ? error.code : 'internal_error';
  const keepsTurn = code === 'turn_not_found' || code === 'store_unavailable' || code === 'hop_in_progress';
  // A hop whose lock expired meanwhile no longer owns the turn: deleting it would delete another run's work.
  if (!keepsTurn && (await lock.held().catch(() => false))) {
    await deps.store.delete(key).catch(() => undefined);
    await dropPages(deps, storedPageKeys(key, turn));
  }
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
  // A hop whose turn was cancelled while it ran delivers nothing of itself, its narration included (spec §7, §8.5).
  const progress =
    code === 'turn_not_found' ? '' : joinNarration(code === 'store_unavailable' ? narration.before : narration.now);
  return hopError.withProgress(progress, request.request_id);
}
