import type { DeepChatElement } from './deep-chat-types.js';
import { progressBlockHtml, type ProgressStatus } from './narration.js';

/** How close to the end (px) still counts as "reading the latest message". */
const BOTTOM_SLACK = 8;

/**
 * One turn's narration block inside deep-chat: added with `addMessage` the first time a response carries
 * narration, then updated in place with `updateMessage`, so a turn shows ONE block however many hops it takes.
 */
export class ProgressView {
  private index: number | undefined;
  private progress = '';
  private status: ProgressStatus = 'running';
  private role: string;
  private readonly notices: string[] = [];

  /** `role` is the deep-chat role of the block until a response names the agent (the agent's id). */
  constructor(
    private readonly chat: DeepChatElement,
    role: string,
  ) {
    this.role = role;
  }

  /** Whether the block was added. */
  get shown(): boolean {
    return this.index !== undefined;
  }

  /** The narration shown, and the notices: what a reloaded page shows again (spec §18). */
  get state(): { progress: string; notices: string[] } {
    return { progress: this.progress, notices: [...this.notices] };
  }

  /** Shows the turn's narration so far (the whole `progress`, never appended) with a status. */
  show(progress: string, status: ProgressStatus, role: string): void {
    // The last hop's progress may be shorter (its answer is stripped off); an empty one keeps what is shown.
    if (progress.length > 0) this.progress = progress;
    this.status = status;
    this.role = role;
    if (this.index === undefined && this.progress.length === 0) return;
    this.render();
  }

  /** Adds notices (outputs the editor could not apply) to the block; they stay for the rest of the turn. */
  notify(notices: readonly string[]): void {
    if (notices.length === 0) return;
    this.notices.push(...notices);
    this.render();
  }

  /** Ends the block's status row; `always` adds a status-only block when no narration came (a stop says so). */
  finish(status: ProgressStatus, options: { progress?: string | undefined; always?: boolean } = {}): void {
    if (options.progress) this.progress = options.progress;
    this.status = status;
    if (this.index === undefined && this.progress.length === 0 && this.notices.length === 0 && !options.always) return;
    this.render();
  }

  private render(): void {
    const html = progressBlockHtml(this.progress, this.status, this.notices);
    keepReaderPosition(this.chat, () => {
      if (this.index === undefined) {
        this.chat.addMessage({ role: this.role, html });
        this.index = this.chat.getMessages().length - 1;
      } else {
        this.chat.updateMessage({ html }, this.index);
      }
    });
  }
}

/**
 * Runs a change to the messages and keeps the reader where they were: pinned to the bottom only if they were at
 * the bottom before the change (checked before, scrolled after, deferred a tick so deep-chat has laid it out).
 * deep-chat has no API for the scroll position, so this reads its messages container (`#messages`).
 */
function keepReaderPosition(chat: DeepChatElement, change: () => void): void {
  const scroller = chat.shadowRoot?.querySelector<HTMLElement>('#messages') ?? null;
  const top = scroller?.scrollTop ?? 0;
  const atBottom = !scroller || scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop <= BOTTOM_SLACK;
  change();
  setTimeout(() => {
    if (atBottom) chat.scrollToBottom();
    else if (scroller) scroller.scrollTop = top;
  });
}
