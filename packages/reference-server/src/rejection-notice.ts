import type { ApplyResult, Conflict, HopRequest, JsonValue } from '@canvas-ai/protocol';
import { quoteJson } from '@canvas-ai/protocol/server';
import type { ModelMessage } from './providers/model-provider.js';
import type { HeldEnding } from './turn-state.js';

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;

/** A value in a conflict is cut at this many characters. */
const MAX_VALUE_CHARS = 120;

/**
 * What to tell the model about outputs of the previous response the browser rejected, if any (spec §2 step 4): the
 * host's reason, or for a conflict (spec §16.2) which value the person changed and to what. When the model had
 * already answered (`held`), it hears that the answer was not given, so its next decision can say what failed.
 */
export function rejectionNotice(
  request: HopRequest,
  messages: readonly ModelMessage[],
  held?: HeldEnding,
): string | undefined {
  const rejected = (request.apply_results ?? []).filter((result) => result.status === 'rejected');
  if (rejected.length === 0) return undefined;
  const toolOf = (callId: string) =>
    messages.findLast((message): message is ToolMessage => message.role === 'tool' && message.call_id === callId)
      ?.name ?? 'a tool';
  const lines = rejected.map((result) => `- ${result.call_id} (${toolOf(result.call_id)}): ${why(result)}`);
  const notice =
    'The editor could not apply these outputs, so the page does NOT contain those changes ' +
    `(what the results of those calls said is not on the page):\n${lines.join('\n')}`;
  if (held?.kind !== 'answer') return notice;
  return (
    `${notice}\nYou had already answered the person (${quote(held.text)}), but that answer was not shown to them ` +
    'because of these failures. Decide again: fix what you can, or tell the person what could not be done.'
  );
}

function why(result: ApplyResult): string {
  if (result.conflicts && result.conflicts.length > 0) {
    const conflicts = result.conflicts.map(describeConflict).join('; ');
    return `not applied, because the person changed the page while you worked: ${conflicts}. Their edit stays.`;
  }
  return result.reason?.trim() || 'no reason given';
}

function describeConflict(conflict: Conflict): string {
  if ('expected_target' in conflict)
    return `${conflict.uuid}: the person moved it to ${conflict.actual_target} (you expected it in ${conflict.expected_target})`;
  if ('slot' in conflict)
    return `slot ${conflict.slot} of ${conflict.uuid}: the person changed what it holds (now ${quote(conflict.actual)}, you expected ${quote(conflict.expected)})`;
  const what = 'field' in conflict ? `the page field ${conflict.field}` : `${conflict.prop} of ${conflict.uuid}`;
  const now = conflict.actual === null ? 'cleared it' : `changed it to ${quote(conflict.actual)}`;
  return `${what}: the person ${now} (you expected to replace ${quote(conflict.expected)})`;
}

function quote(json: JsonValue): string {
  return quoteJson(json, MAX_VALUE_CHARS);
}
