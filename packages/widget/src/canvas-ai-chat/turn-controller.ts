import type { ReactiveController, ReactiveControllerHost } from 'lit';
import {
  ChatSession,
  type ChatSessionOptions,
  type HistoryChange,
  type TurnEnd,
  type TurnSettings,
  type TurnView,
} from '../chat-session.js';
import { canvasAiEvent } from '../events.js';
import type { HopReport, TurnResult } from '../hop-loop.js';
import { pageOrigin } from '../other-origin.js';
import { changedPage } from '../turn-changes.js';
import type { TurnError } from '../turn-error.js';
import type { ChatStorage, SavedChat } from '../turn-storage.js';
import { historyNote, undoNote, type UndoResult } from '../undo.js';
import type { DeepChatInstance, Signals } from './deep-chat-types.js';
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

export type { TurnSettings } from '../chat-session.js';

/** What the controller asks its element for, handed in as callbacks (the `@lit/task` style). */
export interface TurnControllerOptions {
  /** The `<deep-chat>` element, once created. */
  chat: () => DeepChatInstance | undefined;
  /** The loop's settings for a new turn. */
  settings: () => TurnSettings;
  /** The main agent's id, when the agents config is known (the narration block's role until a response names one). */
  mainAgentId: () => string | undefined;
  /** Awaited when a message is sent, before its pick is taken (the element asks the server's agents again). */
  beforeTurn: () => Promise<void>;
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
  /** The host's hook that takes a turn back in its own history, if it has one. */
  undoInHistory: () => ChatSessionOptions['undoInHistory'];
}

/** How a turn's end is shown: through deep-chat's pending request (a typed message), or as new messages (a resume). */
type Respond = (content: Parameters<Signals['onResponse']>[0]) => Promise<void>;

/**
 * Renders a {@link ChatSession} in `<canvas-ai-chat>` (the Lit `ReactiveController` way to reach framework-free
 * work): deep-chat's `connect.handler` sends a message through the session; the controller shows the narration, ends
 * deep-chat's request with the answer or the error (`signals.onResponse` only then, so deep-chat's loader covers
 * send → first response), reads out what it shows, dispatches the DOM events, and stops the turn when the element
 * leaves the page. The conversation's state (one turn at a time, undo, revert, resume, what is kept) is the session's.
 */
export class TurnController implements ReactiveController {
  private readonly session: ChatSession;
  /** The narration blocks shown, which deep-chat holds as html updated in place: kept from their own state. */
  private readonly views: ProgressView[] = [];

  /** `host` gets the controller's updates and dispatches its events; `options` is all it asks of the host. */
  constructor(
    private readonly host: ReactiveControllerHost & EventTarget,
    private readonly options: TurnControllerOptions,
  ) {
    host.addController(this);
    this.session = new ChatSession({
      settings: options.settings,
      storage: options.storage,
      messages: () => {
        const chat = options.chat();
        if (!chat) return undefined;
        const blocks = new Map(this.views.flatMap((view) => (view.kept ? [[view.kept.index, view.kept.message]] : [])));
        return storableMessages(chat.getMessages(), (index) => blocks.get(index));
      },
      onChange: () => host.requestUpdate(),
      onTurnStart: ({ turn, agent, message, attachments, resumed }) =>
        host.dispatchEvent(
          canvasAiEvent('canvas-ai-turn-start', { requestId: turn.requestId, agent, message, attachments, resumed }),
        ),
      onTurnEnd: (result) => this.turnEnded(result),
      onUndo: (result) => this.showUndo(result),
      onResume: (requestId, outcome) => host.dispatchEvent(canvasAiEvent('canvas-ai-resume', { requestId, outcome })),
      undoInHistory: async (turn) => (await options.undoInHistory()?.(turn)) ?? false,
      onHistory: (change) => this.showHistory(change),
    });
  }

  /** Whether a turn is running. */
  get running(): boolean {
    return this.session.running !== undefined;
  }

  /** Whether a new message would be refused: a turn runs, or an undo is being applied. */
  get busy(): boolean {
    return this.session.busy;
  }

  /** Whether the last turn that changed the page can be undone by a host that applies `outputTypes`. */
  canUndo(outputTypes: readonly string[]): boolean {
    return this.session.canUndo(outputTypes);
  }

