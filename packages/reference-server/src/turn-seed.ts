import type { AgentsConfig, Attachment, HopRequest } from '@canvas-ai/protocol';
import { toBase64 } from './base64.js';
import type { ModelMessage, TurnSoFar } from './turn-state.js';

/** Hop 1: the turn starts from the transcript's text — earlier messages up to `history_limit`, then the user's. */
export function seedTurn(
  config: AgentsConfig,
  agentId: string,
  request: HopRequest,
  attachments: readonly Attachment[],
): TurnSoFar {
  const messages = request.messages ?? [];
  const current = messages.at(-1)!;
  const seeded = history(messages.slice(0, -1), config.history_limit);
  seeded.push({
    role: 'user',
    text: current.text,
    attachments: attachments.map((file) => ({
      name: file.name,
      media_type: file.mediaType,
      data: toBase64(file.bytes),
    })),
  });
  return {
    agent: agentId,
    hop: 0,
    decisions: 0,
    user_message: current.text,
    messages: seeded,
    narration_from: seeded.length - 1,
    parked: [],
    placed_uuids: [],
  };
}

/** The transcript before the user's message, as model messages: the last `limit` of them, text only. */
function history(earlier: NonNullable<HopRequest['messages']>, limit: number): ModelMessage[] {
  const kept = limit > 0 ? earlier.slice(-limit) : [];
  return kept.map((message) =>
    message.role === 'user'
      ? { role: 'user', text: message.text, attachments: [] }
      : { role: 'assistant', text: message.text, tool_calls: [] },
  );
}
