import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { canvasAiEvent } from '../events.js';
import { startTurn, type HopReport, type Turn, type TurnOptions, type TurnResult } from '../hop-loop.js';
import { resumeTurn } from '../resume.js';
import { canUndo, changedPage, noChanges, type TurnChanges } from '../turn-changes.js';
import type { TurnError } from '../turn-error.js';
import type { ChatStorage, SavedChat, SavedTurn } from '../turn-storage.js';
import { undoNote, undoTurn, type UndoResult } from '../undo.js';
import type { DeepChatInstance, Signals } from './deep-chat-types.js';
import { noteHtml } from './narration.js';
import { rejectionNotices, undoNotices } from './notices.js';
import { ProgressView } from './progress-view.js';
import type { ChatStrings } from './strings.js';
import {
  answerMessage,
  attachedFiles,
  errorBubble,
  noteMessage,
  storableMessages,
  transcriptOf,
} from './transcript.js';

/** The loop's settings the element decides for each new turn (endpoint, host functions, token, limits). */
export type TurnSettings = Omit<TurnOptions, 'messages' | 'attachments' | 'agent' | 'onHop' | 'onText'>;

/** What the controller asks its element for, handed in as callbacks (the `@lit/task` style). */
export interface TurnControllerOptions {
  /** The `<deep-chat>` element, once created. */
  chat: () => DeepChatInstance | undefined;
  /** The loop's settings for a new turn. */
  settings: () => TurnSettings;
  /** The main agent's id, when the agents config is known (the narration block's role until a response names one). */
  mainAgentId: () => string | undefined;
  /** The agent picked for this message, resetting the pick (a pick applies to one message). */
  takePick: () => string | undefined;
  /** Told when a turn failed, so the element can react (e.g. drop a rejected CSRF token). */
  onFailed: (error: TurnError) => void;
  /** Where the chat keeps its conversation and running turn across a reload (spec §18); undefined: nowhere. */
  storage: () => ChatStorage | undefined;
  /** The texts the chat shows. */
  strings: () => ChatStrings;
  /** Reads a text out through the chat's live region (narration, answers, errors, notes). */
  announce: (text: string) => void;
}

/** How a turn's end is shown: through deep-chat's pending request (a typed message), or as new messages (a resume). */
type Respond = (content: Parameters<Signals['onResponse']>[0]) => Promise<void>;

/** The turn that changed the page last, until it is undone or another turn starts. */
interface Undoable {
  changes: TurnChanges;
  message: string;
}

/**
 * Connects the hop loop to `<canvas-ai-chat>` (the Lit `ReactiveController` way to reach framework-free async
 * work): deep-chat's `connect.handler` starts a turn here; the controller shows the narration, ends deep-chat's
 * request with the answer or the error (`signals.onResponse` only then, so deep-chat's loader covers send → first
 * response), dispatches the DOM events, and stops the turn when the element leaves the page. It also keeps the last
 * turn that changed the page to undo it (spec §17), and keeps what a reload needs to resume a running turn (spec §18).
 */
export class TurnController implements ReactiveController {
  private turn: Turn | undefined;
  private undoable: Undoable | undefined;
  /** An undo or a revert is being applied: no other may start. */
  private undoing = false;
  /** The request id of a turn whose stop is a revert: its end does not make it undoable. */
  private reverting: string | undefined;
  /** Told when a turn's end has been shown and announced (`canvas-ai-turn-end`), by request id. */
  private readonly endWaiters = new Map<string, (result: TurnResult) => void>();

  /** `host` gets the controller's updates and dispatches its events; `options` is all it asks of the host. */
  constructor(
    private readonly host: ReactiveControllerHost & EventTarget,
    private readonly options: TurnControllerOptions,
  ) {
    host.addController(this);
  }

  /** Whether a turn is running. */
  get running(): boolean {
    return this.turn !== undefined;
  }

  /** Whether a new message would be refused: a turn runs, or an undo is being applied. */
  get busy(): boolean {
    return this.turn !== undefined || this.undoing;
  }

  /** Whether the last turn that changed the page can be undone by a host that applies `outputTypes`. */
  canUndo(outputTypes: readonly string[]): boolean {
    return !this.turn && !this.undoing && canUndo(this.undoable?.changes, outputTypes);
  }

  hostDisconnected(): void {
    // A page that goes away keeps its running turn for the reload (spec §18); an element taken out of the page stops it.
    this.turn?.stop();
  }

  /** Stops the running turn, if any. */
  stop(): void {
    this.turn?.stop();
  }

