/**
 * How a hop leaves its turn: whether it ends, holds its ending back or goes on (decided by {@link outcomeOf} alone),
 * and the response and stored record that follow. Pure: no clock, no store, no change to what it is given.
 */
import type { HopResponse, HopUsage, ToolOutput, Waiting } from '@canvas-ai/protocol';
import {
  answerResponse,
  continuingResponse,
  type DocumentDigest,
  type HopResponseHead,
  maxHopsResponse,
} from '@canvas-ai/protocol/server';
import type { HopRun, ParkedCallsStep } from './hop-run.js';
import type { ModelReply } from './providers/model-provider.js';
import { type ActiveTurn, type FinishedTurn, type HeldEnding, storedResponse, turnTexts } from './turn-state.js';

/** What the next turn is built from: the admitted hop's request and turn, and how long the store keeps it. */
export type TurnFacts = Pick<HopRun, 'request' | 'agentId' | 'agent' | 'turn'> & {
  deps: Pick<HopRun['deps'], 'ttl'>;
};

/**
 * How this hop leaves the turn: `ends` now (the response carries the answer or the max_hops message), `holds` (it
 * goes on with this hop's outputs and ends on the next hop, once the host reported on them), `parks` the reply's
 * tool calls for the next hop, or `waits` for the person's answer to a call of this hop (spec §20.1, no decision).
 */
export type Outcome =
  | { kind: 'ends'; ending: HeldEnding }
  | { kind: 'holds'; ending: HeldEnding }
  | { kind: 'parks'; reply: ModelReply }
  | { kind: 'waits'; waiting: Waiting };

/**
 * The ending a turn held back until the host reported on the last outputs (spec §2 step 5), if it applies now:
 * `max_hops` always (no decision is left), the answer only when no output was rejected (else the model decides
 * again, knowing what failed, so the answer never claims a change that is not on the page).
 */
export function heldEndingNow({
  request,
  turn,
  agent,
}: Pick<HopRun, 'request' | 'turn' | 'agent'>): HeldEnding | undefined {
  const held = turn.held;
  if (!held) return undefined;
  const rejected = (request.apply_results ?? []).some((result) => result.status === 'rejected');
  if (held.kind === 'answer' && rejected) return turn.decisions >= agent.max_hops ? { kind: 'max_hops' } : undefined;
  return held;
}

/**
 * The one place a turn's ending is decided. A held ending that applies now ends it (a held turn parked no calls, so
 * this hop has no outputs). A reply with tool calls parks them. A turn that would end (an answer, or no decision
 * left: no reply) ends now only when this hop has no outputs: a response that ends the turn carries none, so the
 * host reports on every output before the answer (spec §2 step 7 and spec §16.3). Otherwise it holds its ending.
 */
export function outcomeOf(
  held: HeldEnding | undefined,
  reply: ModelReply | undefined,
  outputs: readonly ToolOutput[],
): Outcome {
  if (held) return { kind: 'ends', ending: held };
  if (reply && reply.toolCalls.length > 0) return { kind: 'parks', reply };
  const ending: HeldEnding = reply ? { kind: 'answer', text: reply.text } : { kind: 'max_hops' };
  return outputs.length === 0 ? { kind: 'ends', ending } : { kind: 'holds', ending };
}

/** What a hop stores and answers. */
export interface NextTurn {
  response: HopResponse;
  record: ActiveTurn | FinishedTurn;
  ttlMs: number;
}

/** What this hop adds to a turn that goes on. */
export interface GoingOn {
  outcome: Exclude<Outcome, { kind: 'ends' }>;
  /** Whether this hop made a model decision (a `holds` for max_hops made none). */
  decided: boolean;
  usage: HopUsage | undefined;
  /** The fingerprint of the document the next request should carry (person-changes.ts). */
  expected: DocumentDigest;
}

/**
 * The response and the record of a turn that goes on: with the reply's calls parked, or with its ending held.
 * The model's text joins the narration now only when it made calls; an answer joins it when the turn ends.
 */
export function nextTurn(run: TurnFacts, step: ParkedCallsStep, hop: GoingOn): NextTurn {
  const { deps, request, agentId, agent, turn } = run;
  const { outcome } = hop;
  const texts = turnTexts(turn);
  const messages = [...step.messages];
  if (outcome.kind === 'parks') {
    texts.push(outcome.reply.text);
    messages.push({ role: 'assistant', text: outcome.reply.text, tool_calls: outcome.reply.toolCalls });
  }
  const continuing = continuingResponse(responseHead(run, step, hop.usage), texts);
  const response = outcome.kind === 'waits' ? { ...continuing, waiting: outcome.waiting } : continuing;
  const told = step.told ?? turn.told;
  const record: ActiveTurn = {
    kind: 'active',
    agent: agentId,
    ...(turn.by_main ? { by_main: true } : {}),
    definition: agent,
    user_message: turn.user_message,
    hop: request.hop,
    decisions: turn.decisions + (hop.decided ? 1 : 0),
    messages,
    parked: outcome.kind === 'parks' ? outcome.reply.toolCalls : [],
    narration_from: turn.narration_from,
    placed_uuids: step.placedUuids,
    ...(turn.declared_outputs ? { declared_outputs: turn.declared_outputs } : {}),
    ...(turn.declared_waits ? { declared_waits: turn.declared_waits } : {}),
    ...(outcome.kind === 'waits' ? { waiting: outcome.waiting } : {}),
    ...(outcome.kind === 'waits' && step.proposal ? { proposal: step.proposal } : {}),
    expected: hop.expected,
    ...(told ? { told } : {}),
    ...(outcome.kind === 'holds' ? { held: outcome.ending } : {}),
    ...(hop.usage ? { usage: hop.usage.turn } : {}),
    response: storedResponse(response),
  };
  // A waiting turn is kept past its expiry for a while, so a late answer hears that it expired (spec §20.1).
  const ttlMs = outcome.kind === 'waits' ? deps.ttl.waitMs + deps.ttl.finishedMs : deps.ttl.turnMs;
  return { response, record, ttlMs };
}

/** Ends the turn: the answer (the model's text joins the narration only now) or the max_hops message. */
export function endWith(
  run: TurnFacts,
  step: ParkedCallsStep,
  ending: HeldEnding,
  usage: HopUsage | undefined,
): NextTurn {
  const { deps, request, agentId, agent, turn } = run;
  const head = responseHead(run, step, usage);
  const response =
    ending.kind === 'answer'
      ? answerResponse(head, [...turnTexts(turn), ending.text])
      : maxHopsResponse(head, turnTexts(turn), agent.max_hops);
  return {
    response,
    record: {
      kind: 'finished',
      agent: agentId,
      ...(turn.by_main ? { by_main: true } : {}),
      hop: request.hop,
      response,
    },
    ttlMs: deps.ttl.finishedMs,
  };
}

function responseHead(
  { request, agentId, agent }: TurnFacts,
  step: ParkedCallsStep,
  usage: HopUsage | undefined,
): HopResponseHead {
  return {
    requestId: request.request_id,
    hop: request.hop,
    agent: { id: agentId, label: agent.label },
    outputs: step.outputs,
    usage,
  };
}
