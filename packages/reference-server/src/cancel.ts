import { isHopError, type CancelResponse } from '@canvas-ai/protocol';
import type { HopDeps } from './hop.js';
import { storeCall } from './hop.js';
import { turnKey } from './store/turn-store.js';
import { loadTurn } from './turn-gate.js';

/**
 * `DELETE /api/hop/{request_id}` (DESIGN §3): drops the turn and records its parked calls as cancelled. A marker
 * stays for a short while so a hop still running (or arriving late) cannot revive the turn. Idempotent: an unknown,
 * finished or already cancelled turn answers `cancelled: false`. Scoped to the caller's session like every key.
 */
export async function cancelTurn(deps: HopDeps, sessionId: string, requestId: string): Promise<CancelResponse> {
  const key = turnKey(sessionId, requestId);
  // An unreadable record counts as absent (loadTurn already dropped it); a store that cannot answer is a 503.
  const record = await loadTurn(deps.store, key, requestId).catch((error: unknown) => {
    if (isHopError(error) && error.code === 'store_unavailable') throw error;
    return undefined;
  });
  let cancelled = false;
  if (record?.kind === 'active') {
    cancelled = true;
    deps.log({
      event: 'turn_cancelled',
      request_id: requestId,
      hop: record.hop,
      agent: record.agent,
      cancelled_calls: record.parked.map((call) => ({ call_id: call.id, name: call.name })),
    });
  } else if (!record) {
    // No state yet, but hop 1 may be running right now: its lock says so.
    const lock = await storeCall(() => deps.store.lock(key, deps.ttl.lockMs), requestId);
    if (lock) await lock.release();
    else {
      cancelled = true;
      deps.log({ event: 'turn_cancelled', request_id: requestId, hop: 0, cancelled_calls: [] });
    }
  }
  if (cancelled) await storeCall(() => deps.store.set(key, { kind: 'cancelled', hop: record?.hop ?? 0 }, deps.ttl.finishedMs), requestId);
  return { status: true, request_id: requestId, cancelled };
}
