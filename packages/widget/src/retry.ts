/**
 * When the loop sends a hop again instead of ending the turn (spec §8.2 "Retries and replay", §4.2 "Sessions and
 * the CSRF token"), and how it waits in between. The same hop number and body go again: the server answers a hop
 * it already ran with the stored response, and a request refused at the door changed nothing.
 */
import type { TurnError } from './turn-error.js';

/**
 * The waits (ms) before each retry of one hop: 0.5 s doubling to 8 s, so at most 5 retries and 15.5 s of waiting.
 * Long enough for most model decisions to finish after a dropped connection; a host whose hops take longer passes
 * its own `retryDelays`.
 */
export const DEFAULT_RETRY_DELAYS: readonly number[] = [500, 1000, 2000, 4000, 8000];

/** Why a failed try of a hop is worth repeating. */
export type RetryReason = 'network' | 'hop_in_progress' | 'unavailable';

/**
 * Whether a failed try may be repeated after a wait, and why: the fetch rejected (the hop may have run; a retry gets
 * its replay), 409 `hop_in_progress` (the previous try is still executing), or a 503 (the store, or whatever sits in
 * front of the server, is down for now). Never after `provider_error` / `internal_error`: that turn is gone.
 */
export function retryReason(error: TurnError): RetryReason | undefined {
  if (error.kind === 'network') return 'network';
  if (error.kind !== 'http') return undefined;
  if (error.status === 409 && error.code === 'hop_in_progress') return 'hop_in_progress';
  // By status, not code: a 503 from a proxy has no protocol body, and is as passing as `store_unavailable`.
  if (error.status === 503) return 'unavailable';
  return undefined;
}

/** Whether the server refused the request's CSRF token (403 `csrf_invalid`): a fresh token may fix it. */
export function isCsrfRejection(error: TurnError): boolean {
  return error.kind === 'http' && error.status === 403 && error.code === 'csrf_invalid';
}

/** Resolves after `ms`, or rejects with `signal.reason` as soon as the signal aborts (a stop never waits). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
