import type { HopRequest, HopResponse } from '@canvas-ai/protocol';
import { admitHop, HopError, type StoredTurnSummary } from '@canvas-ai/protocol/server';
import { cancelMarkerKey, type TurnKey } from './store/keys.js';
import { guardStore, type TurnLock, type TurnStore } from './store/turn-store.js';
import { replayResponse, TurnRecord, type ActiveTurn } from './turn-state.js';

/** Loads what the store holds for a turn, validated; an unreadable record is dropped and the hop fails (500). */
export async function loadTurn(store: TurnStore, key: TurnKey, requestId: string): Promise<TurnRecord | undefined> {
  const value = await guardStore(() => store.get(key), requestId);
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

/**
 * What to do with a hop, given what the store holds: replay a stored response, or run it (with the turn to resume,
 * none on hop 1) under the turn's lock, which admission required.
 */
export type Admission = { agentId: string } & (
  | { kind: 'replay'; response: HopResponse }
  | { kind: 'run'; lock: TurnLock; turn: ActiveTurn | undefined }
);

/** Whether the turn's cancel marker is in the store (a store that cannot answer is a 503). */
export async function isCancelled(store: TurnStore, key: TurnKey, requestId: string): Promise<boolean> {
  return (await guardStore(() => store.get(cancelMarkerKey(key)), requestId)) !== undefined;
}

/**
 * The turn rules checked before anything executes (spec/hop-protocol.md §8, the protocol's shared `admitHop`):
 * without the turn's lock 409; otherwise the stored turn and its cancel marker decide. A request refused here
 * changes nothing.
 */
export async function admitStoredHop(
  store: TurnStore,
  key: TurnKey,
  request: HopRequest,
  mainAgent: string,
  lock: TurnLock | undefined,
): Promise<Admission> {
  const rules = { requestId: request.request_id, hop: request.hop, agentId: request.agent ?? mainAgent };
  // Without the lock the store is not even read: the first rule (busy) answers before any other.
  if (!lock) return admitHop({ ...rules, busy: true, cancelled: false, turn: undefined });
  const [record, cancelled] = await Promise.all([
    loadTurn(store, key, request.request_id),
    isCancelled(store, key, request.request_id),
  ]);
  // A later hop that names no agent, of a turn started naming none, goes on with the turn's agent whatever the main
  // agent is now (spec §12.4); in a turn started with a picked agent it still means the main agent (409).
  const agentId = request.agent ?? (record?.by_main ? record.agent : mainAgent);
  const decision = admitHop({ ...rules, agentId, busy: false, cancelled, turn: record && summary(record) });
  // The rules start a turn only when none is stored, and only replay an ended one (or refuse the hop).
  if (!record) return { agentId, kind: 'run', lock, turn: undefined };
  if (record.kind === 'finished') return { agentId: record.agent, kind: 'replay', response: record.response };
  return decision === 'replay'
    ? { agentId, kind: 'replay', response: replayResponse(record) }
    : { agentId, kind: 'run', lock, turn: record };
}

function summary(record: TurnRecord): StoredTurnSummary {
  return { agent: record.agent, hop: record.hop, ended: record.kind === 'finished' };
}
