/**
 * The client's side of a turn (spec §2, "The client's side of a turn"; §8.5 "Cancel"): one turn is
 * `do { hop } while (response.should_continue && !turn.stopped)`. Framework-free on purpose: no Lit, no DOM beyond
 * fetch/FormData/AbortController, so a React or Vue host runs turns with it directly (`@canvas-ai/widget/loop`)
 * and `<canvas-ai-chat>` is only a view over it.
 */
import {
  CSRF_HEADER,
  MAX_TURN_REQUESTS,
  type ApplyResult,
  type ChatMessage,
  type FinalHopResponse,
  type HopRequest,
  type HopResponse,
  type ToolOutput,
} from '@canvas-ai/protocol';
import { buildHopRequest, type HostDocument } from './build-request.js';
import { checkHostDocument } from './check-document.js';
import { newId } from './ids.js';
import { readHopResponse } from './read-response.js';
import { DEFAULT_RETRY_DELAYS, type RetryWait, type SendTry, withRetries } from './retry.js';
import { serializeHopRequest, type SerializedHopRequest } from './serialize-request.js';
import { newTraceId, traceparent } from './trace-context.js';
import { noChanges, recordHop, type TurnChanges } from './turn-changes.js';
import { TurnError } from './turn-error.js';
import { undoTurn, type UndoResult } from './undo.js';

/**
 * The client's safety net against a server that never ends a turn; the server's `max_hops` is the real bound. It is
 * the most requests any valid turn takes (spec §13), so it never ends a turn a conforming server would finish.
 */
export const DEFAULT_MAX_HOPS = MAX_TURN_REQUESTS;

/** Why {@link ApplyOutputsHook} is called: a hop's outputs, or the inverse outputs of an undo (spec §17). */
export interface ApplyInfo {
  requestId: string;
  /** `hop`: the outputs of a hop's response; `undo`: outputs that take a turn back (then `response` is undefined). */
  kind: 'hop' | 'undo';
  /** The hop, for `kind` `hop`. */
  hop?: number;
}

/**
 * Applies outputs to the host's store: a hop's (what it returns becomes the next request's `apply_results`), or an
 * undo's (`response` undefined, `info.kind` `undo`). Returning nothing means every output was applied.
 */
export type ApplyOutputsHook = (
  outputs: ToolOutput[],
  response: HopResponse | undefined,
  info: ApplyInfo,
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
  /** The outputs that undo what this hop applied, in the order to apply them (spec §17). */
  inverse: ToolOutput[];
  /** Everything the turn changed so far, and its undo. */
  changes: TurnChanges;
}

/** What the loop reports before it waits to send a hop again: which hop, and {@link RetryWait}'s why and how long. */
export interface RetryReport extends RetryWait {
  requestId: string;
  hop: number;
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
  /**
   * The output types `applyOutputs` applies. Those beyond the v1 three (`remove_components`, `move_components`) are
   * declared on hop 1, and only then does the server send them (spec §5.1). Default: the v1 three.
   */
  outputTypes?: readonly string[] | undefined;
  /**
   * Goes on with a turn the server holds instead of starting one (spec §18): hops up to `hop` were answered and
   * applied, so the first request is `hop + 1`, with `applyResults` (what the host reported for hop `hop`'s outputs).
   * `messages` and `attachments` are not sent. `changes` are what the turn had changed so far (for its undo).
   */
  resume?: ResumePoint | undefined;
  /**
   * Sends a W3C `traceparent` with every request of the turn, one trace id for the whole turn and a new parent id per
   * request (spec §4.7), so a server that traces shows the turn as one trace. Off by default. A server on another
   * origin must grant the header in its preflight (the reference server does).
   */
  trace?: boolean | undefined;
}

/** Where a resumed turn goes on from. */
export interface ResumePoint {
  /** The latest hop whose response was applied. */
  hop: number;
  applyResults?: ApplyResult[] | undefined;
  changes?: TurnChanges | undefined;
}