  /** Stop and revert (spec §17.3): stops the running turn and undoes what it applied; undefined when none runs. */
  async revert(): Promise<UndoResult | undefined> {
    const turn = this.turn;
    if (!turn || this.undoing) return undefined;
    this.reverting = turn.requestId;
    this.undoing = true;
    this.host.requestUpdate();
    try {
      // The turn ends first, `canvas-ai-turn-end` included, so a host that records the turn as an undo step has it
      // before the revert takes it back.
      const ended = new Promise<TurnResult>((resolve) => this.endWaiters.set(turn.requestId, resolve));
      turn.stop();
      const { changes } = await ended;
      const result = await undoTurn(changes, this.applyOutputs(), 'revert');
      this.reportUndo(result);
      return result;
    } finally {
      this.undoing = false;
      this.host.requestUpdate();
    }
  }

  /** Undoes the last turn that changed the page (spec §17); undefined when there is none or a turn runs. */
  async undo(): Promise<UndoResult | undefined> {
    const undoable = this.undoable;
    if (!undoable || this.turn || this.undoing) return undefined;
    this.undoing = true;
    this.host.requestUpdate();
    try {
      const result = await undoTurn(undoable.changes, this.applyOutputs(), 'undo');
      this.undoable = undefined;
      this.reportUndo(result);
      return result;
    } finally {
      this.undoing = false;
      this.host.requestUpdate();
    }
  }

  /** deep-chat's `connect.handler`: one submitted message, one turn. */
  readonly handle = (body: unknown, signals: Signals): void => {
    // deep-chat blocks a second submit while a request runs; a programmatic one, or one during a resumed turn, must
    // not start a second turn.
    if (this.turn || this.undoing) {
      void signals.onResponse(errorBubble(this.options.strings().busy));
      return;
    }
    void this.run(body, signals);
  };

  /**
   * Takes up what the chat kept before the page reloaded: the turn to undo, and the running turn, which it resumes
   * (spec §18). Called once deep-chat shows the kept messages.
   */
  async restore(saved: SavedChat): Promise<void> {
    if (saved.undoable) this.undoable = saved.undoable;
    this.host.requestUpdate();
    if (saved.running) await this.resume(saved.running);
  }

  private async run(body: unknown, signals: Signals): Promise<void> {
    const chat = this.options.chat();
    if (!chat) return;
    const messages = transcriptOf(chat.getMessages());
    const attachments = attachedFiles(body);
    const agent = this.options.takePick();
    const message = messages.at(-1)?.text ?? '';
    const view = new ProgressView(
      chat,
      agent ?? this.options.mainAgentId() ?? 'ai',
      this.options.strings(),
      this.options.announce,
    );
    const settings = this.options.settings();
    const turn = startTurn({
      ...settings,
      ...this.viewHooks(settings, view),
      messages,
      attachments,
      agent,
      onHop: (report) => this.hopDone(report, view, message, agent),
    });
    // A new turn takes the place of the one to undo: Undo always means the latest turn.
    this.undoable = undefined;
    this.keep((saved) => ({
      ...saved,
      conversationId: settings.conversationId,
      messages: storableMessages(chat.getMessages()),
      running: savedTurn(turn.requestId, agent, message, 0, undefined, noChanges(turn.requestId), view),
      undoable: undefined,
    }));
    this.begin(turn, agent, message, attachments.length, false);
    await this.drive(turn, view, message, (content) => signals.onResponse(content));
  }

