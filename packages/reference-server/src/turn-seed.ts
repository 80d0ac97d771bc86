import { DECLARED_OUTPUT_TYPES, type AgentsConfig, type Attachment, type HopRequest } from '@canvas-ai/protocol';
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
    ...declaredOutputs(request),
  };
}

/** The output types hop 1 declares that this server knows (spec §5.1); a name it does not know is ignored. */
function declaredOutputs(request: HopRequest): { declared_outputs?: string[] } {
  const known: readonly string[] = DECLARED_OUTPUT_TYPES;
  const declared = [...new Set(request.capabilities?.outputs ?? [])].filter((type) => known.includes(type));
  return declared.length > 0 ? { declared_outputs: declared } : {};
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

/** Bytes as base64 with web APIs only (the handler runs in any runtime, not just Node). */
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  // In slices: spreading megabytes of arguments into one call would overflow the stack.
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}