/** How a turn ended; `changes` is what it changed on the page, with its undo (spec §17). */
export type TurnResult =
  | { status: 'done'; requestId: string; hops: number; response: FinalHopResponse; changes: TurnChanges }
  | {
      status: 'stopped';
      requestId: string;
      hops: number;
      lastResponse: HopResponse | undefined;
      changes: TurnChanges;
    }
  | {
      status: 'error';
      requestId: string;
      hops: number;
      error: TurnError;
      lastResponse: HopResponse | undefined;
      changes: TurnChanges;
    };

/** A running turn. */
export interface Turn {
  readonly requestId: string;
  /** Set by {@link stop}; checked before every hop. */
  readonly stopped: boolean;
  /** Settles when the turn ends; never rejects. */
  readonly result: Promise<TurnResult>;
  /** Stops the turn: no request is sent after it, the in-flight hop is aborted, and the server is told (DELETE). */
  stop(): void;
  /** What the turn changed on the page so far, and its undo. */
  readonly changes: TurnChanges;
  /**
   * Stop and revert (spec §17.3): stops the turn, waits until no output of it is being applied, then undoes what it
   * applied through `applyOutputs`. The response of a hop in flight is never applied.
   */
  revert(): Promise<UndoResult>;
}

/** Starts a turn and returns its handle at once. */
export function startTurn(options: TurnOptions): Turn {
  const run = new TurnRun(options);
  const result = run.run();
  return {
    requestId: run.requestId,
    get stopped() {
      return run.stopped;
    },
    get changes() {
      return run.changes;
    },
    result,
    stop: run.stop,
    async revert() {
      run.stop();
      const ended = await result;
      return undoTurn(
        ended.changes,
        (outputs, response, info) => options.applyOutputs?.(outputs, response, info),
        'revert',
      );
    },
  };
}

/** Runs a whole turn; stop it with `options.signal`. */
export function runTurn(options: TurnOptions): Promise<TurnResult> {
  return startTurn(options).result;
}

/**
 * Where a turn stands. Each phase is entered once, in this order, `stopping` only when a stop comes first:
 * - `running`: hops are being sent;
 * - `stopping`: {@link TurnRun.stop} was called (or the signal aborted) while running: nothing is sent any more but
 *   the cancel, and every await point of the run unwinds with a {@link StoppedSignal};
 * - `ended`: {@link TurnRun.run} returned its result; a stop after it does nothing.
 */
type Phase = 'running' | 'stopping' | 'ended';

/** One turn: its state, and the steps of a hop as methods. Not exported: {@link startTurn} is the API. */
class TurnRun {
  readonly requestId: string;
  private phase: Phase = 'running';
  /**
   * The server may hold this turn: a hop was POSTed (whether it arrived, failed or was aborted is unknown), so a turn
   * that ends without its answer must send the DELETE (spec §8.5). Before the first POST there is nothing to cancel.
   */
  private posted = false;
  /** The hop in flight; a stop aborts it. */
  private inFlight: AbortController | undefined;
  /** Aborted by a stop, with a {@link StoppedSignal}: ends a wait between retries at once, and records the stop. */
  private readonly stopSignal = new AbortController();
  /** Hops started so far (the one under way included). */
  private hops = 0;
  private lastResponse: HopResponse | undefined;
  /** What the host's `applyOutputs` returned for the latest hop: the next request's `apply_results`. */
  private lastApplyResults: ApplyResult[] | undefined;
  /** The host's fetch or the global one, always called as a plain function (a bare `window.fetch` needs that). */
  private readonly fetchImpl: typeof fetch;
  /** What the host applied so far, with its undo. */
  changes: TurnChanges;
  /** The turn's trace id, when {@link TurnOptions.trace} is on. */
  private readonly traceId: string | undefined;

  constructor(private readonly options: TurnOptions) {
    this.requestId = options.requestId ?? newId();
    this.traceId = options.trace ? newTraceId() : undefined;
    this.changes = options.resume?.changes ?? noChanges(this.requestId);
    if (options.resume) {
      // The server holds this turn already: its hops so far count, and a turn that ends without its answer is cancelled.
      this.hops = options.resume.hop;
      this.lastApplyResults = options.resume.applyResults;
      this.posted = true;
    }
    const given = options.fetch;
    this.fetchImpl = (input, init) => (given ? given(input, init) : globalThis.fetch(input, init));
    if (options.signal?.aborted) this.stop();
    options.signal?.addEventListener('abort', this.stop, { once: true });
  }

