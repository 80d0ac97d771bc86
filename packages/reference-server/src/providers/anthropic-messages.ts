import type {
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { ToolDefinition } from '@canvas-ai/protocol/server';
import type { ModelMessage } from './model-provider.js';
import { toolParameters } from './tool-schemas.js';

/**
 * A prompt-cache breakpoint: the prefix up to and including the block that carries it is cached for the next call.
 * Anthropic caches tools, then system, then messages, in that order, and allows four breakpoints a request.
 */
const BREAKPOINT = { type: 'ephemeral' } as const;

/** The system prompt as one text block with a breakpoint: later calls of the turn reuse tools + system. */
export function anthropicSystem(system: string): TextBlockParam[] {
  return [{ type: 'text', text: system, cache_control: BREAKPOINT }];
}

/** The tools as Anthropic tool definitions, from their zod schemas; the last one carries a breakpoint. */
export function anthropicTools(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: toolParameters(tool) as Tool['input_schema'],
    ...(index === tools.length - 1 ? { cache_control: BREAKPOINT } : {}),
  }));
}

/**
 * The provider-neutral conversation as Anthropic messages. Roles alternate (consecutive user content — tool results,
 * notices, a user message — is merged into one user message, tool results first, as the Messages API requires), the
 * first message is the user's, no text block is empty, and the last block of the last message carries a breakpoint,
 * so the next call of the turn, which only appends, reads everything before it from the cache.
 */
export function anthropicMessages(messages: readonly ModelMessage[]): MessageParam[] {
  const merged: Array<{ role: 'user' | 'assistant'; content: ContentBlockParam[] }> = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = contentOf(message);
    if (blocks.length === 0) continue;
    const last = merged.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else merged.push({ role, content: blocks });
  }
  // A history window may start with an answer; the Messages API wants the user first.
  if (merged[0]?.role === 'assistant') {
    merged.unshift({ role: 'user', content: [{ type: 'text', text: '(The conversation so far.)' }] });
  }
  for (const message of merged) {
    if (message.role === 'user') message.content = toolResultsFirst(message.content);
  }
  const lastBlock = merged.at(-1)?.content.at(-1);
  if (lastBlock) (lastBlock as { cache_control?: typeof BREAKPOINT }).cache_control = BREAKPOINT;
  return merged;
}

/** One message's content blocks; empty text is left out (the API refuses empty text blocks). */
function contentOf(message: ModelMessage): ContentBlockParam[] {
  switch (message.role) {
    case 'user': {
      // Images before the text that speaks of them, as Anthropic's vision guide advises.
      const blocks: ContentBlockParam[] = message.attachments.map((attachment) => ({
        type: 'image',
        source: { type: 'base64', media_type: attachment.media_type, data: attachment.data },
      }));
      if (message.text !== '') blocks.push({ type: 'text', text: message.text });
      return blocks;
    }
    case 'assistant': {
      const blocks: ContentBlockParam[] = message.text === '' ? [] : [{ type: 'text', text: message.text }];
      for (const call of message.tool_calls) {
        blocks.push({ type: 'tool_use', id: wireCallId(call.id), name: call.name, input: toolInput(call.arguments) });
      }
      return blocks;
    }
    case 'tool':
      return [{ type: 'tool_result', tool_use_id: wireCallId(message.call_id), content: message.content }];
    case 'notice':
      return [{ type: 'text', text: `[Editor notice] ${message.text}` }];
  }
}

/** Tool results ahead of any other block of a user message, each group in its own order. */
function toolResultsFirst(content: ContentBlockParam[]): ContentBlockParam[] {
  const results = content.filter((block): block is ToolResultBlockParam => block.type === 'tool_result');
  if (results.length === 0 || results.length === content.length) return content;
  return [...results, ...content.filter((block) => block.type !== 'tool_result')];
}

/**
 * A call's arguments as the object `tool_use.input` must be. Arguments that are not a JSON object (a model that
 * wrote broken JSON) were answered by a tool error already; `{}` stands in for them, and the tool result says why.
 */
function toolInput(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Not JSON: see above.
  }
  return {};
}

/**
 * A call id as the Messages API accepts it (letters, digits, `_` and `-`): the hop renames a repeated id with a `~N`
 * suffix (call-ids.ts), and other models' ids may hold other characters. Tool use and tool result map alike.
 */
function wireCallId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_') || 'call';
}
