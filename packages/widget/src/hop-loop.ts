/**
 * The client's side of a turn (spec §2, "The client's side of a turn"; §8.5 "Cancel"): one turn is
 * `do { hop } while (response.should_continue && !turn.stopped)`. Framework-free on purpose: no Lit, no DOM beyond
 * fetch/FormData/AbortController, so a React or Vue host runs turns with it directly (`@canvas-ai/widget/loop`)
 * and `<canvas-ai-chat>` is only a view over it.
 */
import {
  CSRF_HEADER,
  errorMessage,
  MAX_TURN_REQUESTS,
  MAX_WAITING_TURN_REQUESTS,
  type ApplyResult,
  type ChatMessage,
  type FinalHopResponse,
  type HopRequest,
  type HopResponse,
  type ToolOutput,
  type WaitAnswer,
  type Waiting,
  type WaitingOf,
} from '@canvas-ai/protocol';
import { buildHopRequest, type HostDocument } from './build-request.js';
import { checkHostDocument } from './check-document.js';
import { newId } from './ids.js';
import { readHopResponse } from './read-response.js';
import { DEFAULT_RETRY_DELAYS, type RetryWait, type SendTry, withRetries } from './retry.js';
import { answerScreenshot, type GetScreenshotHook } from './screenshot.js';
import { serializeHopRequest, type SerializedHopRequest } from './serialize-request.js';
import { newTraceId, traceparent } from './trace-context.js';
import { type ClearPlanHook, PlanPlaceholders, type ShowPlanHook } from './plan-placeholders.js';
import { OtherOriginUnreachable, originHint, otherOrigin } from './other-origin.js';
import { noChanges, recordHopWithoutUndo, type TurnChanges } from './turn-changes.js';
import { TurnError } from './turn-error.js';
import { revertWithoutRecording, type UndoRecording, type UndoResult } from './undo.js';

/**
 * The client's safety net against a server that never ends a turn; the server's `max_hops` is the real bound. It is
 * the most requests any valid turn takes (spec §13), so it never ends a turn a conforming server would finish.
 */
export const DEFAULT_MAX_HOPS = MAX_TURN_REQUESTS;

/**
 * What the loop asks for: the streamed hop first (spec §6, revision 1.4), JSON from a server that does not stream.
 */
export const STREAM_ACCEPT = 'application/x-ndjson, application/json;q=0.9';

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
 * undo's (`response` undefined, `info.kind` `undo`). Returning nothing means every output was applied. On a streamed
 * hop the outputs come before the hop's response exists (spec §6): then `response` is undefined and `info.kind` is
 * `hop`, with `info.hop` set. A hop's outputs are applied once, whichever way they came.
 */
export type ApplyOutputsHook = (
  outputs: ToolOutput[],
  response: HopResponse | undefined,
  info: ApplyInfo,
  // biome-ignore lint/suspicious/noConfusingVoidType: a host's store function that returns nothing must type-check.
) => ApplyResult[] | void | Promise<ApplyResult[] | void>;

/** The person's answer to a question, as {@link AskPersonHook} gives it; the loop adds `kind` and `call_id`. */
export interface PersonAnswer {
  /** The person closed the question without answering. */
  dismissed?: boolean | undefined;
  /** The indexes (from 0) of the picked choices. */
  choices?: readonly number[] | undefined;
  /** Their own answer, where the question allows it. */
  text?: string | undefined;
}

/** The person's decision on a plan (spec §20.4), as {@link DecidePlanHook} gives it: build it, or propose another. */
export interface PlanDecision {
  decision: 'approve' | 'revise';
  /** What should change in the plan: required, not blank, with `revise`; none with `approve`. */
  feedback?: string | undefined;
}

/**
 * Shows the person the plan an agent proposes before it builds (spec §20.4) and resolves with their decision; the
 * loop sends it with the next hop. A Cancel is no decision: stop the turn (the server is told). Giving this hook
 * declares the wait `plan` on hop 1, so only then may the server's agent propose one.
 */
export type DecidePlanHook = (
  waiting: WaitingOf<'plan'>,
  info: { requestId: string; hop: number; signal: AbortSignal },
) => PlanDecision | Promise<PlanDecision>;

