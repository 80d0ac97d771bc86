import type { HopRequest } from '@canvas-ai/protocol';
import type { ModelMessage } from './turn-state.js';

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;

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
