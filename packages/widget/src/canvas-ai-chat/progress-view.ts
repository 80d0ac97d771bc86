import type { SavedMessage } from '../turn-storage.js';
import type { DeepChatInstance } from './deep-chat-types.js';
import { lastParagraph, progressBlockHtml, type ProgressStatus } from './narration.js';
import type { ChatStrings } from './strings.js';

/** How close to the end (px) still counts as "reading the latest message". */
const BOTTOM_SLACK = 8;

/** Where a sentence of streamed text ends: its mark, then a space or a line break. */
const SENTENCE_END = /[.!?…。！？](?=\s)/g;

/**
 * One turn's narration block inside deep-chat: added with `addMessage` the first time a response carries
 * narration (or a streamed hop its first text), then updated in place with `updateMessage`, so a turn shows ONE
 * block however many hops it takes.
 *
 * A streamed hop's text (spec §6) shows live after the turn's `progress`, as a paragraph of its own, until the
 * hop's response says what it was: narration (now in `progress`), the answer (shown in its own bubble, so it leaves
 * the block), or an answer held for the next hop (it stays until that hop ends the turn). A stop or an error drops
 * it: the server keeps nothing of a hop that did not end. It is read out a sentence at a time.
 */
export class ProgressView {
  private index: number | undefined;
  private progress = '';
  private status: ProgressStatus = 'running';
  private role: string;
  private readonly notices: string[] = [];
  /** Whether the latest response added narration: its last paragraph is then the step that response announced. */
  private grew = false;
  private lastStepNotRun = false;
  /** The narration read out so far: each hop announces only what it added. */
  private announced = '';
  /** The streamed text of the hop in flight (or of a hop whose answer is held), and that hop. */
  private live = '';
  private liveHop = 0;
  /** How much of {@link live} (trimmed at its start) has been read out. */
  private liveSpoken = 0;
  /** What was read out of the live text that became the answer: the answer's announcement skips it. */
  private spokenAnswer = '';
  /** The hop in flight applied outputs (a streamed hop's outputs line): the step announced last has run. */
  private stepRan = false;
  /** A render waiting for the next frame: live text renders at most once a frame. */
  private frame: number | undefined;

  /** `role` is the deep-chat role of the block until a response names the agent (the agent's id). */
  constructor(
    private readonly chat: DeepChatInstance,
    role: string,
    private readonly strings: ChatStrings,
    private readonly announce: (text: string) => void = () => {},
  ) {
    this.role = role;
  }

  /** Whether the block was added. */
  get shown(): boolean {
    return this.index !== undefined;
  }

  /** The block as kept for a reload, as text (security review 2, G6), and where deep-chat shows it; undefined: not shown. */
  get kept(): { index: number; message: SavedMessage } | undefined {
    if (this.index === undefined) return undefined;
    const notices = this.notices.length > 0 ? { notices: [...this.notices] } : {};
    return {
      index: this.index,
      message: { role: this.role, text: this.progress, kind: 'narration', status: this.status, ...notices },
    };
  }

  /** The narration shown, and the notices: what a reloaded page shows again (spec §18). */
  get state(): { progress: string; notices: string[] } {
    return { progress: this.progress, notices: [...this.notices] };
  }

  /**
   * Shows the turn's narration so far (the whole `progress`, never appended) with a status, for the response to `hop`.
   * The hop's live text leaves the block unless the response goes on without it (an answer held for the next hop).
   */
  show(progress: string, status: ProgressStatus, role: string, hop = 0): void {
    // The last hop's progress may be shorter (its answer is stripped off); an empty one keeps what is shown.
    this.grew = progress.length > 0 && progress !== this.progress;
    if (progress.length > 0) this.progress = progress;
    this.status = status;
    this.role = role;
    this.stepRan = false;
    const text = this.live.trim();
    const held = status === 'running' && hop === this.liveHop && text.length > 0 && !this.progress.endsWith(text);
    if (!held) this.dropLive(status === 'done');
    this.announceProgress();
    if (this.index === undefined && this.shownText().length === 0) return;
    this.render();
  }

  /** Shows the text of hop `hop` so far, as it streams (`text` starts again when the hop is sent again). */
  showLive(hop: number, text: string): void {
    if (hop !== this.liveHop) {
      this.liveSpoken = 0;
      this.spokenAnswer = '';
    }
    this.liveHop = hop;
    this.live = text;
    this.announceSentences();
    if (this.index === undefined && this.shownText().length === 0) return;
    this.frame ??= requestAnimationFrame(() => {
      this.frame = undefined;
      this.render();
    });
  }

  /** The hop in flight applied its outputs before its response (a streamed hop): its announced step has run. */
  outputsApplied(): void {
    this.stepRan = true;
  }

