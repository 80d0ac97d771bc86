import type { CancelResponse } from '@canvas-ai/protocol';
import { isHopError } from '@canvas-ai/protocol/server';
import type { ServerDeps } from './server-deps.js';
import { cancelMarkerKey, type TurnKey, turnKey } from './store/keys.js';
import { guardStore } from './store/turn-store.js';
import { storedPageKeys } from './stored-pages.js';
import { isCancelled, loadTurn } from './turn-gate.js';
import type { ActiveTurn, CancelMarker, TurnRecord } from './turn-state.js';

/**
 * `DELETE /api/hop/{request_id}` (spec/hop-protocol.md §8.5): leaves a cancel marker under the turn's own key, then
 * drops the turn and logs its parked calls as cancelled. The marker makes every later hop of the turn a 410, and a
 * hop still running finds it after its save and deletes what it saved (see `persist` in hop.ts), so the cancel
 * wins whatever the interleaving, on any store. Idempotent: an unknown, finished or already cancelled turn answers
 * `cancelled: false` and is left as it is (a finished turn keeps its final response for replay). Scoped to the
 * caller's session like every key.
 */
export async function cancelTurn(deps: ServerDeps, sessionId: string, requestId: string): Promise<CancelResponse> {
  const key = turnKey(sessionId, requestId);
  const answer = (cancelled: boolean): CancelResponse => ({ status: true, request_id: requestId, cancelled });
  const [marked, record] = await Promise.all([isCancelled(deps.store, key, requestId), readTurn(deps, key, requestId)]);
  if (marked || record?.kind === 'finished') return answer(false);
  if (record) {
    await dropTurn(deps, key, requestId, record);
    return answer(true);
  }

  // Nothing stored: a hop 1 may be running (it holds the lock), or have saved its turn since the read above.
  const lock = await guardStore(() => deps.store.lock(key, deps.ttl.lockMs), requestId);
  if (!lock) {
    await dropTurn(deps, key, requestId, undefined);
    return answer(true);
  }
  try {
    // While this holds the lock no hop runs, so what the store holds now stays as it is until the turn is dropped.
    const now = await readTurn(deps, key, requestId);
    if (now?.kind !== 'active') return answer(false);
    await dropTurn(deps, key, requestId, now);
    return answer(true);
  } finally {
    await lock.release().catch(() => undefined);
  }
}

/**
 * The marker first, then the delete: the order `persist` relies on (a hop saving now either sees the marker or is
 * deleted after its write). The marker outlasts the lock, so it outlasts any hop that is running now.
 */
async function dropTurn(
  deps: ServerDeps,
  key: TurnKey,
  requestId: string,
  turn: ActiveTurn | undefined,
): Promise<void> {
  const marker: CancelMarker = { kind: 'cancelled', hop: turn?.hop ?? 0 };
  await guardStore(
    () => deps.store.set(cancelMarkerKey(key), marker, Math.max(deps.ttl.finishedMs, deps.ttl.lockMs)),
    requestId,
  );
  await guardStore(() => deps.store.delete(key), requestId);
  // The notices the record kept apart go with it (stored-pages.ts); one that stays expires with its TTL.
  for (const page of turn ? storedPageKeys(key, turn) : []) await deps.store.delete(page).catch(() => undefined);
  deps.log({
    event: 'turn_cancelled',
    request_id: requestId,
    hop: turn?.hop ?? 0,
    ...(turn ? { agent: turn.agent } : {}),
    cancelled_calls: (turn?.parked ?? []).map((call) => ({ call_id: call.id, name: call.name })),
  });
}

/** The stored turn; an unreadable record counts as absent (loadTurn already dropped it), an unreachable store is a 503. */
async function readTurn(deps: ServerDeps, key: TurnKey, requestId: string): Promise<TurnRecord | undefined> {
  return loadTurn(deps.store, key, requestId).catch((error: unknown) => {
    if (isHopError(error) && error.code === 'store_unavailable') throw error;
    return undefined;
  });
}
