import { PROTOCOL_VERSION, type TurnStatusResponse } from '@canvas-ai/protocol';
import { HopError, joinNarration } from '@canvas-ai/protocol/server';
import type { ServerDeps } from './server-deps.js';
import { cancelMarkerKey, turnKey } from './store/keys.js';
import { guardStore } from './store/turn-store.js';
import { TurnRecord, turnTexts } from './turn-state.js';
import { waitExpired, waitExpiredError } from './waiting.js';

/**
 * `GET /api/hop/{request_id}` (spec/hop-protocol.md §8.6): where a turn of the caller's session stands. Read-only: two
 * store reads, no lock (a hop running now is not waited for: the answer is the state it started from), nothing
 * written, not even an unreadable record dropped. A turn this session does not hold, or a cancelled one, is 410 like
 * any later hop of it.
 */
export async function turnStatus(
  deps: ServerDeps,
  sessionId: string | undefined,
  requestId: string,
): Promise<TurnStatusResponse> {
  const gone = (): HopError =>
    new HopError(
      'turn_not_found',
      `There is no turn "${requestId}" to resume in this session: it never started here, ended, was cancelled, failed ` +
        'or expired. Send the message again to start a new turn.',
      { requestId },
    );
  if (sessionId === undefined) throw gone();
  const key = turnKey(sessionId, requestId);
  const [value, marker] = await Promise.all([
    guardStore(() => deps.store.get(key), requestId),
    guardStore(() => deps.store.get(cancelMarkerKey(key)), requestId),
  ]);
  if (value === undefined || marker !== undefined) throw gone();
  const parsed = TurnRecord.safeParse(value);
  if (!parsed.success) {
    throw new HopError('internal_error', 'The stored state of this turn could not be read.', {
      requestId,
      cause: parsed.error,
    });
  }
  const record = parsed.data;
  if (record.kind === 'finished') {
    return {
      status: true,
      protocol: PROTOCOL_VERSION,
      request_id: requestId,
      agent: record.response.agent,
      hop: record.hop,
      state: 'finished',
      response: record.response,
    };
  }
  // Read-only: an expired wait is answered as such, and its record left to its TTL (spec §20.1).
  if (record.waiting && waitExpired(record.waiting, Date.now())) throw waitExpiredError(requestId);
  return {
    status: true,
    protocol: PROTOCOL_VERSION,
    request_id: requestId,
    agent: record.response.agent,
    hop: record.hop,
    state: 'active',
    progress: joinNarration(turnTexts(record)),
    ...(record.waiting ? { waiting: record.waiting } : {}),
  };
}
