import type { ModelMessage } from './model-provider.js';
import type { ModelRequest } from './model-provider.js';
import { toolParameters } from './tool-schemas.js';

/** A JSON object as the Chat Completions wire carries it. */
export type WireObject = Record<string, unknown>;

/** Request fields an endpoint may refuse as unknown; the provider sends them again without (see `decide`). */
export type OptionalField = 'stream_options' | 'parallel_tool_calls';

/** What to put in one streamed Chat Completions request besides the model's messages. */
export interface ChatRequestOptions {
  model: string;
  temperature?: number | undefined;
  /** Fields this endpoint refused before: left out. */
  omit: ReadonlySet<OptionalField>;
}

/**
 * The body of one streamed Chat Completions call. Usage comes in the stream's last chunk (`include_usage`); when
 * tools are offered, `parallel_tool_calls: false`, since `place_components` runs one call at a time (spec §12) and
 * a model that writes several calls at once only has all but the first refused.
 */
export function chatRequestBody(request: ModelRequest, options: ChatRequestOptions): WireObject {
  const tools = request.tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: toolParameters(tool) },
  }));
  return {
    model: options.model,
    messages: [{ role: 'system', content: request.system }, ...request.messages.map(toChatMessage)],
    stream: true,
    ...(options.omit.has('stream_options') ? {} : { stream_options: { include_usage: true } }),
    ...(tools.length > 0 ? { tools } : {}),
    ...(tools.length > 0 && !options.omit.has('parallel_tool_calls') ? { parallel_tool_calls: false } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  };
}

/** One provider-neutral message in the Chat Completions wire format. */
function toChatMessage(message: ModelMessage): WireObject {
  switch (message.role) {
    case 'user': {
      if (message.attachments.length === 0) return { role: 'user', content: message.text };
      return {
        role: 'user',
        content: [
          { type: 'text', text: message.text },
          ...message.attachments.map((attachment) => ({
            type: 'image_url',
            image_url: { url: `data:${attachment.media_type};base64,${attachment.data}` },
          })),
        ],
      };
    }
    case 'assistant':
      return {
        role: 'assistant',
        content: message.text || null,
        ...(message.tool_calls.length > 0
          ? {
              tool_calls: message.tool_calls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.call_id, content: message.content };
    case 'notice':
      return { role: 'user', content: `[Editor notice] ${message.text}` };
  }
}
