/**
 * The conversation's state, framework-free (the AI SDK's `AbstractChat` split): one turn at a time, the last turn
 * that changed the page and its undo (spec §17), Stop and revert, resume after a reload (spec §18) and what a chat
 * keeps for it in `ChatStorage`. No lit, no deep-chat, no DOM: `<canvas-ai-chat>` renders a session, and a React or
 * Vue host drives one with its own UI (`@canvas-ai/widget/loop`).
 */
import type { ChatMessage } from '@canvas-ai/protocol';
import {
  startTurn,
  type HopReport,
  type TextReport,
  type Turn,
  type TurnOptions,
  type TurnResult,
} from './hop-loop.js';
import { type ResumeOutcome, takeUpTurn, turnStanding } from './resume.js';
import { canUndo, changedPage, noChanges, type TurnChanges } from './turn-changes.js';
import { whileHoldingTurn } from './turn-lock.js';
import type { ChatStorage, SavedChat, SavedTurn } from './turn-storage.js';
import { type UndoReason, type UndoResult, undoneInHistory, undoRecording, undoTurn } from './undo.js';

/** The loop's settings the host decides for each new turn (endpoint, host functions, token, limits). */
export type TurnSettings = Omit<
  TurnOptions,
  'messages' | 'attachments' | 'agent' | 'onHop' | 'onText' | 'requestId' | 'resume' | 'undo'
>;

/** What one message sends. */
export interface SendInput {
  /** The transcript, the person's new message last (sent on hop 1). */
  messages: readonly ChatMessage[];
  /** Files attached to the message: hop 1 then goes as multipart. */
  attachments?: readonly Blob[] | undefined;
  /** The agent picked for this message; absent → the server's main agent. */
  agent?: string | undefined;
}

/** How a turn ended, beyond its {@link TurnResult}: what the person's message was, and why it ended so. */
export interface TurnEnd {
  /** The person's message that started the turn. */
  message: string;
  /** The turn was stopped by a revert: its end does not make it undoable, and the revert's undo follows. */
  reverted: boolean;
  /** A resumed turn the server no longer had (spec §18): closed as stopped, nothing sent. */
  gone: boolean;
}

/** A turn that begins: a new message, or a turn resumed after a reload. */
export interface TurnStart {
  turn: Turn;
  agent: string | undefined;
  message: string;
  attachments: number;
  resumed: boolean;
}

/** How one turn is shown. Every callback is optional: a session runs turns whatever is shown of them. */
export interface TurnView {
  /** A hop's response arrived and its outputs were applied. */
  onHop?: ((report: HopReport) => void) | undefined;
  /** A piece of a streamed hop's model text (spec §6). */
  onText?: ((report: TextReport) => void) | undefined;
  /** A streamed hop's outputs were applied before its response: the step the narration announced has run. */
  onOutputsApplied?: ((hop: number) => void) | undefined;
  /** What the view shows of the running turn, kept with it so a reloaded page shows it again. */
  shown?: (() => { progress: string; notices: string[] }) | undefined;
  /**
   * Shows the turn's end (awaited). The chat is kept after it, so what it adds to the conversation is kept too;
   * then {@link ChatSessionOptions.onTurnEnd} is told.
   */
  showEnd?: ((result: TurnResult, end: TurnEnd) => void | Promise<void>) | undefined;
}

/** A turn the chat asks the host's own history to take back (see {@link ChatSessionOptions.undoInHistory}). */
export interface HistoryUndo {
  requestId: string;
  /** `undo`: the chat's Undo; `revert`: Stop and revert, after the turn's end was told (`onTurnEnd`). */
  reason: UndoReason;
  /** What the turn applied, and its inverse outputs. */
  changes: TurnChanges;
}

/** The host's own history moved across the chat's last turn: took it back (`undone`) or applied it again (`redone`). */
export interface HistoryChange {
  requestId: string;
  change: 'undone' | 'redone';
}