/**
 * Shows the person what the turn waits for (spec §20: a question) and resolves with their answer or dismissal. The
 * loop sends it with the next hop; a stop while it waits ends the turn (the promise is then left). Giving this hook
 * declares the wait `question` on hop 1, so only then may the server's agent ask.
 */
export type AskPersonHook = (
  waiting: WaitingOf<'question'>,
  info: { requestId: string; hop: number; signal: AbortSignal },
) => PersonAnswer | Promise<PersonAnswer>;

/** The person's decision on proposed changes (spec §20.5): the `call_id`s of the changes they approve; none rejects. */
export interface ApprovalDecision {
  approved: readonly string[];
}

/**
 * Shows the person the changes the agent proposes (spec §20.5) and resolves with their decision. The loop sends it
 * with the next hop, whose response carries the approved outputs; a stop while it waits ends the turn. Giving this
 * hook declares the wait `approval` on hop 1: without it, the server never sends a change its rules mark.
 */
export type ApproveHook = (
  waiting: WaitingOf<'approval'>,
  info: { requestId: string; hop: number; signal: AbortSignal },
) => ApprovalDecision | Promise<ApprovalDecision>;

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
  /** The outputs that undo what this hop applied, in the order to apply them (spec §17); none without `undo`. */
  inverse: ToolOutput[];
  /** Everything the turn changed so far, and its undo. */
  changes: TurnChanges;
}

