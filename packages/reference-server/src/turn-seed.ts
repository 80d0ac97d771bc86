import {
  DECLARED_OUTPUT_TYPES,
  WAIT_KINDS,
  type AgentDefinition,
  type AgentsConfig,
  type Attachment,
  type HopRequest,
} from '@canvas-ai/protocol';
import { toBase64 } from './base64.js';
import type { ModelMessage, StoredAttachment } from './providers/model-provider.js';
import type { TurnSoFar } from './turn-state.js';

/** Attachments already encoded by {@link encodeAttachments}, so the hop does not encode them again in one go. */
const encoded = new WeakMap<Attachment, string>();

/**
 * Encodes hop 1's attachments as base64 before the hop runs, one at a time with `pause` before each: four of 5 MiB
 * encoded in one go held the event loop for a good part of a second (spec §13.1).
 */
export async function encodeAttachments(attachments: readonly Attachment[], pause: () => Promise<void>): Promise<void> {
  for (const file of attachments) {
    await pause();
    encoded.set(file, toBase64(file.bytes));
  }
}

/** An attachment as the turn keeps it (base64), encoded once: by {@link encodeAttachments} when it ran. */
export function storedAttachment(file: Attachment): StoredAttachment {
  return { name: file.name, media_type: file.mediaType, data: encoded.get(file) ?? toBase64(file.bytes) };
}

/** Hop 1: the turn starts from the transcript's text — earlier messages up to `history_limit`, then the user's. */
export function seedTurn(
  config: AgentsConfig,
  agentId: string,
  definition: AgentDefinition,
  request: HopRequest,
  attachments: readonly Attachment[],
): TurnSoFar {
  const messages = request.messages ?? [];
  const current = messages.at(-1)!;
  const seeded = history(messages.slice(0, -1), config.history_limit);
  seeded.push({
    role: 'user',
    text: current.text,
    attachments: attachments.map(storedAttachment),
  });
  return {
    agent: agentId,
    ...(request.agent === undefined ? { by_main: true } : {}),
    definition,
    hop: 0,
    decisions: 0,
    user_message: current.text,
    messages: seeded,
    narration_from: seeded.length - 1,
    parked: [],
    placed_uuids: [],
    ...declaredOutputs(request),
    ...declaredWaits(request),
  };
}

/** The kinds of wait hop 1 declares that this server knows (spec §20.1); a name it does not know is ignored. */
function declaredWaits(request: HopRequest): { declared_waits?: string[] } {
  const known: readonly string[] = WAIT_KINDS;
  const declared = [...new Set(request.capabilities?.waits ?? [])].filter((kind) => known.includes(kind));
  return declared.length > 0 ? { declared_waits: declared } : {};
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
