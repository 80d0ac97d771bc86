import * as z from 'zod/mini';
import { withMeta } from './meta.js';
import { AgentId, RequestId } from './ids.js';
import { ProtocolField } from './hop-request.js';
import { ToolOutput } from './outputs.js';
import { refineBy } from './refinements.js';
import { Waiting } from './waits.js';
import { CSRF_HEADER } from './constants.js';

/** The agent that runs the turn, as shown to the user. */
export const AgentRef = withMeta(z.object({ id: AgentId, label: z.string() }), { id: 'AgentRef' });
export type AgentRef = z.infer<typeof AgentRef>;

/** Why a turn ended: the model answered, or the turn reached its agent's `max_hops`. */
export const FinishReason = withMeta(z.enum(['answer', 'max_hops']), { id: 'FinishReason' });
export type FinishReason = z.infer<typeof FinishReason>;

/** Token counts of model calls (spec §6.2): `input_tokens` includes the cached ones, so those are at most it. */
export const TokenCounts = withMeta(
  z
    .object({
      input_tokens: z.int().check(z.minimum(0)),
      output_tokens: z.int().check(z.minimum(0)),
      cached_input_tokens: z.int().check(z.minimum(0)),
    })
    .check(
      refineBy('cachedWithinInput', [], {
        message: 'cached_input_tokens is at most input_tokens (the cached tokens are counted in input_tokens)',
        path: ['cached_input_tokens'],
      }),
    ),
  { id: 'TokenCounts' },
);
export type TokenCounts = z.infer<typeof TokenCounts>;

/**
 * What a hop's model call and the whole turn so far cost (revision 1.4, spec §6.2): `hop` is all 0 for a hop without
 * a model call, `turn` is the sum of every hop's. Optional: a server whose model reports nothing sends none.
 */
export const HopUsage = withMeta(z.object({ hop: TokenCounts, turn: TokenCounts }), { id: 'HopUsage' });
export type HopUsage = z.infer<typeof HopUsage>;

const hopResponseFields = {
  status: z.literal(true),
  protocol: ProtocolField,
  request_id: RequestId,
  hop: z.int().check(z.minimum(1)),
  agent: AgentRef,
  /** Outputs of the tools executed in this hop, in execution order. */
  outputs: z.array(ToolOutput),
  /** The whole turn's narration so far, paragraphs separated by a blank line; never the final answer. */
  progress: z.string(),
  /** The tokens of this hop's model call and of the turn so far, when the model reports them (spec §6.2). */
  usage: z.optional(HopUsage),
};

/** A hop after which the turn goes on: the client applies the outputs and sends hop + 1. */
export const ContinuingHopResponse = withMeta(
  z.object({
    ...hopResponseFields,
    should_continue: z.literal(true),
    /** The turn waits for the person: the next hop carries the answer (revision 1.7, spec §20.1). */
    waiting: z.optional(Waiting),
  }),
  { id: 'ContinuingHopResponse' },
);
export type ContinuingHopResponse = z.infer<typeof ContinuingHopResponse>;

/** The last hop of a turn: carries the final answer and why the turn ended. */
export const FinalHopResponse = withMeta(
  z.object({
    ...hopResponseFields,
    should_continue: z.literal(false),
    message: z.string(),
    finish_reason: FinishReason,
  }),
  { id: 'FinalHopResponse' },
);
export type FinalHopResponse = z.infer<typeof FinalHopResponse>;

/** The response to a hop (HTTP 200), discriminated by `should_continue` (spec §6). */
export const HopResponse = withMeta(
  z.discriminatedUnion('should_continue', [ContinuingHopResponse, FinalHopResponse]),
  { id: 'HopResponse', description: 'The response to one hop.' },
);
export type HopResponse = z.infer<typeof HopResponse>;

/** The response to `DELETE /api/hop/{request_id}`: idempotent, `cancelled` says whether a turn was running. */
export const CancelResponse = withMeta(
  z.object({ status: z.literal(true), request_id: RequestId, cancelled: z.boolean() }),
  { id: 'CancelResponse' },
);
export type CancelResponse = z.infer<typeof CancelResponse>;

const turnStatusFields = {
  status: z.literal(true),
  protocol: ProtocolField,
  request_id: RequestId,
  agent: AgentRef,
  /** The latest hop the server answered: a repeat of it gets that stored response, the next hop is `hop + 1`. */
  hop: z.int().check(z.minimum(1)),
};

/** A turn that goes on: the server waits for hop `hop + 1` (spec §8.6). */
export const ActiveTurnStatus = withMeta(
  z.object({
    ...turnStatusFields,
    state: z.literal('active'),
    /** The turn's narration so far, as the response to `hop` carried it. */
    progress: z.string(),
    /** What the turn waits for, as the response to `hop` carried it (revision 1.7, spec §20.1). */
    waiting: z.optional(Waiting),
  }),
  { id: 'ActiveTurnStatus' },
);
export type ActiveTurnStatus = z.infer<typeof ActiveTurnStatus>;

/** A turn that ended at hop `hop`, within its replay window: its final response, as it was sent (spec §8.6). */
export const FinishedTurnStatus = withMeta(
  z.object({ ...turnStatusFields, state: z.literal('finished'), response: FinalHopResponse }),
  { id: 'FinishedTurnStatus' },
);
export type FinishedTurnStatus = z.infer<typeof FinishedTurnStatus>;

/**
 * The response to `GET /api/hop/{request_id}` (revision 1.2, spec §8.6): where a turn of the caller's session stands,
 * read without changing anything. A turn the server does not hold is 410 `turn_not_found`.
 */
export const TurnStatusResponse = withMeta(z.discriminatedUnion('state', [ActiveTurnStatus, FinishedTurnStatus]), {
  id: 'TurnStatusResponse',
  description: 'Where a turn stands: waiting for its next hop, or finished.',
});
export type TurnStatusResponse = z.infer<typeof TurnStatusResponse>;

/** The response to `GET /api/token`: the CSRF token to send as the {@link CSRF_HEADER} header. */
export const TokenResponse = withMeta(
  z.object({ token: z.string().check(z.minLength(1)), header: z.literal(CSRF_HEADER) }),
  { id: 'TokenResponse' },
);
export type TokenResponse = z.infer<typeof TokenResponse>;

/** The response to `GET /healthz`. */
export const HealthResponse = withMeta(z.object({ status: z.literal('ok'), protocol: ProtocolField }), {
  id: 'HealthResponse',
});
export type HealthResponse = z.infer<typeof HealthResponse>;
