import * as z from 'zod';
import {
  AgentDefinition,
  AgentId,
  ContinuingHopResponse,
  FinalHopResponse,
  TokenCounts,
  ToolOutput,
  Waiting,
} from '@canvas-ai/protocol';
import { type DocumentDigest, isDocumentDigest, joinNarration } from '@canvas-ai/protocol/server';
import { ModelMessage, StoredToolCall } from './providers/model-provider.js';

/**
 * What the model was last told of the parts of the page no tool result reports: the selected component, and a
 * fingerprint of the host's extra data as the page showed it (page-notice.ts).
 */
export const PageTold = z.object({ selected: z.string().nullable(), extra: z.string() });
export type PageTold = z.infer<typeof PageTold>;

/**
 * A large notice of the conversation (the whole page) kept under a key of its own, written once (stored-pages.ts): its
 * place in `messages` (which holds an empty notice there), the id of its key, its length, and when its key expires.
 */
export const StoredPage = z.object({
  at: z.int().min(0),
  id: z.string(),
  chars: z.int().min(0),
  expires_at: z.number(),
});
export type StoredPage = z.infer<typeof StoredPage>;

/**
 * How the turn ends once the host has reported on the last outputs (spec §2 step 5): with the model's answer,
 * held back because its hop carried outputs, or with the max_hops message.
 */
export const HeldEnding = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('answer'), text: z.string() }),
  z.object({ kind: z.literal('max_hops') }),
]);
export type HeldEnding = z.infer<typeof HeldEnding>;

/**
 * A turn that goes on: everything the next hop needs to resume it. The context (layout, page, selection, extra,
 * catalog) is not here: every hop brings its own.
 *
 * `user_message` and `placed_uuids` exist for the scripted provider: they are what `ModelRequest.turn` hands it
 * (providers/model-provider.ts) to pick the turn's scenario and to resolve `{{placed.N}}`. A real model reads
 * `messages` only; both fields stay small (one string, one uuid per placed component).
 */
export const ActiveTurn = z.object({
  kind: z.literal('active'),
  agent: AgentId,
  /**
   * Started naming no agent, so run by the main agent of then: a later hop that names none goes on with this turn's
   * agent even after the settings named another main agent (spec §12.4). Absent in turns stored before it existed.
   */
  by_main: z.boolean().optional(),
  /**
   * The agent's definition as the turn started: the turn runs it to its end even when the agents file changes or
   * drops the agent meanwhile (spec §12.4). Absent in turns stored before it existed: they read the config in force.
   */
  definition: AgentDefinition.optional(),
  /** The last hop answered. */
  hop: z.int().min(1),
  /** Model decisions made so far in this turn. */
  decisions: z.int().min(0),
  /** The user's message that started the turn (the scripted provider matches scenarios on it). */
  user_message: z.string(),
  messages: z.array(ModelMessage),
  /**
   * The large notices of `messages` kept under keys of their own (stored-pages.ts); their places in `messages` hold
   * empty notices. Absent when there are none, and in turns stored before it existed (they hold every text).
   */
  stored_pages: z.array(StoredPage).optional(),
  /** Calls the model decided in the last hop; the next hop executes them. */
  parked: z.array(StoredToolCall),
  /**
   * Where this turn's own messages start in `messages` (its user message; earlier ones are history). The narration
   * is the text of the assistant messages from there on: stored once, not beside the messages (`turnTexts`).
   */
  narration_from: z.int().min(0),
  /** Uuids of every component placed this turn, in placed-reference order (the scripted provider's `{{placed.N}}`). */
  placed_uuids: z.array(z.string()),
  /**
   * The output types beyond the v1 three that the turn's client declared on hop 1 (spec §5.1): they decide which
   * tools the model is offered for the whole turn. Absent in turns stored before it existed, and for a client that
   * declared none.
   */
  declared_outputs: z.array(z.string()).optional(),
  /**
   * The kinds of wait the turn's client declared on hop 1 (spec §20.1): a tool that makes the turn wait is offered
   * only for them. Absent for a client that declared none.
   */
  declared_waits: z.array(z.string()).optional(),
  /**
   * What the turn waits for since its last hop (spec §20.1): the next hop must bring the answer, which replaces the
   * asking call's result in `messages`. Absent while it waits for nothing.
   */
  waiting: z.optional(Waiting),
  /**
   * The outputs proposed to the person while the turn waits for an approval (spec §20.5), each with its call's
   * result as the tool gave it: the approved ones are sent with the hop that brings the answer.
   */
  proposal: z.array(z.object({ output: ToolOutput, result: z.string() })).optional(),
  /**
   * The fingerprint of the document the next request should carry: this hop's request with its outputs applied.
   * What differs in the next request is the person's doing (spec §16.1). Absent in turns stored before it existed.
   */
  expected: z.custom<DocumentDigest>(isDocumentDigest, 'a document digest').optional(),
  /**
   * What the model was last told of the selection and the host's data. Absent until the model was shown the page,
   * and in turns stored before the page left the system prompt: their next decision is shown the whole page.
   */
  told: PageTold.optional(),
  /**
   * The tokens of every model call of the turn so far (spec §6.2), once one of them reported usage. Absent in turns
   * stored before it existed, and while the model reported nothing.
   */
  usage: z.optional(TokenCounts),
  /** Set when the turn only waits for the host's report on this hop's outputs before it ends. */
  held: HeldEnding.optional(),
  /**
   * The last hop's response, for a repeated request, stored with `progress` empty: the replay puts the narration
   * back from the messages (`replayResponse`), so the turn does not hold it twice.
   */
  response: ContinuingHopResponse,
});
export type ActiveTurn = z.infer<typeof ActiveTurn>;