/** A piece of a hop's model text, as a streamed hop delivers it (spec §6). */
export interface TextReport {
  requestId: string;
  hop: number;
  /** The new piece. */
  delta: string;
  /**
   * The hop's text so far, `delta` included. It starts again when the hop is sent again after a lost response, so
   * a view that shows `text` never shows a piece twice.
   */
  text: string;
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
   * Ask for the streamed hop (spec §6): outputs applied as soon as the server executed them, and the model's text
   * as it comes ({@link onText}). Default true; a server that does not stream answers JSON, read as always.
   */
  stream?: boolean | undefined;
  /** Called with each piece of a streamed hop's model text. What it was (narration or answer) the hop's response says. */
  onText?: ((report: TextReport) => void) | undefined;
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
   * Shows a question the agent asks and gives the person's answer (spec §20). Given, the loop declares the wait
   * `question`; absent, no turn ever waits (the server does not offer the question tool).
   */
  askPerson?: AskPersonHook | undefined;
  /**
   * Shows the plan an agent proposes before it builds and gives the person's decision (spec §20.4). Given, the loop
   * declares the wait `plan`; absent, no turn waits for a plan (the agent builds without one).
   */
  decidePlan?: DecidePlanHook | undefined;
  /**
   * Draws a plan's rows as placeholders on the host's canvas, those not built yet (spec §20.4); optional. Called when
   * the plan is shown, approved, and as its rows are built.
   */
  showPlan?: ShowPlanHook | undefined;
  /** Takes the placeholders of {@link showPlan} away: a revision asked for, the turn ended or stopped. */
  clearPlan?: ClearPlanHook | undefined;
  /**
   * Takes a screenshot of the page, or of the region around a component, when the agent asks for a look (spec §20.3).
   * Given, the loop declares the wait `screenshot`; absent, the agent is never offered the look. A wait for one the
   * hook cannot serve (it returns nothing or fails) is answered `unavailable`, and the model is told.
   */
  getScreenshot?: GetScreenshotHook | undefined;
  /**
   * Shows the changes the agent proposes and gives the person's decision (spec §20.5). Given, the loop declares the
   * wait `approval`; absent, a change the agents config marks is never sent.
   */
  approve?: ApproveHook | undefined;
  /**
   * Goes on with a turn the server holds instead of starting one (spec §18): hops up to `hop` were answered and
   * applied, so the first request is `hop + 1`, with `applyResults` (what the host reported for hop `hop`'s outputs).
   * `messages` and `attachments` are not sent. `changes` are what the turn had changed so far (for its undo).
   */
  resume?: ResumePoint | undefined;
  /**
   * Records each hop's undo (spec §17): pass `undoRecording`. Then `changes` and each hop's `inverse` hold the outputs
   * that take back what the host applied, and {@link Turn.revert} applies them. Without it the loop bundles and runs
   * no reducer: `changes` lists what the host applied as `unrecorded` (no inverse), and `revert()` stops the turn and
   * takes nothing back (status `failed`). A host whose undo manager groups the turn's changes into one step, or keeps
   * snapshots, needs no inverses (spec §17.5); one that pushes them onto its own stack does. `ChatSession` and the
   * element always record; pass it to `resumeTurn` too, or the hops after a reload are not recorded.
   */
  undo?: UndoRecording | undefined;
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
  /** What the turn waits for after hop `hop` (its status said so, spec §20.1): asked again before `hop + 1`. */
  waiting?: Waiting | undefined;
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
  /** What the turn changed on the page so far, and its undo (with {@link TurnOptions.undo}). */
  readonly changes: TurnChanges;
  /**
   * Stop and revert (spec §17.3): stops the turn, waits until no output of it is being applied, then undoes what it
   * applied through `applyOutputs`. The response of a hop in flight is never applied. Without
   * {@link TurnOptions.undo} it only stops the turn and takes nothing back: every change stays, and the result says so.
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
      if (!options.undo) return revertWithoutRecording(ended.changes);
      return options.undo.undoTurn(
        ended.changes,
        (outputs, response, info) => options.applyOutputs?.(outputs, response, info),
        'revert',
        { getLayout: options.getLayout },
      );
    },
  };
}

/** Runs a whole turn; stop it with `options.signal`. */
export function runTurn(options: TurnOptions): Promise<TurnResult> {
  return startTurn(options).result;
}

/** One turn: its state, and the steps of a hop as methods. Not exported: {@link startTurn} is the API. */
class TurnRun {
  readonly requestId: string;
  /** {@link TurnRun.run} returned its result: a stop after it does nothing. */
  private ended = false;
  /**
   * The server may hold this turn: a hop was POSTed (whether it arrived, failed or was aborted is unknown), so a turn
   * that ends without its answer must send the DELETE (spec §8.5). Before the first POST there is nothing to cancel.
   */
  private posted = false;
  /**
   * Aborted by a stop, with a {@link StoppedSignal} as its reason: the one stop of the turn. It aborts the hop's fetch
   * and its body read, ends a wait between retries at once, and from then on nothing is sent but the cancel and
   * nothing is applied; every await point of the run unwinds with its reason.
   */
  private readonly stopSignal = new AbortController();
  /** Hops started so far (the one under way included). */
  private hops = 0;
  private lastResponse: HopResponse | undefined;
  /** What the host's `applyOutputs` returned for the latest hop: the next request's `apply_results`. */
  private lastApplyResults: ApplyResult[] | undefined;
  /** What the turn waits for after the latest hop (spec §20.1): the person answers before the next hop is sent. */
  private waiting: Waiting | undefined;
  /** The plan on the host's canvas, if any (spec §20.4). */
  private readonly plan: PlanPlaceholders;
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
    this.plan = new PlanPlaceholders(options);
    if (options.resume) {
      // The server holds this turn already: its hops so far count, and a turn that ends without its answer is cancelled.
      this.hops = options.resume.hop;
      this.lastApplyResults = options.resume.applyResults;
      this.waiting = options.resume.waiting;
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
    if (this.ended || this.stopped) return;
    this.stopSignal.abort(new StoppedSignal());
    this.cancelOnServer();
  };

