// Puck's history keeps snapshots (the whole app state after each change), not commands. This file makes one agent
// turn one entry of it, tagged with the turn's request id, and tells the chat when Puck's own Undo and Redo cross
// that entry: the widget README's "A snapshot history" recipe, on Puck's `history` API.
import type { ChatSession } from '@canvas-ai/widget/loop';
import type { PuckApi } from '@puckeditor/core';

/** The id of the entry that holds a turn (Puck's entries carry an id: its own are `history-<uuid>`). */
const TAG = 'canvas-ai-turn:';

/** Puck records an edit 250 ms after it (a debounce): an edit's entry is there once this much has passed. */
const RECORD_DELAY_MS = 300;

type Histories = PuckApi['history']['histories'];

export class TurnHistory {
  private turn: { requestId: string; index: number; resumed: boolean } | undefined;
  /** The last turn's entry being written (awaited before the chat's Undo looks for it). */
  private writing: Promise<void> = Promise.resolve();
  /** Whether the person's own edits are inside the last turn's entry (they edited while it ran). */
  private edited = false;
  private seen: { index: number; histories: Histories } | undefined;

  constructor(private readonly puck: () => PuckApi) {}

  /** `onTurnStart`: where Puck's history stands. The glue applies the turn's outputs without recording them. */
  started(requestId: string, resumed: boolean): void {
    this.turn = { requestId, index: this.puck().history.index, resumed };
  }

  /**
   * `onTurnEnd`: the page as the turn left it becomes one entry, tagged with the turn. What the person changed while
   * it ran (entries Puck recorded meanwhile) joins it, so Puck's Undo takes the turn back in one step. A turn resumed
   * after a reload is an entry too, but not tagged: Puck's history starts at the reload, so that entry holds only the
   * part after it, and the chat's Undo applies the whole turn's inverse outputs instead.
   */
  ended(requestId: string, changedPage: boolean): void {
    const turn = this.turn;
    this.turn = undefined;
    if (turn?.requestId !== requestId || !changedPage) return;
    const ended = this.puck().history.index;
    this.writing = new Promise((resolve) => setTimeout(resolve, RECORD_DELAY_MS)).then(() => {
      const { history, appState } = this.puck();
      // Puck's Undo pressed meanwhile: the page is no longer the turn's, and writing the entry would bring it back.
      if (history.index < ended) return;
      const start = Math.min(turn.index, history.index);
      this.edited = history.histories.length > start + 1;
      const id = turn.resumed ? `resumed:${requestId}` : `${TAG}${requestId}`;
      history.setHistories([...history.histories.slice(0, start + 1), { id, state: appState }]);
    });
  }

  /**
   * The chat's Undo and Stop and revert (`undoInHistory`): Puck's Undo when the turn's entry is the latest and holds
   * no edit of the person's. Otherwise false: the chat applies the turn's inverse outputs, which keep those edits.
   */
  async undo(requestId: string): Promise<boolean> {
    await this.writing;
    const { history } = this.puck();
    if (this.edited || history.histories[history.index]?.id !== `${TAG}${requestId}`) return false;
    history.back();
    return true;
  }

  /** Puck's history moved (its Undo or Redo): tells the chat which of its turns went back or came again. */
  moved(session: ChatSession, { index, histories }: { index: number; histories: Histories }): void {
    const seen = this.seen;
    this.seen = { index, histories };
    // A new entry (an edit, or a turn's entry written) is not an undo; only moving along the same entries is.
    if (!seen || seen.histories !== histories || seen.index === index) return;
    const low = Math.min(index, seen.index);
    const high = Math.max(index, seen.index);
    for (const entry of histories.slice(low + 1, high + 1)) {
      if (!entry.id?.startsWith(TAG)) continue;
      const requestId = entry.id.slice(TAG.length);
      if (index < seen.index) session.historyUndid(requestId);
      else session.historyRedid(requestId);
    }
  }
}