  /** Whether the turn was stopped (stays true once it ended). */
  get stopped(): boolean {
    return this.stopSignal.signal.aborted;
  }

  /** Stops a running turn: aborts the hop in flight and any wait, then cancels on the server. */
  readonly stop = (): void => {
    if (this.phase !== 'running') return;
    this.phase = 'stopping';
    this.inFlight?.abort();
    this.stopSignal.abort(new StoppedSignal());
    this.cancelOnServer();
  };

  /** Sends hops until the server ends the turn, a stop, or an error; never rejects. */
  async run(): Promise<TurnResult> {
    const { requestId } = this;
    try {
      while (this.phase === 'running') {
        const response = await this.nextHop();
        if (!response?.should_continue) break;
      }
    } catch (error) {
      if (error instanceof StoppedSignal || this.phase === 'stopping') return this.stoppedResult();
      // A turn that ends without its answer is abandoned: tell the server so it drops the turn's state. It runs once:
      // a stop cannot come before (that is the branch above) nor after (the phase is `ended` from here on).
      this.cancelOnServer();
      const turnError =
        error instanceof TurnError ? error : new TurnError('host', messageOf(error), { hop: this.hops, cause: error });
      return {
        status: 'error',
        requestId,
        hops: this.hops,
        error: turnError,
        lastResponse: this.lastResponse,
        changes: this.changes,
      };
    } finally {
      this.phase = 'ended';
    }
    const last = this.lastResponse;
    if (last && !last.should_continue)
      return { status: 'done', requestId, hops: this.hops, response: last, changes: this.changes };
    return this.stoppedResult();
  }

  /**
   * One hop: read the host's document, build the request, send it until it has an answer, apply its outputs, report.
   * Returns its response, or undefined when a stop came while the host read its document.
   */
  private async nextHop(): Promise<HopResponse | undefined> {
    const { options } = this;
    this.hops += 1;
    const hop = this.hops;
    this.checkHopBudget(hop);
    const document = checkHostDocument(await this.callHost('getLayout', hop, () => options.getLayout()), hop);
    if (this.phase !== 'running') return undefined;
    const request = buildHopRequest({
      requestId: this.requestId,
      hop,
      messages: options.messages,
      document,
      agent: options.agent,
      conversationId: options.conversationId,
      applyResults: this.lastApplyResults,
      outputTypes: options.outputTypes,
    });
    const response = await this.sendHop(request, hop === 1 ? (options.attachments ?? []) : []);
    this.lastResponse = response;
    const returned = await this.callHost('applyOutputs', hop, () =>
      options.applyOutputs?.(response.outputs, response, { requestId: this.requestId, kind: 'hop', hop }),
    );
    this.lastApplyResults = Array.isArray(returned) ? returned : undefined;
    // Recorded as soon as the host applied them, even when a stop came meanwhile: a revert must take them back too.
    const recorded = recordHop(
      this.changes,
      { layout: document.layout, page: document.page ?? {} },
      response.outputs,
      this.lastApplyResults,
    );
    this.changes = recorded.changes;
    options.onHop?.({
      requestId: this.requestId,
      hop,
      request,
      response,
      applyResults: this.lastApplyResults,
      inverse: recorded.inverse,
      changes: this.changes,
    });
    return response;
  }

  /** The client's safety net: a hop past `maxHops` ends the turn instead of being sent. */
  private checkHopBudget(hop: number): void {
    const maxHops = this.options.maxHops ?? DEFAULT_MAX_HOPS;
    if (hop > maxHops) {
      throw new TurnError('too_many_hops', `The server kept the turn going past ${maxHops} steps, so it was stopped.`, {
        hop,
      });
    }
  }