  /** Sends hops until the server ends the turn, a stop, or an error; never rejects. */
  async run(): Promise<TurnResult> {
    const { requestId } = this;
    try {
      while (!this.stopped) {
        const response = await this.nextHop();
        if (!response?.should_continue) break;
      }
    } catch (error) {
      if (this.stopped) return this.stoppedResult();
      // A turn that ends without its answer is abandoned: tell the server so it drops the turn's state. It runs once:
      // a stop cannot come before (that is the branch above) nor after (the run is `ended` from here on).
      this.cancelOnServer();
      const turnError =
        error instanceof TurnError
          ? error
          : new TurnError('host', errorMessage(error), { hop: this.hops, cause: error });
      return {
        status: 'error',
        requestId,
        hops: this.hops,
        error: turnError,
        lastResponse: this.lastResponse,
        changes: this.changes,
      };
    } finally {
      this.ended = true;
      this.plan.clear();
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
    const { answer, images } = await this.answerWaiting(hop - 1);
    if (this.stopped) return undefined;
    const document = checkHostDocument(await this.callHost('getLayout', hop, () => options.getLayout()), hop);
    if (this.stopped) return undefined;
    const request = buildHopRequest({
      requestId: this.requestId,
      hop,
      messages: options.messages,
      document,
      agent: options.agent,
      conversationId: options.conversationId,
      applyResults: this.lastApplyResults,
      outputTypes: options.outputTypes,
      waits: declaredWaits(options),
      answer,
    });
    const applied = new HopOutputs(hop);
    const apply = async (outputs: ToolOutput[], response: HopResponse | undefined): Promise<void> => {
      // After a stop nothing more is applied (a revert takes back only what was).
      this.stopSignal.signal.throwIfAborted();
      if (applied.done) {
        applied.check(outputs);
        return;
      }
      const returned = await this.callHost('applyOutputs', hop, () =>
        options.applyOutputs?.(outputs, response, { requestId: this.requestId, kind: 'hop', hop }),
      );
      this.lastApplyResults = Array.isArray(returned) ? returned : undefined;
      // Recorded as soon as the host applied them, even when a stop came meanwhile: a revert must take them back too.
      const recorded = options.undo
        ? options.undo.recordHop(
            this.changes,
            { layout: document.layout, page: document.page ?? {} },
            outputs,
            this.lastApplyResults,
          )
        : recordHopWithoutUndo(this.changes, outputs, this.lastApplyResults);
      this.changes = recorded.changes;
      applied.record(outputs, recorded.inverse);
      this.plan.applied(outputs, this.lastApplyResults);
    };
    const response = await this.sendHop(request, hop === 1 ? (options.attachments ?? []) : images, apply);
    // A response read to its end just as the stop came is not the turn's: it is neither applied nor reported.
    this.stopSignal.signal.throwIfAborted();
    this.lastResponse = response;
    this.waiting = response.should_continue ? response.waiting : undefined;
    await apply(response.outputs, response);
    options.onHop?.({
      requestId: this.requestId,
      hop,
      request,
      response,
      applyResults: this.lastApplyResults,
      inverse: applied.inverse,
      changes: this.changes,
    });
    return response;
  }

  /**
   * The answer to what the turn waits for after hop `hop`, if it waits (spec §20.1), with the images it carries: the
   * person's, asked through the host's {@link AskPersonHook}, or the host's screenshot; a stop meanwhile unwinds the
   * run. A question the client never declared ends the turn; a screenshot without the hook is answered unavailable.
   */
  private async answerWaiting(hop: number): Promise<{ answer: WaitAnswer | undefined; images: Blob[] }> {
    const waiting = this.waiting;
    if (!waiting) return { answer: undefined, images: [] };
    if (waiting.kind === 'screenshot') {
      const reply = await this.screenshotFor(waiting, hop);
      this.waiting = undefined;
      return reply;
    }
    if (waiting.kind === 'plan') return { answer: await this.answerPlan(waiting, hop), images: [] };
    if (waiting.kind === 'approval') return { answer: await this.answerApproval(waiting, hop), images: [] };
    return { answer: await this.answerQuestion(waiting, hop), images: [] };
  }

  /** The person's decision on proposed changes, through the host's {@link ApproveHook}. */
  private async answerApproval(waiting: WaitingOf<'approval'>, hop: number): Promise<WaitAnswer> {
    const approve = this.options.approve;
    if (!approve)
      throw new TurnError(
        'invalid_response',
        `The server's answer to hop ${hop} proposes changes this page cannot show.`,
        {
          hop,
        },
      );
    const { signal } = this.stopSignal;
    const given = await untilStopped(
      this.callHost('approve', hop, () => approve(waiting, { requestId: this.requestId, hop, signal })),
      signal,
    );
    this.waiting = undefined;
    return { kind: 'approval', call_id: waiting.call_id, approved: [...given.approved] };
  }

  /** The host's screenshot for a wait, through {@link GetScreenshotHook}; a stop meanwhile unwinds the run. */
  private screenshotFor(waiting: WaitingOf<'screenshot'>, hop: number) {
    const hook = this.options.getScreenshot;
    const { signal } = this.stopSignal;
    const take = hook
      ? (request: Parameters<GetScreenshotHook>[0]) =>
          untilStopped(
            Promise.resolve().then(() => hook(request, { requestId: this.requestId, hop, signal })),
            signal,
          )
      : undefined;
    return answerScreenshot(waiting, take, () => this.stopped);
  }

  /** The person's answer to a question, through the host's {@link AskPersonHook}. */
  private async answerQuestion(waiting: WaitingOf<'question'>, hop: number): Promise<WaitAnswer> {
    const ask = this.options.askPerson;
    if (!ask) throw this.cannotShow(waiting, hop);
    const { signal } = this.stopSignal;
    const given = await untilStopped(
      this.callHost('askPerson', hop, () => ask(waiting, { requestId: this.requestId, hop, signal })),
      signal,
    );
    this.waiting = undefined;
    return {
      kind: waiting.kind,
      call_id: waiting.call_id,
      dismissed: given.dismissed ?? false,
      choices: [...(given.choices ?? [])],
      ...(given.text === undefined ? {} : { text: given.text }),
    };
  }

  /**
   * The person's decision on a plan, through the host's {@link DecidePlanHook}; the host's canvas shows the rows while
   * it waits, and keeps them for the build once approved (spec §20.4).
   */
  private async answerPlan(waiting: WaitingOf<'plan'>, hop: number): Promise<WaitAnswer> {
    const decide = this.options.decidePlan;
    if (!decide) throw this.cannotShow(waiting, hop);
    this.plan.shown(waiting);
    const { signal } = this.stopSignal;
    const given = await untilStopped(
      this.callHost('decidePlan', hop, () => decide(waiting, { requestId: this.requestId, hop, signal })),
      signal,
    );
    this.waiting = undefined;
    if (given.decision !== 'approve' && given.decision !== 'revise')
      throw new TurnError('host', `The page answered the plan of hop ${hop} without a decision.`, { hop });
    this.plan.decided(given.decision);
    return {
      kind: 'plan',
      call_id: waiting.call_id,
      decision: given.decision,
      ...(given.feedback === undefined ? {} : { feedback: given.feedback }),
    };
  }

  /** A wait the client never declared: the server broke the rule of spec §20.1, and the turn ends. */
  private cannotShow(waiting: Waiting, hop: number): TurnError {
    return new TurnError(
      'invalid_response',
      `The server's answer to hop ${hop} waits for a ${waiting.kind} this page cannot show.`,
      { hop },
    );
  }

  /** The client's safety net: a hop past `maxHops` ends the turn instead of being sent. */
  private checkHopBudget(hop: number): void {
    // A turn that may wait has one more hop per wait (spec §20.1).
    const waits = declaredWaits(this.options).length > 0;
    const maxHops = this.options.maxHops ?? (waits ? MAX_WAITING_TURN_REQUESTS : DEFAULT_MAX_HOPS);
    if (hop > maxHops) {
      throw new TurnError('too_many_hops', `The server kept the turn going past ${maxHops} steps, so it was stopped.`, {
        hop,
      });
    }
  }

  /**
   * One hop, sent until it has an answer: the retry rules are {@link withRetries}'. `apply` applies the outputs of a
   * streamed hop's `outputs` line when it arrives; it applies a hop's outputs once, however often the hop is sent.
   */
  private sendHop(request: HopRequest, attachments: readonly Blob[], apply: ApplyHopOutputs): Promise<HopResponse> {
    const serialized = serializeHopRequest(request, attachments);
    const { options } = this;
    if (options.stream !== false) serialized.headers.Accept = STREAM_ACCEPT;
    return withRetries((attempt) => this.postOnce(request, serialized, attempt, apply), {
      delays: options.retryDelays ?? DEFAULT_RETRY_DELAYS,
      signal: this.stopSignal.signal,
      refreshableToken: typeof options.csrfToken === 'function',
      onRetry: (wait) => options.onRetry?.({ requestId: this.requestId, hop: request.hop, ...wait }),
    });
  }

  /**
   * One POST of a hop; a rejected fetch becomes a `network` TurnError, any other failure is readHopResponse's. The stop
   * signal aborts the fetch and the body read; {@link withRetries} then rejects with its reason, whatever was thrown.
   */
  private async postOnce(
    request: HopRequest,
    serialized: SerializedHopRequest,
    { tries, refreshToken }: SendTry,
    apply: ApplyHopOutputs,
  ): Promise<HopResponse> {
    const { signal } = this.stopSignal;
    const init: RequestInit = {
      method: 'POST',
      body: serialized.body,
      headers: {
        ...serialized.headers,
        ...this.traceHeaders(),
        ...(await this.csrfHeaders(request.hop, refreshToken)),
      },
      credentials: this.options.credentials ?? 'same-origin',
      signal,
    };
    // A stop while the token was fetched: this hop is never posted.
    signal.throwIfAborted();
    this.posted = true;
    let response: Response;
    try {
      response = await this.fetchImpl(this.options.endpoint, init);
    } catch (error) {
      const tried = tries > 1 ? `, tried ${tries} times` : '';
      // On another origin, a refused CORS answer looks like a server that is down: name the setting too.
      const serverOrigin = otherOrigin(this.options.endpoint);
      const hint = serverOrigin === undefined ? '' : `. ${originHint(serverOrigin)}`;
      throw new TurnError(
        'network',
        `The server could not be reached (hop ${request.hop}${tried}): ${errorMessage(error)}${hint}`,
        { hop: request.hop, cause: error, serverOrigin },
      );
    }
    // This try's text: a hop sent again after a lost response starts its text again.
    let text = '';
    const { onText } = this.options;
    return readHopResponse(response, request, {
      signal,
      onOutputs: (outputs) => apply(outputs, undefined),
      onText: (delta) => {
        text += delta;
        onText?.({ requestId: this.requestId, hop: request.hop, delta, text });
      },
    });
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
      throw new TurnError('token', `Could not get a CSRF token: ${errorMessage(error)}`, {
        hop,
        cause: error,
        serverOrigin: error instanceof OtherOriginUnreachable ? error.serverOrigin : undefined,
      });
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
      throw new TurnError('host', `The page's ${name} failed on hop ${hop}: ${errorMessage(error)}`, {
        hop,
        cause: error,
      });
    }
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

/** Applies one hop's outputs: from a streamed `outputs` line (`response` undefined), or from the response. */
type ApplyHopOutputs = (outputs: ToolOutput[], response: HopResponse | undefined) => Promise<void>;

/**
 * The outputs of one hop the host applied, so they are applied once (spec §6): a streamed hop's `outputs` line
 * comes before its response, and a hop sent again after a lost response gets them again (its replay).
 */
class HopOutputs {
  private applied: ToolOutput[] | undefined;
  /** The inverses of what the host applied of them, in undo order. */
  inverse: ToolOutput[] = [];

  constructor(private readonly hop: number) {}

  /** Whether this hop's outputs were applied. */
  get done(): boolean {
    return this.applied !== undefined;
  }

  record(outputs: ToolOutput[], inverse: ToolOutput[]): void {
    this.applied = outputs;
    this.inverse = inverse;
  }

  /** The same hop's outputs arrived again: they must be the ones applied, or the page no longer matches the turn. */
  check(outputs: readonly ToolOutput[]): void {
    if (sameJson(this.applied, outputs)) return;
    throw new TurnError(
      'invalid_response',
      `The server's answer to hop ${this.hop} changed the outputs it had sent, after the page applied them.`,
      { hop: this.hop },
    );
  }
}

/** Whether two JSON values are equal (key order aside); linear in their size. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

/** The kinds of wait a turn declares on hop 1 (spec §20.1): one per hook the host gave. */
function declaredWaits(options: Pick<TurnOptions, 'askPerson' | 'decidePlan' | 'getScreenshot' | 'approve'>): string[] {
  return [
    ...(options.askPerson ? ['question'] : []),
    ...(options.decidePlan ? ['plan'] : []),
    ...(options.getScreenshot ? ['screenshot'] : []),
    ...(options.approve ? ['approval'] : []),
  ];
}

/** `promise`, or the stop signal's reason as soon as it aborts (the person may never answer a stopped turn). */
function untilStopped<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stopped = () => reject(signal.reason);
    signal.addEventListener('abort', stopped, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stopped));
  });
}

/** The stop signal's reason: every await point of a stopped run unwinds with it. */
class StoppedSignal extends Error {}
