import { LIMITS, type ChatMessage } from '@canvas-ai/protocol';
import type { MessageContent } from './deep-chat-types.js';

/**
 * The transcript sent on hop 1, read from deep-chat's messages: every user message (a files-only one with empty
 * text) and every reply's text. HTML messages (the narration blocks) are never sent (§3).
 */
export function transcriptOf(messages: readonly MessageContent[]): ChatMessage[] {
  const transcript: ChatMessage[] = [];
  for (const message of messages) {
    const text = (message.text ?? '').slice(0, LIMITS.messageChars);
    if (message.role === 'user') transcript.push({ role: 'user', text });
    else if (text.length > 0) transcript.push({ role: 'assistant', text });
  }
  return transcript.slice(-LIMITS.maxMessages);
}

/** The files the user attached, from the body deep-chat hands its connect handler (FormData when there are files). */
export function attachedFiles(body: unknown): File[] {
  if (!(body instanceof FormData)) return [];
  return body.getAll('files').filter((value): value is File => value instanceof File);
}