/** A turn that ended: only its final response is kept, briefly, so a lost response can be fetched again. */
export const FinishedTurn = z.object({
  kind: z.literal('finished'),
  agent: AgentId,
  /**
   * Started naming no agent, so run by the main agent of then: a later hop that names none goes on with this turn's
   * agent even after the settings named another main agent (spec §12.4). Absent in turns stored before it existed.
   */
  by_main: z.boolean().optional(),
  hop: z.int().min(1),
  response: FinalHopResponse,
});
export type FinishedTurn = z.infer<typeof FinishedTurn>;

/**
 * The marker a cancel leaves under the turn's own marker key (`cancelMarkerKey` in store/keys.ts), apart from the turn, so that
 * no save of the turn can overwrite it: while it lasts, every hop of the turn gets 410 (spec/hop-protocol.md §8.5).
 * Only its presence counts; `hop` is the turn's latest hop when it was cancelled (0: none had finished), for people.
 */
export const CancelMarker = z.object({ kind: z.literal('cancelled'), hop: z.int().min(0) });
export type CancelMarker = z.infer<typeof CancelMarker>;

/** Whatever the store holds under a turn's key, zod-validated on load. */
export const TurnRecord = z.discriminatedUnion('kind', [ActiveTurn, FinishedTurn]);
export type TurnRecord = z.infer<typeof TurnRecord>;

/** A turn as a hop works on it: what is stored, minus the stored response. */
export type TurnSoFar = Omit<ActiveTurn, 'kind' | 'response'>;

/** Every text the model produced in this turn, in order: the narration (history messages excluded). */
export function turnTexts(turn: Pick<TurnSoFar, 'messages' | 'narration_from'>): string[] {
  return turn.messages
    .slice(turn.narration_from)
    .flatMap((message) => (message.role === 'assistant' ? [message.text] : []));
}

/** A continuing response as the turn stores it: `progress` emptied, since the messages hold the narration. */
export function storedResponse(response: ContinuingHopResponse): ContinuingHopResponse {
  return { ...response, progress: '' };
}

/** The stored last response of an active turn as it was first sent: same keys, same order, narration put back. */
export function replayResponse(turn: ActiveTurn): ContinuingHopResponse {
  return { ...turn.response, progress: joinNarration(turnTexts(turn)) };
}
