import { LIMITS, type ChatMessage } from '@canvas-ai/protocol';
import type { SavedMessage } from '../turn-storage.js';
import type { MessageContent } from './deep-chat-types.js';
import { answerHtml, escapeNarration, noteHtml, progressBlockHtml, statusBubbleHtml } from './narration.js';
import type { ChatStrings } from './strings.js';

/** Where an answer message keeps its plain text (deep-chat keeps a message's `custom` as it was given). */
interface AnswerCustom {
  canvasAiAnswer: string;
}

/**
 * Where a note of the person's own doing (an undo, spec §17.4) keeps the text the model reads, and what it shows
 * (its summary line and notices), so it is kept as text for a reload.
 */
interface NoteCustom {
  canvasAiNote: string;
  canvasAiNoteShown: { summary: string; notices: string[] };
}

/** Where an error bubble keeps its text and code, for a reload. */
interface ErrorCustom {
  canvasAiError: { text: string; code?: string | undefined };
}

/** Where a message the chat showed again after a reload keeps what it was kept as. */
interface KeptCustom {
  canvasAiKept: SavedMessage;
}

/**
 * A note of what the person did, as a deep-chat message in the person's role: `summary` and `notices` as the escaped
 * `html` they read, and in `custom` the plain text the next turn's transcript gives the model as a `user` message.
 */
export function noteMessage(
  summary: string,
  notices: readonly string[],
  transcriptText: string,
): { html: string; role: 'user'; custom: NoteCustom } {
  return {
    html: noteHtml(summary, notices),
    role: 'user',
    custom: { canvasAiNote: transcriptText, canvasAiNoteShown: { summary, notices: [...notices] } },
  };
}

/**
 * The chat's messages as kept for a reload: text only (security review 2, G6), never html nor files. `shown` gives
 * what a message index holds when the chat knows it better than deep-chat does (a narration block, updated in place).
 * A message that is html only and not the chat's own is not kept.
 */
export function storableMessages(
  messages: readonly MessageContent[],
  shown: (index: number) => SavedMessage | undefined = () => undefined,
): SavedMessage[] {
  return messages.flatMap((message, index): SavedMessage[] => {
    const known = shown(index);
    if (known) return [known];
    const role = message.role ?? 'ai';
    const custom = customOf(message);
    const kept = custom.canvasAiKept as SavedMessage | undefined;
    if (kept) return [kept];
    const answer = answerText(message);
    if (answer !== undefined) return [{ role, text: answer, kind: 'answer' }];
    const note = noteText(message);
    if (note !== undefined) {
      const { summary, notices } = (custom as Partial<NoteCustom>).canvasAiNoteShown ?? { summary: note, notices: [] };
      return [{ role, text: note, kind: 'note', shown: summary, ...(notices.length > 0 ? { notices } : {}) }];
    }
    const error = (custom as Partial<ErrorCustom>).canvasAiError;
    if (error) return [{ role, text: error.text, kind: 'error', ...(error.code ? { code: error.code } : {}) }];
    if (message.html === undefined && (message.text !== undefined || role === 'user'))
      return [{ role, text: message.text ?? '' }];
    return [];
  });
}

/**
 * What a reloaded chat shows of its kept messages: each rebuilt as html with the chat's own escaping, whatever its
 * text holds (markup or markdown stays text: nothing is created, loaded or run), with its text in `custom` for the
 * next turn's transcript and for keeping it again.
 */
export function shownMessages(kept: readonly SavedMessage[], strings: ChatStrings): MessageContent[] {
  return kept.map((message): MessageContent => {
    const { role, text } = message;
    switch (message.kind) {
      case 'answer':
        return answerMessage(text, role);
      case 'note':
        return noteMessage(message.shown ?? text, message.notices ?? [], text);
      case 'error':
        return errorBubble(text, message.code);
      case 'narration': {
        const html = progressBlockHtml(text, message.status ?? 'done', message.notices ?? [], strings);
        return { role, html, custom: { canvasAiKept: message } satisfies KeptCustom };
      }
      default:
        return { role, html: textHtml(text), custom: { canvasAiKept: message } satisfies KeptCustom };
    }
  });
}

