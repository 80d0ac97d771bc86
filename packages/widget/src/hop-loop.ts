/**
 * THE CLIENT LOOP (DESIGN §2, §8): one turn is `do { hop } while (response.should_continue && !turn.stopped)`.
 * Framework-free on purpose: no Lit, no DOM beyond fetch/FormData/AbortController, so a React or Vue host runs
 * turns with it directly and `<canvas-ai-chat>` is only a view over it.
 */
import {
  CSRF_HEADER,
  type ApplyResult,
  type ChatMessage,
  type FinalHopResponse,
  type HopRequest,
  type HopResponse,
  type ToolOutput,
} from '@canvas-ai/protocol';
import { buildHopRequest, type HostDocument } from './build-request.js';
import { newId } from './ids.js';
import { readHopResponse } from './read-response.js';
import { DEFAULT_RETRY_DELAYS, isCsrfRejection, retryReason, sleep, type RetryReason } from './retry.js';
import { serializeHopRequest, type SerializedHopRequest } from './serialize-request.js';
import { TurnError } from './turn-error.js';

/** The client's safety net against a server that never ends a turn; the server's `max_hops` is the real bound. */
export const DEFAULT_MAX_HOPS = 50;

/**
 * Applies one hop's outputs to the host's store; what it returns becomes the next request's `apply_results`.
 * Returning nothing means every output was applied.
 */
export type ApplyOutputsHook = (
  outputs: ToolOutput[],
  response: HopResponse,
  // biome-ignore lint/suspicious/noConfusingVoidType: a host's store function that returns nothing must type-check.
) => ApplyResult[] | void | Promise<ApplyResult[] | void>;

/** Reads the host's document at the start of a hop. Called on every hop: never cache its result. */
export type GetLayoutHook = () => HostDocument | Promise<HostDocument>;

/**
 * A CSRF token, or a function that yields one per request. After a 403 `csrf_invalid` the function is called with
 * `{refresh: true}`: it should then fetch a new token (spec §4.2), which the refused request is sent again with once.
 */
export type CsrfTokenSource =
  | string
  | ((request?: CsrfTokenRequest) => string | undefined | Promise<string | undefined>);

/** What the loop asks a {@link CsrfTokenSource} function for. */
export interface CsrfTokenRequest {
  /** The server refused the token it gave last: fetch a new one instead of the cached one. */
  refresh: boolean;
}

/** What a hop reports once its outputs are applied. */
export interface HopReport {
  requestId: string;
  hop: number;
  request: HopRequest;
  response: HopResponse;
  /** What `applyOutputs` returned for this hop's outputs (sent with the next hop). */
  applyResults: ApplyResult[] | undefined;
}

/** What the loop reports before it waits to send a hop again. */
export interface RetryReport {
  requestId: string;
  hop: number;
  /** The number of the try about to follow the wait (2 for the first retry). */
  attempt: number;
  /** How long it waits (ms). */
  delay: number;
  reason: RetryReason;
  /** Why the previous try failed. */
  error: TurnError;
}

/** Options of {@link startTurn}. */
export interface TurnOptions {
  /** The hop URL, e.g. `/api/hop`. Cancels go to `<endpoint>/<request_id>` unless {@link cancelUrl} says otherwise. */
  endpoint: string;
  /** The transcript, the user's new message last (sent on hop 1). */
  messages: readonly ChatMessage[];
  getLayout: GetLayoutHook;
  applyOutputs?: ApplyOutputsHook | undefined;
  /** Files the user attached: hop 1 then goes as multipart. */
  attachments?: readonly Blob[] | undefined;
  /** The agent picked for this message; absent → the server's main agent. */
  agent?: string | undefined;
  conversationId?: string | undefined;
  /** The turn id; default a random one. */
  requestId?: string | undefined;
  csrfToken?: CsrfTokenSource | undefined;
  credentials?: RequestCredentials | undefined;
  /** Default {@link DEFAULT_MAX_HOPS}. */
  maxHops?: number | undefined;
  fetch?: typeof fetch | undefined;
  cancelUrl?: ((requestId: string) => string) | undefined;
  /** Aborting it stops the turn, like {@link Turn.stop}. */
  signal?: AbortSignal | undefined;
  /** Called after each hop's outputs were applied. */
  onHop?: ((report: HopReport) => void) | undefined;
  /**
   * The waits (ms) before each retry of a hop after a network failure, a 409 `hop_in_progress` or a 503; their
   * number bounds the retries of one hop. Default {@link DEFAULT_RETRY_DELAYS}; `[]` never retries.
   */
  retryDelays?: readonly number[] | undefined;
  /** Called before each wait for a retry (to show "reconnecting…", or to log). */
  onRetry?: ((report: RetryReport) => void) | undefined;
}