  /** One hop, sent until it has an answer: the retry rules are {@link withRetries}'. */
  private sendHop(request: HopRequest, attachments: readonly Blob[]): Promise<HopResponse> {
    const serialized = serializeHopRequest(request, attachments);
    const { options } = this;
    return withRetries((attempt) => this.postOnce(request, serialized, attempt), {
      delays: options.retryDelays ?? DEFAULT_RETRY_DELAYS,
      signal: this.stopSignal.signal,
      refreshableToken: typeof options.csrfToken === 'function',
      onRetry: (wait) => options.onRetry?.({ requestId: this.requestId, hop: request.hop, ...wait }),
    });
  }

  /** One POST of a hop; a rejected fetch becomes a `network` TurnError, any other failure is readHopResponse's. */
  private async postOnce(
    request: HopRequest,
    serialized: SerializedHopRequest,
    { tries, refreshToken }: SendTry,
  ): Promise<HopResponse> {
    const controller = new AbortController();
    this.inFlight = controller;
    try {
      const init: RequestInit = {
        method: 'POST',
        body: serialized.body,
        headers: {
          ...serialized.headers,
          ...this.traceHeaders(),
          ...(await this.csrfHeaders(request.hop, refreshToken)),
        },
        credentials: this.options.credentials ?? 'same-origin',
        signal: controller.signal,
      };
      this.throwIfStopped();
      this.posted = true;
      let response: Response;
      try {
        response = await this.fetchImpl(this.options.endpoint, init);
      } catch (error) {
        this.throwIfStopped();
        const tried = tries > 1 ? `, tried ${tries} times` : '';
        throw new TurnError(
          'network',
          `The server could not be reached (hop ${request.hop}${tried}): ${messageOf(error)}`,
          { hop: request.hop, cause: error },
        );
      }
      const hopResponse = await readHopResponse(response, request);
      this.throwIfStopped();
      return hopResponse;
    } catch (error) {
      this.throwIfStopped();
      throw error;
    } finally {
      this.inFlight = undefined;
    }
  }

  /** A new `traceparent` of the turn's trace for one request, when tracing is on (spec §4.7). */
  private traceHeaders(): Record<string, string> {
    return this.traceId ? { traceparent: traceparent(this.traceId) } : {};
  }

  /** The CSRF header for one request; `refresh` asks a token function for a fresh token (spec §4.2). */
  private async csrfHeaders(hop: number, refresh = false): Promise<Record<string, string>> {
    const source = this.options.csrfToken;
    if (source === undefined) return {};
    let token: string | undefined;
    try {
      token = typeof source === 'string' ? source : await source({ refresh });
    } catch (error) {
      throw new TurnError('token', `Could not get a CSRF token: ${messageOf(error)}`, { hop, cause: error });
    }
    return token ? { [CSRF_HEADER]: token } : {};
  }

  /**
   * Tells the server the turn is over (spec §8.5), if it may hold it. Best effort and not awaited: the turn is over
   * for this client either way. keepalive lets it outlive a closing page.
   */
  private cancelOnServer(): void {
    if (!this.posted) return;
    const { options } = this;
    const url =
      options.cancelUrl?.(this.requestId) ??
      `${options.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(this.requestId)}`;
    void this.csrfHeaders(0)
      .catch(() => ({}))
      .then((headers) =>
        this.fetchImpl(url, {
          method: 'DELETE',
          headers: { ...this.traceHeaders(), ...headers },
          credentials: options.credentials ?? 'same-origin',
          keepalive: true,
        }),
      )
      .catch(() => undefined);
  }

  /** Calls one of the host's functions; what it throws ends the turn as a `host` error. */
  private async callHost<T>(name: string, hop: number, call: () => T | Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new TurnError('host', `The page's ${name} failed on hop ${hop}: ${messageOf(error)}`, {
        hop,
        cause: error,
      });
    }
  }

  private throwIfStopped(): void {
    if (this.phase === 'stopping') throw new StoppedSignal();
  }

  private stoppedResult(): TurnResult {
    return {
      status: 'stopped',
      requestId: this.requestId,
      hops: this.hops,
      lastResponse: this.lastResponse,
      changes: this.changes,
    };
  }
}

/** Thrown inside the loop once the turn is stopped, so every await point unwinds the same way. */
class StoppedSignal extends Error {}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
