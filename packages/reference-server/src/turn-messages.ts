import {
  joinNarration,
  type AgentsConfig,
  type Attachment,
  type ContinuingHopResponse,
  type HopRequest,
} from '@canvas-ai/protocol';
import type { ActiveTurn, ModelMessage } from './turn-state.js';

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;

/** A turn as a hop works on it: what is stored, minus the stored response. */
export type TurnSoFar = Omit<ActiveTurn, 'kind' | 'response'>;

/** Hop 1: the turn starts from the transcript's text — earlier messages up to `history_limit`, then the user's. */
export function seedTurn(
  config: AgentsConfig,
  agentId: string,
  request: HopRequest,
  attachments: readonly Attachment[],
): TurnSoFar {
  const messages = request.messages ?? [];
  const current = messages.at(-1)!;
  const history = config.history_limit > 0 ? messages.slice(0, -1).slice(-config.history_limit) : [];
  const seeded: ModelMessage[] = history.map((message) =>
    message.role === 'user'
      ? { role: 'user', text: message.text, attachments: [] }
      : { role: 'assistant', text: message.text, tool_calls: [] },
  );
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

/** Every text the model produced in this turn, in order: the narration (history messages excluded). */
export function turnTexts(turn: Pick<TurnSoFar, 'messages' | 'narration_from'>): string[] {
  return turn.messages
    .slice(turn.narration_from)
    .flatMap((message) => (message.role === 'assistant' ? [message.text] : []));
}

/** A continuing response as the turn stores it: `progress` emptied, since the messages hold the narration. */
export function storedResponse(response: ContinuingHopResponse): ContinuingHopResponse {
  return { ...response, progress: '' };
}

/** The stored last response of an active turn as it was first sent: same keys, same order, narration put back. */
export function replayResponse(turn: ActiveTurn): ContinuingHopResponse {
  return { ...turn.response, progress: joinNarration(turnTexts(turn)) };
}

/** What to tell the model about outputs of the previous response the browser rejected, if any. */
export function rejectionNotice(request: HopRequest, messages: readonly ModelMessage[]): string | undefined {
  const rejected = (request.apply_results ?? []).filter((result) => result.status === 'rejected');
  if (rejected.length === 0) return undefined;
  const toolOf = (callId: string) =>
    messages.findLast((message): message is ToolMessage => message.role === 'tool' && message.call_id === callId)
      ?.name ?? 'a tool';
  const lines = rejected.map(
    (result) => `- ${result.call_id} (${toolOf(result.call_id)}): ${result.reason?.trim() || 'no reason given'}`,
  );
  return (
    'The editor could not apply these outputs, so the page does NOT contain those changes ' +
    `(the layout in your instructions shows the page as it is):\n${lines.join('\n')}`
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