/** Options of a {@link ChatSession}: everything it asks of its host, as callbacks. */
export interface ChatSessionOptions {
  /** The loop's settings for a new turn, read when it starts (and for an undo, its `applyOutputs`). */
  settings: () => TurnSettings;
  /** Where the chat keeps its conversation and running turn across a reload (spec §18); undefined: nowhere. */
  storage?: (() => ChatStorage | undefined) | undefined;
  /** The conversation as shown, as kept for a reload; undefined (or returning it) keeps what was kept. */
  messages?: (() => SavedChat['messages'] | undefined) | undefined;
  /** Told whenever `busy`, `running` or what {@link ChatSession.canUndo} says may have changed. */
  onChange?: (() => void) | undefined;
  /** A turn begins. */
  onTurnStart?: ((start: TurnStart) => void) | undefined;
  /** A turn ended and its end was shown and kept; a revert of it goes on only after this. */
  onTurnEnd?: ((result: TurnResult, end: TurnEnd) => void) | undefined;
  /** An undo (or a revert's undo) was applied: show it; the chat is kept after it. */
  onUndo?: ((result: UndoResult) => void) | undefined;
  /** A kept turn was taken up after a reload: how (before the resumed turn runs, or its end is shown). */
  onResume?: ((requestId: string, outcome: ResumeOutcome['kind']) => void) | undefined;
  /**
   * A host whose own history holds each turn as one entry (a snapshot store: Puck, Redux-undo, Zustand's temporal
   * store) takes the turn back itself for the chat's Undo and Stop and revert: it restores the entry and returns true,
   * and the chat applies nothing. It returns false when it cannot (the person changed the page since, so the turn's
   * entry is not the latest): the chat then applies the turn's inverse outputs through `applyOutputs`, which keeps
   * what the person changed (spec §17.2). Absent: always the inverse outputs.
   */
  undoInHistory?: ((turn: HistoryUndo) => boolean | Promise<boolean>) | undefined;
  /** The host said its history took the last turn back or applied it again ({@link ChatSession.historyUndid}). */
  onHistory?: ((change: HistoryChange) => void) | undefined;
}

/**
 * The turn that changed the page last, until another turn starts. `undone`: taken back (by the chat, or by the host's
 * history): not offered for Undo, unless the host's history applies it again.
 */
interface Undoable {
  changes: TurnChanges;
  message: string;
  undone: boolean;
}

/**
 * One chat's conversation. {@link send} starts a turn unless one runs (spec §8.3); {@link undo} takes back the last
 * turn that changed the page; {@link revert} stops the running turn and undoes it once its end was shown;
 * {@link restore} takes up what a reloaded page kept. What a reload needs is kept in `storage` as it changes.
 */
export class ChatSession {
  private turn: Turn | undefined;
  private undoable: Undoable | undefined;
  /** An undo or a revert is being applied: no other may start, nor a turn. */
  private undoing = false;
  /** The request id of a turn whose stop is a revert: its end does not make it undoable. */
  private reverting: string | undefined;
  /** Told when a turn's end has been shown, kept and told (`onTurnEnd`), by request id. */
  private readonly endWaiters = new Map<string, (result: TurnResult) => void>();
  /** The restore under way, aborted by {@link close}: one that has not taken its turn up yet never does. */
  private restoring: AbortController | undefined;

  constructor(private readonly options: ChatSessionOptions) {}

  /** The running turn, if any. */
  get running(): Turn | undefined {
    return this.turn;
  }

  /**
   * Whether a new message would be refused: a turn runs, an undo is being applied, or a kept turn is being taken up
   * (while another chat or tab drives it, this one waits for it: a turn sent meanwhile would be a second one).
   */
  get busy(): boolean {
    return this.turn !== undefined || this.undoing || this.restoring !== undefined;
  }

