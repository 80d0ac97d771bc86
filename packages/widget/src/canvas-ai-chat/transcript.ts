import { LIMITS, type ChatMessage } from '@canvas-ai/protocol';
import type { MessageContent } from './deep-chat-types.js';
import { answerHtml, statusBubbleHtml } from './narration.js';

/** Where an answer message keeps its plain text (deep-chat keeps a message's `custom` as it was given). */
interface AnswerCustom {
  canvasAiAnswer: string;
}

/** Where a note of the person's own doing (an undo, spec §17.4) keeps the text the model reads. */
interface NoteCustom {
  canvasAiNote: string;
}

/**
 * A note of what the person did, as a deep-chat message in the person's role: the escaped `html` they read, and in
 * `custom` the plain text the next turn's transcript gives the model as a `user` message.
 */
export function noteMessage(html: string, transcriptText: string): { html: string; role: 'user'; custom: NoteCustom } {
  return { html, role: 'user', custom: { canvasAiNote: transcriptText } };
}

/** The chat's messages as a reloaded page restores them: text and html, never files (they can be large). */
export function storableMessages(messages: readonly MessageContent[]): Array<Record<string, unknown>> {
  return messages.map(({ files: _files, ...message }) => ({ ...message }));
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
export function errorBubble(text: string, code?: string): { html: string; role: string } {
  return { html: statusBubbleHtml(text, code), role: ERROR_ROLE };
}

/**
 * The transcript sent on hop 1, read from deep-chat's messages: every user message (a files-only one with empty text),
 * every reply's text and every answer's plain text. The narration blocks (html messages) are never sent (spec §5).
 * The oldest messages are left out past {@link TRANSCRIPT_MAX_CHARS}; the last one, the user's, always goes.
 */
export function transcriptOf(messages: readonly MessageContent[]): ChatMessage[] {
  const transcript: ChatMessage[] = [];
  for (const message of messages) {
    const text = (message.text ?? answerText(message) ?? noteText(message) ?? '').slice(0, LIMITS.messageChars);
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

function answerText(message: MessageContent): string | undefined {
  const custom: unknown = message.custom;
  if (typeof custom !== 'object' || custom === null) return undefined;
  const text = (custom as Partial<AnswerCustom>).canvasAiAnswer;
  return typeof text === 'string' ? text : undefined;
}

function noteText(message: MessageContent): string | undefined {
  const custom: unknown = message.custom;
  if (typeof custom !== 'object' || custom === null) return undefined;
  const text = (custom as Partial<NoteCustom>).canvasAiNote;
  return typeof text === 'string' ? text : undefined;
}

/** The files the user attached, from the body deep-chat hands its connect handler (FormData when there are files). */
export function attachedFiles(body: unknown): File[] {
  if (!(body instanceof FormData)) return [];
  return body.getAll('files').filter((value): value is File => value instanceof File);
}
