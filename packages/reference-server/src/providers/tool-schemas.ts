import { z } from 'zod';
import type { ToolDefinition } from '@canvas-ai/protocol';

const cache = new WeakMap<object, Record<string, unknown>>();

/**
 * A tool's input schema as JSON Schema for a model's function definition, made from the tool's own zod schema
 * (never written by hand), so what the model is told and what `execute` accepts cannot drift apart.
 */
export function toolParameters(tool: ToolDefinition<any>): Record<string, unknown> {
  let schema = cache.get(tool.input);
  if (!schema) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    schema = rest;
    cache.set(tool.input, schema);
  }
  return schema;
}