  /** Resumes a kept turn: the server says where it stands, and the chat goes on, shows the answer, or closes it. */
  private async resume(saved: SavedTurn): Promise<void> {
    const chat = this.options.chat();
    if (!chat) return;
    const view = new ProgressView(
      chat,
      saved.agent ?? this.options.mainAgentId() ?? 'ai',
      this.options.strings(),
      this.options.announce,
    );
    view.show(saved.progress, 'running', saved.agent ?? this.options.mainAgentId() ?? 'ai');
    view.notify(saved.notices);
    const respond: Respond = async (content) => {
      for (const item of Array.isArray(content) ? content : [content]) chat.addMessage(item);
    };
    const settings = this.options.settings();
    const outcome = await resumeTurn(
      {
        requestId: saved.requestId,
        agent: saved.agent,
        hop: saved.hop,
        applyResults: saved.applyResults,
        changes: saved.changes,
      },
      {
        ...settings,
        ...this.viewHooks(settings, view),
        messages: transcriptOf(chat.getMessages()),
        onHop: (report) => this.hopDone(report, view, saved.message, saved.agent),
      },
    );
    this.host.dispatchEvent(canvasAiEvent('canvas-ai-resume', { requestId: saved.requestId, outcome: outcome.kind }));
    if (outcome.kind === 'resumed') {
      this.begin(outcome.turn, saved.agent, saved.message, 0, true);
      await this.drive(outcome.turn, view, saved.message, respond);
      return;
    }
    if (outcome.kind === 'finished') {
      await this.end(
        {
          status: 'done',
          requestId: saved.requestId,
          hops: outcome.response.hop,
          response: outcome.response,
          changes: saved.changes,
        },
        view,
        saved.message,
        respond,
      );
      return;
    }
    // Gone: the server no longer has it. Closed with a notice, nothing sent; what it changed can still be undone.
    view.notify([this.options.strings().resumeGone]);
    await this.end(
      {
        status: 'stopped',
        requestId: saved.requestId,
        hops: saved.hop,
        lastResponse: undefined,
        changes: saved.changes,
      },
      view,
      saved.message,
      respond,
      { gone: true },
    );
  }

  /**
   * What a streamed hop shows before its response (spec §6): its text, live in the narration block, and that its
   * outputs were applied (the step the narration announced has run).
   */
  private viewHooks(settings: TurnSettings, view: ProgressView): Pick<TurnOptions, 'onText' | 'applyOutputs'> {
    const apply = settings.applyOutputs;
    return {
      onText: (report) => view.showLive(report.hop, report.text),
      applyOutputs: (outputs, response, info) => {
        if (response === undefined && info.kind === 'hop') view.outputsApplied();
        return apply?.(outputs, response, info);
      },
    };
  }

  /** Shows a hop, keeps it for a reload, and tells the host. */
  private hopDone(report: HopReport, view: ProgressView, message: string, agent: string | undefined): void {
    const { response } = report;
    view.show(response.progress, response.should_continue ? 'running' : 'done', response.agent.id, report.hop);
    view.notify(rejectionNotices(report.applyResults, response.outputs, this.options.strings()));
    if (response.should_continue) {
      this.keep((saved) => ({
        ...saved,
        running: savedTurn(report.requestId, agent, message, report.hop, report.applyResults, report.changes, view),
      }));
    }
    this.host.dispatchEvent(
      canvasAiEvent('canvas-ai-hop', {
        requestId: report.requestId,
        hop: report.hop,
        response,
        applyResults: report.applyResults,
        inverse: report.inverse,
        usage: response.usage,
      }),
    );
  }

  private begin(turn: Turn, agent: string | undefined, message: string, attachments: number, resumed: boolean): void {
    this.turn = turn;
    this.host.requestUpdate();
    this.host.dispatchEvent(
      canvasAiEvent('canvas-ai-turn-start', { requestId: turn.requestId, agent, message, attachments, resumed }),
    );
  }

  private async drive(turn: Turn, view: ProgressView, message: string, respond: Respond): Promise<void> {
    const result = await turn.result;
    this.turn = undefined;
    this.host.requestUpdate();
    await this.end(result, view, message, respond);
  }

  private async end(
    result: TurnResult,
    view: ProgressView,
    message: string,
    respond: Respond,
    how: { gone?: boolean } = {},
  ): Promise<void> {
    try {
      await this.show(result, view, message, respond, how.gone ?? false);
    } finally {
      this.endWaiters.get(result.requestId)?.(result);
      this.endWaiters.delete(result.requestId);
    }
  }

