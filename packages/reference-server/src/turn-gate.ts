import { HopError, type HopRequest, type HopResponse } from '@canvas-ai/protocol';
import type { TurnStore } from './store/turn-store.js';
import { TurnRecord, type ActiveTurn } from './turn-state.js';

/** Loads what the store holds for a turn, validated; an unreadable record is dropped and the hop fails (500). */
export async function loadTurn(store: TurnStore, key: string, requestId: string): Promise<TurnRecord | undefined> {
  let value: unknown;
  try {
    value = await store.get(key);
  } catch (error) {
    throw new HopError('store_unavailable', 'The turn store is unavailable; try again shortly.', { requestId, cause: error });
  }
  if (value === undefined) return undefined;
  const parsed = TurnRecord.safeParse(value);
  if (parsed.success) return parsed.data;
  await store.delete(key).catch(() => undefined);
  throw new HopError('internal_error', 'The stored state of this turn could not be read, so the turn was stopped. Send your message again.', {
    requestId,
    cause: parsed.error,
  });
}

/** What to do with a hop, given what the store holds: replay a stored response, or run (with the turn to resume). */
export type Admission = { kind: 'replay'; response: HopResponse } | { kind: 'run'; turn: ActiveTurn | undefined };

/**
 * The turn rules checked before anything executes (DESIGN §3): a repeated hop gets its stored response; the agent
 * cannot change within a turn (409); hops come in order (409); a later hop needs a live turn (410). A request
 * refused here changes nothing.
 */
export function admitHop(record: TurnRecord | undefined, request: HopRequest, agentId: string): Admission {
  const requestId = request.request_id;
  if (!record) {
    if (request.hop === 1) return { kind: 'run', turn: undefined };
    throw new HopError(
      'turn_not_found',
      `There is no turn "${requestId}" in this session (it ended, expired, failed or never started). Send the message again as a new turn: hop 1 with a new request_id.`,
      { requestId },
    );
  }
  if (record.kind === 'cancelled') {
    throw new HopError('turn_not_found', `The turn "${requestId}" was cancelled. Send the message again as a new turn.`, { requestId });
  }
  if (record.agent !== agentId) {
    throw new HopError(
      'agent_changed',
      `This turn runs agent "${record.agent}", not "${agentId}"; an agent cannot change within a turn. Send the same agent on every hop, or start a new turn.`,
      { field: 'agent', requestId },
    );
  }
  if (request.hop === record.hop) return { kind: 'replay', response: record.response };
  if (record.kind === 'finished' && request.hop > record.hop) {
    throw new HopError('turn_not_found', `The turn "${requestId}" ended at hop ${record.hop}; start a new turn for a new message.`, { requestId });
  }
  if (record.kind === 'finished' || request.hop !== record.hop + 1) {
    const next = record.kind === 'active' ? `send hop ${record.hop + 1}, or ` : '';
    throw new HopError(
      'hop_out_of_order',
      `This turn is at hop ${record.hop}: ${next}send hop ${record.hop} again to get its response, not hop ${request.hop}.`,
      { field: 'hop', requestId },
    );
  }
  return { kind: 'run', turn: record };
}
