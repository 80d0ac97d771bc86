import { HopError } from '../wire/errors.js';

/**
 * What the turn rules need to know about a stored turn. Each server maps its own stored record to this shape, so
 * every TypeScript server applies the same rules (the reference server's is `TurnRecord`).
 */
export interface StoredTurnSummary {
  /** The agent that runs the turn. */
  agent: string;
  /** The latest hop answered (its response is stored for replay). */
  hop: number;
  /** The turn has ended: the stored response is its final one. */
  ended: boolean;
}

/** Everything {@link admitHop} decides on: the hop as requested, and what the server holds for its turn. */
export interface HopAdmissionInput {
  requestId: string;
  hop: number;
  /** The request's agent; absent in the request means the main agent. */
  agentId: string;
  /** Another hop of this turn is executing: the per-turn lock is held by someone else. */
  busy: boolean;
  /** The turn was cancelled (`DELETE /api/hop/{request_id}`) and its marker has not expired. */
  cancelled: boolean;
  /** The stored turn; undefined when the server holds none. */
  turn: StoredTurnSummary | undefined;
}

/**
 * The `Retry-After` of a 409 `hop_in_progress` (spec §8.3, revision 1.4): long enough that a retry rarely finds the
 * hop still running behind a fast model, short enough that the answer of a slow one is not kept waiting.
 */
export const BUSY_RETRY_AFTER_SECONDS = 2;

/**
 * What to do with a hop that passed the turn rules: `start` a new turn (hop 1, nothing stored), answer the stored
 * response of the latest hop (`replay`), or `resume` the stored turn with its next hop.
 */
export type HopAdmission = 'start' | 'replay' | 'resume';

/**
 * The turn rules of spec/hop-protocol.md §8, in their order: lock (409 `hop_in_progress`), unknown or cancelled
 * turn (410 `turn_not_found`), agent (409 `agent_changed`), replay of the latest hop, ended turn (410), order
 * (409 `hop_out_of_order`). Throws the {@link HopError} of the first rule broken; a hop refused here changes nothing.
 */
export function admitHop(input: HopAdmissionInput & { busy: true }): never;
export function admitHop(input: HopAdmissionInput): HopAdmission;
export function admitHop(input: HopAdmissionInput): HopAdmission {
  const { requestId, hop, agentId, turn } = input;
  if (input.busy) {
    throw new HopError(
      'hop_in_progress',
      `The previous hop of turn "${requestId}" is still running; wait for its response, then send hop ${hop} again.`,
      { requestId, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS },
    );
  }
  if (input.cancelled) {
    throw new HopError(
      'turn_not_found',
      `The turn "${requestId}" was cancelled. Send the message again as a new turn, with a new request_id.`,
      { requestId },
    );
  }
  if (!turn) {
    if (hop === 1) return 'start';
    throw new HopError(
      'turn_not_found',
      `There is no turn "${requestId}" in this session (it ended, expired, failed or never started). Send the message again as a new turn: hop 1 with a new request_id.`,
      { requestId },
    );
  }
  if (turn.agent !== agentId) {
    throw new HopError(
      'agent_changed',
      `This turn runs agent "${turn.agent}", not "${agentId}"; an agent cannot change within a turn. Send the same agent on every hop, or start a new turn.`,
      { field: 'agent', requestId },
    );
  }
  if (hop === turn.hop) return 'replay';
  if (turn.ended && hop > turn.hop) {
    throw new HopError(
      'turn_not_found',
      `The turn "${requestId}" ended at hop ${turn.hop}; start a new turn for a new message.`,
      { requestId },
    );
  }
  if (turn.ended || hop !== turn.hop + 1) {
    const next = turn.ended ? '' : `send hop ${turn.hop + 1}, or `;
    throw new HopError(
      'hop_out_of_order',
      `This turn is at hop ${turn.hop}: ${next}send hop ${turn.hop} again to get its response, not hop ${hop}.`,
      {
        field: 'hop',
        requestId,
      },
    );
  }
  return 'resume';
}
