import * as z from 'zod/mini';
import { withMeta } from './meta.js';
import { ProtocolField } from './hop-request.js';
import { PROTOCOL_VERSION } from './ids.js';

export { errorMessage } from './error-message.js';

/**
 * Every error code of the protocol with its HTTP status (spec §7).
 * Codes are stable: clients branch on them, never on messages.
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_request: 400,
  missing_field: 400,
  unsupported_protocol: 400,
  unknown_agent: 400,
  attachment_rejected: 400,
  unauthorized: 401,
  csrf_invalid: 403,
  origin_not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  agent_changed: 409,
  hop_in_progress: 409,
  hop_out_of_order: 409,
  turn_not_found: 410,
  wait_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  host_not_allowed: 421,
  quota_exceeded: 429,
  internal_error: 500,
  provider_error: 502,
  store_unavailable: 503,
  server_busy: 503,
} as const satisfies Record<string, number>;

/** A stable error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;
/** Every error code, in a stable order. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];
/** Every error code, as a schema. */
export const ErrorCodeSchema = withMeta(z.enum(ERROR_CODES), { id: 'ErrorCode' });

/** One validation problem: where (a dotted path into the request) and what. */
export const ErrorIssue = withMeta(z.object({ path: z.string(), message: z.string() }), { id: 'ErrorIssue' });
export type ErrorIssue = z.infer<typeof ErrorIssue>;

/** The body of every 4xx/5xx response (spec §7): the turn stops, the narration so far is kept. */
export const HopErrorBody = withMeta(
  z.object({
    status: z.literal(false),
    should_continue: z.literal(false),
    protocol: z.optional(ProtocolField),
    request_id: z.optional(z.string()),
    progress: z.string(),
    message: z.string(),
    error: z.object({
      // Open on read: v1 may add codes (spec §14), and a client must still show the message and keep the
      // progress of an error whose code it does not know. The codes of this version are ErrorCode.
      code: withMeta(z.string().check(z.minLength(1)), {
        description: 'A stable error code: one of ErrorCode, or a newer one this receiver does not know.',
      }),
      field: z.optional(z.string()),
      issues: z.optional(z.array(ErrorIssue)),
    }),
  }),
  { id: 'HopErrorBody', description: 'The body of every error response.' },
);
export type HopErrorBody = z.infer<typeof HopErrorBody>;

/** Whether an error code is one of this protocol version's codes. */
export function isKnownErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}

/** Options of a {@link HopError}. */
export interface HopErrorOptions {
  field?: string;
  issues?: ErrorIssue[];
  requestId?: string;
  progress?: string;
  cause?: unknown;
  /** Sent as `Retry-After` (seconds): when the client may send the same request again (429, 503). */
  retryAfterSeconds?: number;
  /**
   * For the server's log only, never in the body (spec §7): what an operator needs to fix it (the endpoint, the
   * upstream answer), already free of secrets.
   */
  detail?: string;
}

/** A protocol error: carries its code and HTTP status, and builds its own wire body. */
export class HopError extends Error {
  override readonly name = 'HopError';
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly issues: ErrorIssue[] | undefined;
  readonly requestId: string | undefined;
  readonly progress: string;
  readonly retryAfterSeconds: number | undefined;
  readonly detail: string | undefined;

  constructor(code: ErrorCode, message: string, options: HopErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.field = options.field;
    this.issues = options.issues;
    this.requestId = options.requestId;
    this.progress = options.progress ?? '';
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.detail = options.detail;
  }

  /** The HTTP status of this error's code. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** A copy of this error carrying the turn's narration so far (kept when a hop fails mid-turn). */
  withProgress(progress: string, requestId?: string): HopError {
    return new HopError(this.code, this.message, {
      field: this.field,
      issues: this.issues,
      requestId: requestId ?? this.requestId,
      progress,
      cause: this.cause,
      retryAfterSeconds: this.retryAfterSeconds,
      detail: this.detail,
    });
  }

  /** The wire body of this error. */
  toBody(): HopErrorBody {
    const error: HopErrorBody['error'] = { code: this.code };
    if (this.field !== undefined) error.field = this.field;
    if (this.issues !== undefined) error.issues = this.issues;
    const body: HopErrorBody = {
      status: false,
      should_continue: false,
      protocol: PROTOCOL_VERSION,
      progress: this.progress,
      message: this.message,
      error,
    };
    if (this.requestId !== undefined) body.request_id = this.requestId;
    return body;
  }

  /** A JSON `Response` with this error's status and body (and `Retry-After` when the error says when to retry). */
  toResponse(headers?: HeadersInit): Response {
    const all = new Headers(headers);
    if (this.retryAfterSeconds !== undefined)
      all.set('Retry-After', String(Math.max(1, Math.ceil(this.retryAfterSeconds))));
    return Response.json(this.toBody(), { status: this.status, headers: all });
  }
}

/** Whether a value is a {@link HopError} (also across package copies). */
export function isHopError(value: unknown): value is HopError {
  return value instanceof HopError || (value instanceof Error && value.name === 'HopError' && 'code' in value);
}