  private async show(
    result: TurnResult,
    view: ProgressView,
    message: string,
    respond: Respond,
    gone: boolean,
  ): Promise<void> {
    const { requestId, hops, changes } = result;
    const reverted = this.reverting === requestId;
    if (reverted) this.reverting = undefined;
    if (!reverted && changedPage(changes)) this.undoable = { changes, message };
    this.host.requestUpdate();
    const last = result.status === 'done' ? result.response : result.lastResponse;
    const ended = { requestId, hops, outputs: changes.outputs, inverse: changes.inverse, usage: last?.usage?.turn };
    switch (result.status) {
      case 'done': {
        view.finish('done');
        const { message: answer, agent } = result.response;
        // An empty answer would be an error bubble in deep-chat; the narration block already said it all. The answer is
        // model text: escaped html, never deep-chat's markdown (which makes javascript: links and loads images).
        await respond(answer.trim().length > 0 ? answerMessage(answer, agent.id) : []);
        // A streamed answer was read out as it came, a sentence at a time: only the rest is read now.
        const unread = view.unannounced(answer);
        if (unread.length > 0) this.options.announce(unread);
        this.saveEnded();
        this.host.dispatchEvent(
          canvasAiEvent('canvas-ai-turn-end', {
            ...ended,
            status: 'done',
            response: result.response,
            error: undefined,
          }),
        );
        return;
      }
      case 'stopped': {
        const notRun = view.announcedStep(result.lastResponse?.should_continue ?? false);
        view.finish('stopped', { always: true, lastStepNotRun: notRun !== undefined });
        await respond([]);
        // The next turn's transcript says the turn was stopped and what did not run (a revert's undo note says it).
        if (!reverted && !gone) {
          this.options.chat()?.addMessage(stopNote(changedPage(changes), notRun, this.options.strings()));
          this.options.announce(this.options.strings().youStopped);
        }
        this.saveEnded();
        this.host.dispatchEvent(
          canvasAiEvent('canvas-ai-turn-end', { ...ended, status: 'stopped', response: undefined, error: undefined }),
        );
        return;
      }
      case 'error': {
        // The narration so far stays; the server's error body may carry a fuller one.
        view.finish('failed', { progress: result.error.body?.progress });
        // Escaped html with its code: the text (the server's or an upstream's by default) is never markdown.
        const text = this.options.strings().turnError(result.error);
        await respond(errorBubble(text, result.error.code));
        this.options.announce(text);
        this.saveEnded();
        this.options.onFailed(result.error);
        this.host.dispatchEvent(canvasAiEvent('canvas-ai-error', { requestId, error: result.error }));
        this.host.dispatchEvent(
          canvasAiEvent('canvas-ai-turn-end', { ...ended, status: 'error', response: undefined, error: result.error }),
        );
        return;
      }
    }
  }

  /** Shows an undo in the chat, tells the model next time (spec §17.4), keeps it for a reload, tells the host. */
  private reportUndo(result: UndoResult): void {
    const chat = this.options.chat();
    const { summary, notices } = undoNotices(result, this.options.strings());
    if (chat && result.status !== 'nothing')
      chat.addMessage(noteMessage(noteHtml(`↶ ${summary}`, notices), undoNote(result)));
    for (const text of [summary, ...notices]) this.options.announce(text);
    this.saveEnded();
    this.host.dispatchEvent(
      canvasAiEvent('canvas-ai-undo', {
        requestId: result.requestId,
        reason: result.reason,
        status: result.status,
        results: result.results,
        notUndone: result.notUndone.map((entry) => entry.output),
      }),
    );
  }

  /** The host's `applyOutputs`, for an undo. */
  private applyOutputs(): NonNullable<TurnOptions['applyOutputs']> {
    const apply = this.options.settings().applyOutputs;
    return (outputs, response, info) => apply?.(outputs, response, info);
  }

  /** After a turn or an undo: the messages as shown, no running turn, the turn to undo if any. */
  private saveEnded(): void {
    const chat = this.options.chat();
    this.keep((saved) => ({
      ...saved,
      messages: chat ? storableMessages(chat.getMessages()) : saved.messages,
      running: undefined,
      undoable: this.undoable,
    }));
  }

  private keep(change: (saved: SavedChat) => SavedChat): void {
    this.options.storage()?.update(change);
  }
}

/**
 * The note a stop leaves in the chat: what the person reads, and in `custom` the `user` message the next turn's
 * transcript carries (the person's doing, as an undo's note, spec §17.4), so the model knows the turn did not finish.
 */
function stopNote(changed: boolean, notRun: string | undefined, strings: ChatStrings): ReturnType<typeof noteMessage> {
  const kept = changed ? ' What it had changed so far stays on the page.' : ' It had not changed the page.';
  const step = notRun === undefined ? '' : ` The step it announced last did not run: “${notRun}”`;
  return noteMessage(
    noteHtml(`■ ${strings.youStopped}`, []),
    `(I stopped your last turn before it finished.${kept}${step})`,
  );
}

/** A running turn as kept for a reload. */
function savedTurn(
  requestId: string,
  agent: string | undefined,
  message: string,
  hop: number,
  applyResults: SavedTurn['applyResults'],
  changes: TurnChanges,
  view: ProgressView,
): SavedTurn {
  return {
    requestId,
    ...(agent === undefined ? {} : { agent }),
    message,
    hop,
    ...(applyResults === undefined ? {} : { applyResults }),
    changes,
    ...view.state,
  };
}
