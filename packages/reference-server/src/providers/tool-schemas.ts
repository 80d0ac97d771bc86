import * as z from 'zod';
import type { ToolDefinition } from '@canvas-ai/protocol/server';

type Json = Record<string, unknown>;
const cache = new WeakMap<object, Json>();
const DEFS = '#/$defs/';

/**
 * A tool's input schema as JSON Schema for a model's function definition, made from the tool's own zod schema
 * (never written by hand), so what the model is told and what `execute` accepts cannot drift apart.
 * The protocol's schemas carry registry ids, which zod turns into `$ref`s — even at the top, where function
 * parameters must be `type: object` — so references are inlined; only recursive ones (JSON values) stay in `$defs`.
 */
export function toolParameters(tool: ToolDefinition): Json {
  let schema = cache.get(tool.input);
  if (!schema) {
    const { $schema: _ignored, ...generated } = z.toJSONSchema(tool.input, {
      io: 'input',
      unrepresentable: 'any',
    }) as Json;
    schema = inlineRefs(generated);
    cache.set(tool.input, schema);
  }
  return schema;
}

/** Replaces `$ref`s into `$defs` by their definitions, keeping a `$ref` only where inlining would never end. */
function inlineRefs(schema: Json): Json {
  const defs = (schema.$defs ?? {}) as Record<string, unknown>;
  const kept = new Set<string>();
  const walk = (node: unknown, stack: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, stack));
    if (node === null || typeof node !== 'object') return node;
    const { $ref, $defs: _defs, ...rest } = node as Json;
    const siblings = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, walk(value, stack)]));
    if (typeof $ref !== 'string' || !$ref.startsWith(DEFS))
      return $ref === undefined ? siblings : { $ref, ...siblings };
    const name = $ref.slice(DEFS.length);
    if (stack.includes(name) || !Object.hasOwn(defs, name)) {
      kept.add(name);
      return { $ref, ...siblings };
    }
    return { ...(walk(defs[name], [...stack, name]) as Json), ...siblings };
  };
  const root = walk(schema, []) as Json;
  const out: Record<string, unknown> = {};
  for (let added = true; added; ) {
    added = false;
    for (const name of [...kept]) {
      if (name in out || !Object.hasOwn(defs, name)) continue;
      out[name] = walk(defs[name], [name]);
      added = true;
    }
  }
  return Object.keys(out).length > 0 ? { ...root, $defs: out } : root;
}