  /** Whether the last turn that changed the page can be undone by a host that applies `outputTypes`. */
  canUndo(outputTypes: readonly string[]): boolean {
    return !this.busy && this.undoable?.undone === false && canUndo(this.undoable.changes, outputTypes);
  }

  /**
   * The host's own history took turn `requestId` back (its Undo, Ctrl+Z): the chat no longer offers Undo for it, and
   * tells `onHistory` (the element notes it, and the next turn's transcript tells the model). True when it was the
   * chat's last turn that changed the page and not already taken back; false (nothing done) otherwise, and while an
   * undo of the chat's own is being applied (it says so itself).
   */
  historyUndid(requestId: string): boolean {
    return this.historyMoved(requestId, 'undone');
  }

  /**
   * The host's own history applied turn `requestId` again (its Redo) after it, or the chat, took it back: Undo is
   * offered for it again, and `onHistory` is told. True when it was the chat's last turn and had been taken back.
   */
  historyRedid(requestId: string): boolean {
    return this.historyMoved(requestId, 'redone');
  }

  private historyMoved(requestId: string, change: HistoryChange['change']): boolean {
    const undoable = this.undoable;
    if (this.undoing || !undoable || undoable.changes.requestId !== requestId) return false;
    if (undoable.undone === (change === 'undone')) return false;
    undoable.undone = change === 'undone';
    // Shown first, then kept: the note it adds is part of the conversation a reload shows again.
    this.options.onHistory?.({ requestId, change });
    this.keepEnded();
    this.changed();
    return true;
  }

  /**
   * Sends a message: starts its turn and resolves with its result once its end was shown and kept. Undefined, and
   * nothing sent, while {@link busy}: one turn at a time.
   */
  send(input: SendInput, view: TurnView = {}): Promise<TurnResult> | undefined {
    if (this.busy) return undefined;
    const message = input.messages.at(-1)?.text ?? '';
    const { agent } = input;
    const settings = this.options.settings();
    const turn = startTurn({
      ...settings,
      ...viewHooks(settings, view),
      messages: input.messages,
      attachments: input.attachments,
      agent,
      // The session offers Undo and Stop and revert: every hop's inverses are recorded.
      undo: undoRecording,
      onHop: (report) => this.hopDone(report, view, message, agent),
    });
    // A new turn takes the place of the one to undo: Undo always means the latest turn.
    this.undoable = undefined;
    this.keep((saved) => ({
      ...saved,
      conversationId: settings.conversationId,
      messages: this.options.messages?.() ?? saved.messages,
      running: savedTurn(
        { requestId: turn.requestId, agent, message, hop: 0, changes: noChanges(turn.requestId) },
        view,
      ),
      undoable: undefined,
    }));
    this.begin({ turn, agent, message, attachments: input.attachments?.length ?? 0, resumed: false });
    return this.drive(turn, view, message);
  }

  /** Stops the running turn, if any (what it applied stays). */
  stop(): void {
    this.turn?.stop();
  }

  /**
   * The chat goes away (an element taken out of the page): the running turn stops, and a restore that has not taken
   * up its turn yet never does, so a chat mounted again in its place is the one that resumes it.
   */
  close(): void {
    this.restoring?.abort();
    this.restoring = undefined;
    this.stop();
    this.changed();
  }

  /** Undoes the last turn that changed the page (spec §17); undefined when there is none, or a turn runs. */
  async undo(): Promise<UndoResult | undefined> {
    const undoable = this.undoable;
    if (!undoable || undoable.undone || this.busy) return undefined;
    this.undoing = true;
    this.changed();
    try {
      const result = await this.takeBack(undoable.changes, 'undo');
      undoable.undone = true;
      this.undone(result);
      return result;
    } finally {
      this.undoing = false;
      this.changed();
    }
  }