/** How a turn ended. */
export type TurnResult =
  | { status: 'done'; requestId: string; hops: number; response: FinalHopResponse }
  | { status: 'stopped'; requestId: string; hops: number; lastResponse: HopResponse | undefined }
  | { status: 'error'; requestId: string; hops: number; error: TurnError; lastResponse: HopResponse | undefined };

/** A running turn. */
export interface Turn {
  readonly requestId: string;
  /** Set by {@link stop}; checked before every hop. */
  readonly stopped: boolean;
  /** Settles when the turn ends; never rejects. */
  readonly result: Promise<TurnResult>;
  /** Stops the turn: no request is sent after it, the in-flight hop is aborted, and the server is told (DELETE). */
  stop(): void;
}

/** Starts a turn and returns its handle at once. */
export function startTurn(options: TurnOptions): Turn {
  const requestId = options.requestId ?? newId();
  const fetchImpl = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const maxHops = options.maxHops ?? DEFAULT_MAX_HOPS;
  let stopped = false;
  let ended = false;
  let posted = false;
  let cancelled = false;
  let inFlight: AbortController | undefined;
  // Aborted by stop: ends a wait between retries at once.
  const stopping = new AbortController();
  const retryDelays = options.retryDelays ?? DEFAULT_RETRY_DELAYS;

  const csrfHeaders = async (hop: number, refresh = false): Promise<Record<string, string>> => {
    const source = options.csrfToken;
    if (source === undefined) return {};
    let token: string | undefined;
    try {
      token = typeof source === 'string' ? source : await source({ refresh });
    } catch (error) {
      throw new TurnError('token', `Could not get a CSRF token: ${messageOf(error)}`, { hop, cause: error });
    }
    return token ? { [CSRF_HEADER]: token } : {};
  };

  // Idempotent, best effort: the turn is over for this client either way. keepalive lets it outlive a closing page.
  const cancelOnServer = (): void => {
    if (!posted || cancelled) return;
    cancelled = true;
    const url =
      options.cancelUrl?.(requestId) ?? `${options.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(requestId)}`;
    void csrfHeaders(0)
      .catch(() => ({}))
      .then((headers) =>
        fetchImpl(url, {
          method: 'DELETE',
          headers,
          credentials: options.credentials ?? 'same-origin',
          keepalive: true,
        }),
      )
      .catch(() => undefined);
  };

  const stop = (): void => {
    if (stopped || ended) return;
    stopped = true;
    inFlight?.abort();
    stopping.abort(new StoppedSignal());
    cancelOnServer();
  };

  // One POST of a hop; a rejected fetch becomes a `network` TurnError, any other failure is readHopResponse's.
  const postOnce = async (
    request: HopRequest,
    serialized: SerializedHopRequest,
    tries: number,
    refreshToken: boolean,
  ): Promise<HopResponse> => {
    const controller = new AbortController();
    inFlight = controller;
    try {
      const init: RequestInit = {
        method: 'POST',
        body: serialized.body,
        headers: { ...serialized.headers, ...(await csrfHeaders(request.hop, refreshToken)) },
        credentials: options.credentials ?? 'same-origin',
        signal: controller.signal,
      };
      if (stopped) throw new StoppedSignal();
      posted = true;
      let response: Response;
      try {
        response = await fetchImpl(options.endpoint, init);
      } catch (error) {
        if (stopped) throw new StoppedSignal();
        const tried = tries > 1 ? `, tried ${tries} times` : '';
        throw new TurnError(
          'network',
          `The server could not be reached (hop ${request.hop}${tried}): ${messageOf(error)}`,
          {
            hop: request.hop,
            cause: error,
          },
        );
      }
      const hopResponse = await readHopResponse(response, request);
      if (stopped) throw new StoppedSignal();
      return hopResponse;
    } catch (error) {
      if (stopped) throw new StoppedSignal();
      throw error;
    } finally {
      inFlight = undefined;
    }
  };

  // One hop, sent until it has an answer (spec §8.2, §4.2). A network failure, 409 hop_in_progress or 503 is tried
  // again after the next of `retryDelays`, with the same hop number and body: the server replays a hop it already
  // ran, and a refused request changed nothing. A 403 csrf_invalid goes once more with a fresh token. Anything else
  // (provider_error and internal_error above all: that turn is gone) ends the turn.
  const sendHop = async (request: HopRequest, attachments: readonly Blob[]): Promise<HopResponse> => {
    const serialized = serializeHopRequest(request, attachments);
    let retries = 0;
    let refreshToken = false;
    let tokenRefreshed = false;
    for (let tries = 1; ; tries += 1) {
      try {
        return await postOnce(request, serialized, tries, refreshToken);
      } catch (error) {
        if (stopped) throw new StoppedSignal();
        if (!(error instanceof TurnError)) throw error;
        refreshToken = false;
        // A fixed string cannot yield another token, so resending would only be refused again.
        if (isCsrfRejection(error) && !tokenRefreshed && typeof options.csrfToken === 'function') {
          tokenRefreshed = refreshToken = true;
          continue;
        }
        const reason = retryReason(error);
        const delay = reason === undefined ? undefined : retryDelays[retries];
        if (reason === undefined || delay === undefined) throw error;
        retries += 1;
        options.onRetry?.({ requestId, hop: request.hop, attempt: tries + 1, delay, reason, error });
        await sleep(delay, stopping.signal);
      }
    }
  };

  const callHost = async <T>(name: string, hop: number, call: () => T | Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw new TurnError('host', `The page's ${name} failed on hop ${hop}: ${messageOf(error)}`, {
        hop,
        cause: error,
      });
    }
  };

  const run = async (): Promise<TurnResult> => {
    let hop = 0;
    let last: HopResponse | undefined;
    let applyResults: ApplyResult[] | undefined;
    try {
      do {
        if (stopped) break;
        hop += 1;
        if (hop > maxHops) {
          throw new TurnError(
            'too_many_hops',
            `The server kept the turn going past ${maxHops} steps, so it was stopped.`,
            { hop },
          );
        }
        const document = await callHost('getLayout', hop, () => options.getLayout());
        if (stopped) break;
        const request = buildHopRequest({
          requestId,
          hop,
          messages: options.messages,
          document,
          agent: options.agent,
          conversationId: options.conversationId,
          applyResults,
        });
        const response = await sendHop(request, hop === 1 ? (options.attachments ?? []) : []);
        last = response;
        const returned = await callHost('applyOutputs', hop, () => options.applyOutputs?.(response.outputs, response));
        applyResults = Array.isArray(returned) ? returned : undefined;
        options.onHop?.({ requestId, hop, request, response, applyResults });
      } while (last.should_continue && !stopped);
    } catch (error) {
      if (error instanceof StoppedSignal || stopped)
        return { status: 'stopped', requestId, hops: hop, lastResponse: last };
      // A turn that ends without its answer is abandoned: tell the server so it drops the turn's state.
      cancelOnServer();
      const turnError =
        error instanceof TurnError ? error : new TurnError('host', messageOf(error), { hop, cause: error });
      return { status: 'error', requestId, hops: hop, error: turnError, lastResponse: last };
    } finally {
      ended = true;
    }
    if (last && !last.should_continue) return { status: 'done', requestId, hops: hop, response: last };
    return { status: 'stopped', requestId, hops: hop, lastResponse: last };
  };

  if (options.signal?.aborted) stopped = true;
  options.signal?.addEventListener('abort', stop, { once: true });
  const result = run();
  return {
    requestId,
    get stopped() {
      return stopped;
    },
    result,
    stop,
  };
}

/** Runs a whole turn; stop it with `options.signal`. */
export function runTurn(options: TurnOptions): Promise<TurnResult> {
  return startTurn(options).result;
}

/** Thrown inside the loop once the turn is stopped, so every await point unwinds the same way. */
class StoppedSignal extends Error {}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