  /** Whether the element is in the page: a chat taken out before its kept turn was taken up leaves it alone. */
  private connected = false;
  /** The kept turn a restore showed, and its narration block. */
  private restored: { requestId: string; view: ProgressView } | undefined;

  hostConnected(): void {
    this.connected = true;
  }

  hostDisconnected(): void {
    this.connected = false;
    // A page that goes away keeps its running turn for the reload (spec §18); an element taken out of the page stops
    // it, and a restore it had not begun is left to the chat mounted in its place.
    this.session.close();
  }

  /** Stops the running turn, if any. */
  stop(): void {
    this.session.stop();
  }

  /** Stop and revert (spec §17.3): stops the running turn and undoes what it applied; undefined when none runs. */
  revert(): Promise<UndoResult | undefined> {
    return this.session.revert();
  }

  /** Undoes the last turn that changed the page (spec §17); undefined when there is none or a turn runs. */
  undo(): Promise<UndoResult | undefined> {
    return this.session.undo();
  }

  /** The host's history took turn `requestId` back (see {@link ChatSession.historyUndid}). */
  historyUndid(requestId: string): boolean {
    return this.session.historyUndid(requestId);
  }

  /** The host's history applied turn `requestId` again (see {@link ChatSession.historyRedid}). */
  historyRedid(requestId: string): boolean {
    return this.session.historyRedid(requestId);
  }

  /** deep-chat's `connect.handler`: one submitted message, one turn. */
  readonly handle = (body: unknown, signals: Signals): void => {
    // deep-chat blocks a second submit while a request runs; a programmatic one, or one during a resumed turn, must
    // not start a second turn.
    if (this.session.busy) {
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
    const chat = this.options.chat();
    if (!chat || !this.connected) return;
    const running = saved.running;
    if (!running) return this.session.restore(saved);
    // Taken up again after the element was moved: the block its first restore showed goes on.
    let view = this.restored?.requestId === running.requestId ? this.restored.view : undefined;
    if (!view) {
      view = this.progressView(chat, running.agent);
      view.show(running.progress, 'running', running.agent ?? this.options.mainAgentId() ?? 'ai');
      view.notify(running.notices);
      this.restored = { requestId: running.requestId, view };
    }
    const respond: Respond = async (content) => {
      for (const item of Array.isArray(content) ? content : [content]) chat.addMessage(item);
    };
    await this.session.restore(saved, this.turnView(view, respond), transcriptOf(chat.getMessages()));
  }

  private async run(body: unknown, signals: Signals): Promise<void> {
    const chat = this.options.chat();
    if (!chat) return;
    await this.options.beforeTurn();
    const agent = this.options.takePick();
    const view = this.progressView(chat, agent);
    await this.session.send(
      { messages: transcriptOf(chat.getMessages()), attachments: attachedFiles(body), agent },
      this.turnView(view, (content) => signals.onResponse(content)),
    );
  }

  /** One turn's narration block, in the picked agent's role until a response names the agent. */
  private progressView(chat: DeepChatInstance, agent: string | undefined): ProgressView {
    const view = new ProgressView(
      chat,
      agent ?? this.options.mainAgentId() ?? 'ai',
      this.options.strings(),
      this.options.announce,
    );
    this.views.push(view);
    return view;
  }

  /** How the session's turn shows in deep-chat: hops and streamed text in the block, its end through `respond`. */
  private turnView(view: ProgressView, respond: Respond): TurnView {
    return {
      onText: (report) => view.showLive(report.hop, report.text),
      onOutputsApplied: () => view.outputsApplied(),
      shown: () => view.state,
      onHop: (report) => this.hopShown(report, view),
      showEnd: (result, end) => this.show(result, end, view, respond),
    };
  }

  /** Shows a hop and tells the host. */
  private hopShown(report: HopReport, view: ProgressView): void {
    const { response } = report;
    view.show(response.progress, response.should_continue ? 'running' : 'done', response.agent.id, report.hop);
    view.notify(rejectionNotices(report.applyResults, response.outputs, this.options.strings()));
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

  /** Shows how a turn ended: the block's last state, and the answer, the stop's note or the error. */
  private async show(result: TurnResult, end: TurnEnd, view: ProgressView, respond: Respond): Promise<void> {
    const strings = this.options.strings();
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
        return;
      }
      case 'stopped': {
        // A resumed turn the server no longer has: the block says it could not be resumed.
        if (end.gone) view.notify([strings.resumeGone]);
        const notRun = view.announcedStep(result.lastResponse?.should_continue ?? false);
        view.finish('stopped', { always: true, lastStepNotRun: notRun !== undefined });
        await respond([]);
        // The next turn's transcript says the turn was stopped and what did not run (a revert's undo note says it).
        if (!end.reverted && !end.gone) {
          this.options.chat()?.addMessage(stopNote(changedPage(result.changes), notRun, strings));
          this.options.announce(strings.youStopped);
        }
        return;
      }
      case 'error': {
        // The narration so far stays; the server's error body may carry a fuller one.
        view.finish('failed', { progress: result.error.body?.progress });
        // Escaped html with its code: the text (the server's or an upstream's by default) is never markdown.
        const text = failureText(result.error, strings);
        await respond(errorBubble(text, result.error.code));
        this.options.announce(text);
        return;
      }
    }
  }