  /** The part of `answer` not read out yet: the live text read so far was its start. */
  unannounced(answer: string): string {
    const spoken = this.spokenAnswer.trim();
    const text = answer.trim();
    return spoken.length > 0 && text.startsWith(spoken) ? text.slice(spoken.length).trim() : text;
  }

  /** Adds notices (outputs the editor could not apply) to the block; they stay for the rest of the turn. */
  notify(notices: readonly string[]): void {
    if (notices.length === 0) return;
    this.notices.push(...notices);
    for (const notice of notices) this.announce(notice);
    this.render();
  }

  /**
   * The step the narration announced last, when the turn was stopped before it ran: the latest response asked for
   * another hop (its tool calls were parked for it, spec §2) and added the paragraph that announced them.
   */
  announcedStep(lastResponseContinued: boolean): string | undefined {
    return lastResponseContinued && this.grew && !this.stepRan ? lastParagraph(this.progress) : undefined;
  }

  /**
   * Ends the block's status row; `always` adds a status-only block when no narration came (a stop says so);
   * `lastStepNotRun` marks the last paragraph as a step that never ran.
   */
  finish(
    status: ProgressStatus,
    options: { progress?: string | undefined; always?: boolean; lastStepNotRun?: boolean } = {},
  ): void {
    if (options.progress) this.progress = options.progress;
    this.status = status;
    this.dropLive(status === 'done');
    this.lastStepNotRun = options.lastStepNotRun ?? false;
    this.announceProgress();
    const label = { running: this.strings.working, done: this.strings.done, stopped: this.strings.stopped };
    this.announce(status === 'failed' ? this.strings.failed : label[status]);
    if (this.index === undefined && this.progress.length === 0 && this.notices.length === 0 && !options.always) {
      // Nothing to show, and the live text is gone: a frame still asked for would add an empty block after the answer.
      this.cancelFrame();
      return;
    }
    this.render();
  }

  /**
   * Ends the live text: it became narration, the answer (`answer`: what was read of it is kept, so the answer's
   * announcement does not repeat it), or nothing (a stop, an error).
   */
  private dropLive(answer: boolean): void {
    if (this.live.length === 0) return;
    this.spokenAnswer = answer ? this.live.trimStart().slice(0, this.liveSpoken) : '';
    this.live = '';
    this.liveSpoken = 0;
  }

  /** The text the block shows: the narration, then the live text as a paragraph of its own. */
  private shownText(): string {
    const live = this.live.trim();
    if (live.length === 0) return this.progress;
    return this.progress.length > 0 ? `${this.progress}\n\n${live}` : live;
  }

  /**
   * Reads out the live text's finished sentences not read yet, together: one announcement per sentence end that
   * arrives, never one per piece. `announced` then holds them as the narration will (so the hop's response reads
   * out only the rest).
   */
  private announceSentences(): void {
    const text = this.live.trimStart();
    let end = this.liveSpoken;
    SENTENCE_END.lastIndex = this.liveSpoken;
    for (let match = SENTENCE_END.exec(text); match; match = SENTENCE_END.exec(text)) end = match.index + 1;
    if (end <= this.liveSpoken) return;
    const sentences = text.slice(this.liveSpoken, end).trim();
    this.liveSpoken = end;
    const said = text.slice(0, end).trimEnd();
    this.announced = this.progress.length > 0 ? `${this.progress}\n\n${said}` : said;
    if (sentences.length > 0) this.announce(sentences);
  }

  /** Reads out the narration this hop added (the whole of it when the server rewrote it). */
  private announceProgress(): void {
    if (this.progress === this.announced) return;
    // Read out already, as live text (which may then have left the narration: an answer, a stop).
    if (this.announced.startsWith(this.progress)) {
      this.announced = this.progress;
      return;
    }
    const added = this.progress.startsWith(this.announced) ? this.progress.slice(this.announced.length) : this.progress;
    this.announced = this.progress;
    if (added.trim().length > 0) this.announce(added.trim());
  }

  private cancelFrame(): void {
    if (this.frame !== undefined) cancelAnimationFrame(this.frame);
    this.frame = undefined;
  }

  private render(): void {
    this.cancelFrame();
    const html = progressBlockHtml(this.shownText(), this.status, this.notices, this.strings, {
      lastStepNotRun: this.lastStepNotRun,
    });
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
function keepReaderPosition(chat: DeepChatInstance, change: () => void): void {
  const scroller = chat.shadowRoot?.querySelector<HTMLElement>('#messages') ?? null;
  const top = scroller?.scrollTop ?? 0;
  const atBottom = !scroller || scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop <= BOTTOM_SLACK;
  change();
  setTimeout(() => {
    if (atBottom) chat.scrollToBottom();
    else if (scroller) scroller.scrollTop = top;
  });
}