/** A plain message shown again after a reload: its text escaped, nothing else (no markdown). */
function textHtml(text: string): string {
  return `<div class="canvas-ai-text" dir="auto">${escapeNarration(text)}</div>`;
}

/**
 * The final answer as a deep-chat message: escaped html (never markdown), in the answering agent's role so its
 * caption shows, with the plain text in `custom` for the next turn's transcript.
 */
export function answerMessage(text: string, role: string): { html: string; role: string; custom: AnswerCustom } {
  return { html: answerHtml(text), role, custom: { canvasAiAnswer: text } };
}

/**
 * Characters of the transcript hop 1 carries, the newest messages kept: the server reads only its last
 * `history_limit` messages, and the whole request must stay under the JSON body limit (spec §13.1), page included.
 */
export const TRANSCRIPT_MAX_CHARS = LIMITS.maxJsonBodyBytes / 8;

/** The role of the widget's error bubbles: not an agent's, so no agent caption, and never part of a transcript. */
export const ERROR_ROLE = 'canvas-ai-error';

/** An error as a deep-chat message: escaped html with its code (never deep-chat's own error, which is markdown). */
export function errorBubble(text: string, code?: string): { html: string; role: string; custom: ErrorCustom } {
  return { html: statusBubbleHtml(text, code), role: ERROR_ROLE, custom: { canvasAiError: { text, code } } };
}

/**
 * The transcript sent on hop 1, read from deep-chat's messages: every user message (a files-only one with empty text),
 * every reply's text and every answer's plain text. The narration blocks (html messages) are never sent (spec §5).
 * The oldest messages are left out past {@link TRANSCRIPT_MAX_CHARS}; the last one, the user's, always goes.
 */
export function transcriptOf(messages: readonly MessageContent[]): ChatMessage[] {
  const transcript: ChatMessage[] = [];
  for (const message of messages) {
    const text = (message.text ?? answerText(message) ?? noteText(message) ?? keptText(message) ?? '').slice(
      0,
      LIMITS.messageChars,
    );
    if (message.role === 'user') transcript.push({ role: 'user', text });
    else if (text.length > 0) transcript.push({ role: 'assistant', text });
  }
  const kept = transcript.slice(-LIMITS.maxMessages);
  let chars = 0;
  for (let index = kept.length - 1; index >= 0; index -= 1) {
    chars += kept[index]!.text.length;
    if (chars > TRANSCRIPT_MAX_CHARS && index < kept.length - 1) return kept.slice(index + 1);
  }
  return kept;
}

/** A message's `custom`, or an empty record. */
function customOf(message: MessageContent): Record<string, unknown> {
  const custom: unknown = message.custom;
  return typeof custom === 'object' && custom !== null ? (custom as Record<string, unknown>) : {};
}

function answerText(message: MessageContent): string | undefined {
  const text = (customOf(message) as Partial<AnswerCustom>).canvasAiAnswer;
  return typeof text === 'string' ? text : undefined;
}

function noteText(message: MessageContent): string | undefined {
  const text = (customOf(message) as Partial<NoteCustom>).canvasAiNote;
  return typeof text === 'string' ? text : undefined;
}

/** The text of a plain message shown again after a reload (a narration block's is never part of a transcript). */
function keptText(message: MessageContent): string | undefined {
  const kept = (customOf(message) as Partial<KeptCustom>).canvasAiKept;
  return kept && kept.kind === undefined ? kept.text : undefined;
}

/** The files the user attached, from the body deep-chat hands its connect handler (FormData when there are files). */
export function attachedFiles(body: unknown): File[] {
  if (!(body instanceof FormData)) return [];
  return body.getAll('files').filter((value): value is File => value instanceof File);
}