  /** After a turn's end was shown and kept: the failure handled, and the host told. */
  private turnEnded(result: TurnResult): void {
    const { requestId, hops, changes } = result;
    const last = result.status === 'done' ? result.response : result.lastResponse;
    const ended = { requestId, hops, outputs: changes.outputs, inverse: changes.inverse, usage: last?.usage?.turn };
    if (result.status === 'error') {
      this.options.onFailed(result.error);
      this.host.dispatchEvent(canvasAiEvent('canvas-ai-error', { requestId, error: result.error }));
    }
    this.host.dispatchEvent(
      canvasAiEvent('canvas-ai-turn-end', {
        ...ended,
        status: result.status,
        response: result.status === 'done' ? result.response : undefined,
        error: result.status === 'error' ? result.error : undefined,
      }),
    );
  }

  /** Notes in the chat that the host's history took the turn back or applied it again, and tells the model next time. */
  private showHistory({ change }: HistoryChange): void {
    const strings = this.options.strings();
    const summary = change === 'undone' ? `↶ ${strings.historyUndone}` : `↷ ${strings.historyRedone}`;
    this.options.chat()?.addMessage(noteMessage(summary, [], historyNote(change)));
    this.options.announce(change === 'undone' ? strings.historyUndone : strings.historyRedone);
  }

  /** Shows an undo in the chat, tells the model next time (spec §17.4), and tells the host. */
  private showUndo(result: UndoResult): void {
    const chat = this.options.chat();
    const { summary, notices } = undoNotices(result, this.options.strings());
    if (chat && result.status !== 'nothing') chat.addMessage(noteMessage(`↶ ${summary}`, notices, undoNote(result)));
    for (const text of [summary, ...notices]) this.options.announce(text);
    this.host.dispatchEvent(
      canvasAiEvent('canvas-ai-undo', {
        requestId: result.requestId,
        reason: result.reason,
        status: result.status,
        results: result.results,
        notUndone: result.notUndone.map((entry) => entry.output),
        via: result.via,
      }),
    );
  }
}

/**
 * What a failed turn shows: the host's `originNotAllowed` when the agent server is on another origin and sent no
 * answer the page may read, since the error alone ("Failed to fetch") would not say which setting allows the page;
 * otherwise its `turnError`.
 */
function failureText(error: TurnError, strings: ChatStrings): string {
  const page = pageOrigin();
  return error.serverOrigin !== undefined && page !== undefined
    ? strings.originNotAllowed(error.serverOrigin, page)
    : strings.turnError(error);
}

/**
 * The note a stop leaves in the chat: what the person reads, and in `custom` the `user` message the next turn's
 * transcript carries (the person's doing, as an undo's note, spec §17.4), so the model knows the turn did not finish.
 */
function stopNote(changed: boolean, notRun: string | undefined, strings: ChatStrings): ReturnType<typeof noteMessage> {
  const kept = changed ? ' What it had changed so far stays on the page.' : ' It had not changed the page.';
  const step = notRun === undefined ? '' : ` The step it announced last did not run: “${notRun}”`;
  return noteMessage(`■ ${strings.youStopped}`, [], `(I stopped your last turn before it finished.${kept}${step})`);
}