  /**
   * Stop and revert (spec §17.3): stops the running turn and undoes what it applied; undefined when none runs. The
   * turn's end is shown and told first (`onTurnEnd`), so a host that records the turn as one undo step has it before
   * the revert takes it back.
   */
  async revert(): Promise<UndoResult | undefined> {
    const turn = this.turn;
    if (!turn || this.undoing) return undefined;
    this.reverting = turn.requestId;
    this.undoing = true;
    this.changed();
    try {
      const ended = new Promise<TurnResult>((resolve) => this.endWaiters.set(turn.requestId, resolve));
      turn.stop();
      const { changes } = await ended;
      const result = await this.takeBack(changes, 'revert');
      this.undone(result);
      return result;
    } finally {
      this.undoing = false;
      this.changed();
    }
  }

  /**
   * Takes up what the chat kept before the page reloaded (spec §18): the turn to undo, and the running turn, which it
   * resumes with `view`: the server says where it stands, and the turn goes on, shows the answer it missed, or is
   * closed. `messages` is the transcript as the chat shows it again: sent only when the kept turn's hop 1 is sent again.
   * Resolves once that turn ended. One restoring chat drives a kept turn (`whileHoldingTurn`): while another chat or
   * tab restores the same one, this one waits, then takes it up where that one left it; a session closed meanwhile
   * does nothing.
   */
  async restore(saved: SavedChat, view: TurnView = {}, messages: readonly ChatMessage[] = []): Promise<void> {
    if (saved.undoable) this.undoable = { ...saved.undoable, undone: false };
    this.changed();
    const running = saved.running;
    if (!running) return;
    // The latest restore is the one that counts: an earlier one still under way is left, as by close().
    this.restoring?.abort();
    const restoring = new AbortController();
    this.restoring = restoring;
    this.changed();
    const { signal } = restoring;
    try {
      await whileHoldingTurn(running.requestId, () => this.resume(running, view, messages, signal), signal);
    } finally {
      if (this.restoring === restoring) {
        this.restoring = undefined;
        this.changed();
      }
    }
  }

  private async resume(
    saved: SavedTurn,
    view: TurnView,
    messages: readonly ChatMessage[],
    closed: AbortSignal,
  ): Promise<void> {
    if (closed.aborted) return;
    const settings = this.options.settings();
    const { requestId, agent, message, hop, applyResults, changes } = saved;
    const options = {
      ...settings,
      ...viewHooks(settings, view),
      messages,
      undo: undoRecording,
      onHop: (report: HopReport) => this.hopDone(report, view, message, agent),
    };
    const standing = await turnStanding(requestId, options);
    // Closed while it asked: nothing sent, nothing kept changed; the chat mounted in its place takes the turn up.
    if (closed.aborted) return;
    const outcome = takeUpTurn({ requestId, agent, hop, applyResults, changes }, standing, options);
    this.options.onResume?.(requestId, outcome.kind);
    if (outcome.kind === 'resumed') {
      this.begin({ turn: outcome.turn, agent, message, attachments: 0, resumed: true });
      await this.drive(outcome.turn, view, message);
      return;
    }
    const result: TurnResult =
      outcome.kind === 'finished'
        ? { status: 'done', requestId, hops: outcome.response.hop, response: outcome.response, changes }
        : // Gone: the server no longer has it. Closed, nothing sent; what it changed can still be undone.
          { status: 'stopped', requestId, hops: hop, lastResponse: undefined, changes };
    await this.end(result, view, { message, reverted: false, gone: outcome.kind === 'gone' });
  }

  /** Shows a hop, then keeps the running turn for a reload. */
  private hopDone(report: HopReport, view: TurnView, message: string, agent: string | undefined): void {
    view.onHop?.(report);
    if (!report.response.should_continue) return;
    const { requestId, hop, applyResults, changes } = report;
    this.keep((saved) => ({
      ...saved,
      running: savedTurn({ requestId, agent, message, hop, applyResults, changes }, view),
    }));
  }

  private begin(start: TurnStart): void {
    this.turn = start.turn;
    this.changed();
    this.options.onTurnStart?.(start);
  }

