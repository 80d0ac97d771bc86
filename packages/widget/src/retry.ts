/**
 * When the loop sends a hop again instead of ending the turn (spec §8.2 "Retries and replay", §4.2 "Sessions and
 * the CSRF token"), and how it waits in between. The same hop number and body go again: the server answers a hop
 * it already ran with the stored response, and a request refused at the door changed nothing.
 */
import { TurnError } from './turn-error.js';

/**
 * The waits (ms) before each retry of one hop: 0.5 s doubling to 8 s, so at most 5 retries and 15.5 s of waiting.
 * Long enough for most model decisions to finish after a dropped connection; a host whose hops take longer passes
 * its own `retryDelays`.
 */
export const DEFAULT_RETRY_DELAYS: readonly number[] = [500, 1000, 2000, 4000, 8000];

/**
 * How long the loop goes on sending a hop that the server answers 409 `hop_in_progress` with `Retry-After`: the
 * reference server's lock lifetime (5 minutes), the longest a hop can hold its turn.
 */
const HOP_IN_PROGRESS_BOUND_MS = 5 * 60_000;

/** The shortest wait after a `Retry-After` (a `0` would otherwise make the loop spin), and the longest one. */
const MIN_BUSY_WAIT_MS = 100;
const MAX_RETRY_AFTER_MS = 30_000;

/** Why a failed try of a hop is worth repeating. */
export type RetryReason = 'network' | 'hop_in_progress' | 'unavailable';

/** One try of {@link withRetries}. */
export interface SendTry {
  /** The number of this try, 1 for the first. */
  tries: number;
  /** The previous try's token was refused (403 `csrf_invalid`): ask the token source for a fresh one. */
  refreshToken: boolean;
}

/** What {@link withRetries} reports before it waits to try again. */
export interface RetryWait {
  /** The number of the try about to follow the wait (2 for the first retry). */
  attempt: number;
  /** How long it waits (ms). */
  delay: number;
  reason: RetryReason;
  /** Why the previous try failed. */
  error: TurnError;
}

/** Options of {@link withRetries}. */
export interface RetryOptions {
  /** The waits (ms) before each retry after a failure {@link retryReason} accepts; their number bounds the retries. */
  delays: readonly number[];
  /** Aborting it ends a wait at once and no try follows: `withRetries` then rejects with `signal.reason`. */
  signal: AbortSignal;
  /** Whether a refused CSRF token can be replaced: a token function can yield another, a fixed string cannot. */
  refreshableToken: boolean;
  /** Called before each wait. */
  onRetry?: ((wait: RetryWait) => void) | undefined;
}

/**
 * Calls `send` until it resolves (spec §8.2, §4.2). A failure {@link retryReason} accepts is tried again after the
 * next of `delays` (or the server's `Retry-After`, {@link waitFor}); a 409 `hop_in_progress` with `Retry-After` is tried
 * again after it as long as the answers say so, within {@link HOP_IN_PROGRESS_BOUND_MS}; a 403 `csrf_invalid` is tried once more at once with `refreshToken` set (once per call, and only
 * with a `refreshableToken`). Anything else rejects with that error: `provider_error` and `internal_error` above
 * all (that turn is gone), a non-`TurnError`, or the last failure once the delays ran out. After `signal` aborts,
 * whatever a try threw, it rejects with `signal.reason`.
 */
export async function withRetries<T>(send: (attempt: SendTry) => Promise<T>, options: RetryOptions): Promise<T> {
  let retries = 0;
  /** Time waited on 409 `hop_in_progress` answers that carried `Retry-After`. */
  let busyWaited = 0;
  let refreshToken = false;
  let tokenRefreshed = false;
  for (let tries = 1; ; tries += 1) {
    try {
      return await send({ tries, refreshToken });
    } catch (error) {
      options.signal.throwIfAborted();
      if (!(error instanceof TurnError)) throw error;
      refreshToken = false;
      // A fixed string cannot yield another token, so resending would only be refused again.
      if (isCsrfRejection(error) && !tokenRefreshed && options.refreshableToken) {
        tokenRefreshed = true;
        refreshToken = true;
        continue;
      }
      const reason = retryReason(error);
      if (reason === undefined || options.delays.length === 0) throw error;
      let delay: number;
      if (reason === 'hop_in_progress' && error.retryAfterMs !== undefined) {
        // The server says when the hop it is running should be done: wait that, as often as it says so, within a
        // bound of the client's own (spec §8.3), not within the delays, which need not outlast a model call any more.
        delay = Math.min(Math.max(error.retryAfterMs, MIN_BUSY_WAIT_MS), MAX_RETRY_AFTER_MS);
        if (busyWaited + delay > HOP_IN_PROGRESS_BOUND_MS) throw error;
        busyWaited += delay;
      } else {
        const planned = options.delays[retries];
        if (planned === undefined) throw error;
        delay = waitFor(error, planned, options.delays);
        retries += 1;
      }
      options.onRetry?.({ attempt: tries + 1, delay, reason, error });
      await sleep(delay, options.signal);
    }
  }
}

/**
 * Whether a failed try may be repeated after a wait, and why: the fetch rejected (the hop may have run; a retry gets
 * its replay), 409 `hop_in_progress` (the previous try is still executing), or a 503 (the store, or whatever sits in
 * front of the server, is down for now). Never after `provider_error` / `internal_error`: that turn is gone.
 */
function retryReason(error: TurnError): RetryReason | undefined {
  if (error.kind === 'network') return 'network';
  if (error.kind !== 'http') return undefined;
  if (error.status === 409 && error.code === 'hop_in_progress') return 'hop_in_progress';
  // By status, not code: a 503 from a proxy has no protocol body, and is as passing as `store_unavailable`.
  if (error.status === 503) return 'unavailable';
  return undefined;
}

/**
 * How long to wait before the next try after a refusal other than a 409 `hop_in_progress` with `Retry-After`: the
 * server's `Retry-After` when it sent one (a 503), within the budget (at most the longest of the delays), else the
 * planned delay.
 */
function waitFor(error: TurnError, planned: number, delays: readonly number[]): number {
  if (error.retryAfterMs === undefined) return planned;
  return Math.min(error.retryAfterMs, Math.max(...delays));
}

/** Whether the server refused the request's CSRF token (403 `csrf_invalid`): a fresh token may fix it. */
function isCsrfRejection(error: TurnError): boolean {
  return error.kind === 'http' && error.status === 403 && error.code === 'csrf_invalid';
}

/** Resolves after `ms`, or rejects with `signal.reason` as soon as the signal aborts (a stop never waits). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
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
