import type { ErrorCode, HopErrorBody } from '@canvas-ai/protocol';

/**
 * Why a turn ended without its answer:
 * - `network`: the fetch rejected, on every try the retry budget allowed (`retryDelays`);
 * - `http`: the server answered 4xx/5xx (`code` and `body` hold its protocol error when it sent one); a 409
 *   `hop_in_progress` or 503 only once the retries ran out, a 403 `csrf_invalid` only if a fresh token failed too;
 * - `server`: HTTP 200 with `status: false`;
 * - `invalid_response`: the response does not follow the protocol schema;
 * - `too_many_hops`: the client's safety net (`maxHops`) ended a turn the server kept going;
 * - `host`: the host's `getLayout` or `applyOutputs` threw;
 * - `token`: the CSRF token could not be obtained.
 */
export type TurnErrorKind = 'network' | 'http' | 'server' | 'invalid_response' | 'too_many_hops' | 'host' | 'token';

/** Options of a {@link TurnError}. */
export interface TurnErrorOptions {
  hop: number;
  status?: number;
  body?: HopErrorBody;
  /** The server's `Retry-After`, in milliseconds: how long to wait before the same request may go again. */
  retryAfterMs?: number | undefined;
  /** The agent server's origin, when it is not the page's and its answer could not be read (see `serverOrigin`). */
  serverOrigin?: string | undefined;
  cause?: unknown;
}

/** The error that ended a turn; `message` is written for the person chatting. */
export class TurnError extends Error {
  override readonly name = 'TurnError';
  readonly kind: TurnErrorKind;
  /** The hop that failed. */
  readonly hop: number;
  /** The HTTP status, for `http` errors. */
  readonly status: number | undefined;
  /** The protocol error code, when the server sent an error body: an {@link ErrorCode}, or a newer one. */
  readonly code: ErrorCode | (string & {}) | undefined;
  /** The server's error body, when it sent one. */
  readonly body: HopErrorBody | undefined;
  /** The server's `Retry-After` (ms) on an `http` error that sent one (409 `hop_in_progress`, 429, 503). */
  readonly retryAfterMs: number | undefined;
  /**
   * Set on a `network` error (the hop's fetch rejected) or a `token` error (the element's token fetch rejected) when
   * the agent server is on another origin than the page: its origin. The server is down, or it does not allow the
   * page's origin (spec §4.6), which the browser tells the page only as "Failed to fetch"; `message` names the
   * reference server's setting, `--allowed-origins`.
   */
  readonly serverOrigin: string | undefined;

  constructor(kind: TurnErrorKind, message: string, options: TurnErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.hop = options.hop;
    this.status = options.status;
    this.body = options.body;
    this.code = options.body?.error.code;
    this.retryAfterMs = options.retryAfterMs;
    this.serverOrigin = options.serverOrigin;
  }
}
