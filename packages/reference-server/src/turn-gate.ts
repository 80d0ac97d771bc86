import { admitHop, HopError, type HopRequest, type HopResponse, type StoredTurnSummary } from '@canvas-ai/protocol';
import { cancelMarkerKey, type TurnLock, type TurnStore } from './store/turn-store.js';
import { TurnRecord, type ActiveTurn } from './turn-state.js';
import { replayResponse } from './turn-messages.js';

/** Loads what the store holds for a turn, validated; an unreadable record is dropped and the hop fails (500). */
export async function loadTurn(store: TurnStore, key: string, requestId: string): Promise<TurnRecord | undefined> {
  let value: unknown;
  try {
    value = await store.get(key);
  } catch (error) {
    throw new HopError('store_unavailable', 'The turn store is unavailable; try again shortly.', {
      requestId,
      cause: error,
    });
  }
  if (value === undefined) return undefined;
  const parsed = TurnRecord.safeParse(value);
  if (parsed.success) return parsed.data;
  await store.delete(key).catch(() => undefined);
  throw new HopError(
    'internal_error',
    'The stored state of this turn could not be read, so the turn was stopped. Send your message again.',
    {
      requestId,
      cause: parsed.error,
    },
  );
}

/** What to do with a hop, given what the store holds: replay a stored response, or run (with the turn to resume). */
export type Admission = { kind: 'replay'; response: HopResponse } | { kind: 'run'; turn: ActiveTurn | undefined };

/** Whether the turn's cancel marker is in the store (a store that cannot answer is a 503). */
export async function isCancelled(store: TurnStore, key: string, requestId: string): Promise<boolean> {
  try {
    return (await store.get(cancelMarkerKey(key))) !== undefined;
  } catch (error) {
    throw new HopError('store_unavailable', 'The turn store is unavailable; try again shortly.', {
      requestId,
      cause: error,
    });
  }
}

/**
 * The turn rules checked before anything executes (spec/hop-protocol.md §8, the protocol's shared `admitHop`):
 * without the turn's lock 409; otherwise the stored turn and its cancel marker decide. A request refused here
 * changes nothing.
 */
export async function admitStoredHop(
  store: TurnStore,
  key: string,
  request: HopRequest,
  agentId: string,
  lock: TurnLock | undefined,
): Promise<Admission> {
  const rules = { requestId: request.request_id, hop: request.hop, agentId };
  // Without the lock the store is not even read: rule 1 answers first.
  if (!lock) admitHop({ ...rules, busy: true, cancelled: false, turn: undefined });
  const [record, cancelled] = await Promise.all([
    loadTurn(store, key, request.request_id),
    isCancelled(store, key, request.request_id),
  ]);
  const decision = admitHop({ ...rules, busy: false, cancelled, turn: record && summary(record) });
  if (decision === 'replay')
    return { kind: 'replay', response: record!.kind === 'active' ? replayResponse(record!) : record!.response };
  return { kind: 'run', turn: decision === 'resume' ? (record as ActiveTurn) : undefined };
}

function summary(record: TurnRecord): StoredTurnSummary {
  return { agent: record.agent, hop: record.hop, ended: record.kind === 'finished' };
}