  private async drive(turn: Turn, view: TurnView, message: string): Promise<TurnResult> {
    const result = await turn.result;
    this.turn = undefined;
    this.changed();
    const reverted = this.reverting === result.requestId;
    if (reverted) this.reverting = undefined;
    await this.end(result, view, { message, reverted, gone: false });
    return result;
  }

  /** A turn's end, in one order whatever it was: undoable, shown, kept, told, and then a revert may go on. */
  private async end(result: TurnResult, view: TurnView, end: TurnEnd): Promise<void> {
    try {
      // A reverted turn is taken back at once: it is kept as undone, so the host's history may still apply it again.
      if (changedPage(result.changes))
        this.undoable = { changes: result.changes, message: end.message, undone: end.reverted };
      this.changed();
      await view.showEnd?.(result, end);
      this.keepEnded();
      this.options.onTurnEnd?.(result, end);
    } finally {
      this.endWaiters.get(result.requestId)?.(result);
      this.endWaiters.delete(result.requestId);
    }
  }

  /** An undo was applied: shown, then kept (the turn it took back is no longer kept as undoable). */
  private undone(result: UndoResult): void {
    this.options.onUndo?.(result);
    this.keepEnded();
  }

  /**
   * Takes a turn back: through the host's history when it has `undoInHistory` and says it did, otherwise by applying
   * the turn's inverse outputs through `applyOutputs` (reading the page after it, to name what stayed).
   */
  private async takeBack(changes: TurnChanges, reason: UndoReason): Promise<UndoResult> {
    const inHistory = await this.options.undoInHistory?.({ requestId: changes.requestId, reason, changes });
    if (inHistory === true) return undoneInHistory(changes, reason);
    const { getLayout } = this.options.settings();
    return undoTurn(changes, this.applyOutputs(), reason, { getLayout });
  }

  /** The host's `applyOutputs`, for an undo. */
  private applyOutputs(): NonNullable<TurnOptions['applyOutputs']> {
    const apply = this.options.settings().applyOutputs;
    return (outputs, response, info) => apply?.(outputs, response, info);
  }

  /** After a turn or an undo: the conversation as shown, no running turn, the turn to undo if any. */
  private keepEnded(): void {
    this.keep((saved) => ({
      ...saved,
      messages: this.options.messages?.() ?? saved.messages,
      running: undefined,
      undoable:
        this.undoable && !this.undoable.undone
          ? { changes: this.undoable.changes, message: this.undoable.message }
          : undefined,
    }));
  }

  private keep(change: (saved: SavedChat) => SavedChat): void {
    this.options.storage?.()?.update(change);
  }

  private changed(): void {
    this.options.onChange?.();
  }
}

/**
 * What a streamed hop shows before its response (spec §6), wrapped around the host's settings: its text as it comes,
 * and that its outputs were applied (the step the narration announced has run).
 */
function viewHooks(settings: TurnSettings, view: TurnView): Pick<TurnOptions, 'onText' | 'applyOutputs'> {
  const apply = settings.applyOutputs;
  return {
    onText: view.onText,
    applyOutputs: (outputs, response, info) => {
      if (response === undefined && info.kind === 'hop' && info.hop !== undefined) view.onOutputsApplied?.(info.hop);
      return apply?.(outputs, response, info);
    },
  };
}

/** A running turn as kept for a reload: where it stands, and what the view shows of it. */
function savedTurn(
  turn: Pick<SavedTurn, 'requestId' | 'agent' | 'message' | 'hop' | 'applyResults' | 'changes'>,
  view: TurnView,
): SavedTurn {
  const { requestId, agent, message, hop, applyResults, changes } = turn;
  return {
    requestId,
    ...(agent === undefined ? {} : { agent }),
    message,
    hop,
    ...(applyResults === undefined ? {} : { applyResults }),
    changes,
    ...(view.shown?.() ?? { progress: '', notices: [] }),
  };
}
