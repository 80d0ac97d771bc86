import * as z from 'zod';
import { HopRequest } from '../wire/hop-request.js';
import { FORBIDDEN_KEYS, SafeKey } from '../wire/json.js';
import { DerivedProps } from '../wire/layout.js';
import type { SpecMessage } from './messages.js';
import { schemaFileName } from './messages.js';

/** A JSON Schema document as plain data. */
export type JsonSchema = { [key: string]: unknown };

/** Where the published schemas live: every file's `$id` starts with this. */
export const SCHEMA_BASE_URI = 'https://canvas-ai.dev/schema/v1/';

/**
 * Rules our zod schemas check in code (refinements), which `z.toJSONSchema()` cannot see, written back as JSON
 * Schema where JSON Schema can say them, so a validator in another language rejects what we reject.
 * The json-schema test proves each one against zod.
 */
function addRefinements(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }): void {
  const def = ctx.zodSchema._zod.def;
  if (def.type === 'object' && def.catchall === undefined && ctx.jsonSchema.additionalProperties === false) {
    // zod says "no other keys" for the output of a plain object because parsing strips them; on the wire the rule is
    // the opposite: receivers ignore unknown fields, so a newer sender's extra fields must still validate.
    delete ctx.jsonSchema.additionalProperties;
  }
  if (ctx.zodSchema === SafeKey) {
    ctx.jsonSchema.not = { enum: [...FORBIDDEN_KEYS] };
  }
  if (ctx.zodSchema === DerivedProps && typeof ctx.jsonSchema.items === 'object') {
    // A derived prop's name is a prop name: never one of the keys the pollution guard refuses (spec §10.1).
    (ctx.jsonSchema.items as JsonSchema).not = { enum: [...FORBIDDEN_KEYS] };
  }
  if (ctx.zodSchema === HopRequest) {
    // Hop 1 starts the turn: it needs the transcript. (That its last message is the user's cannot be said here.)
    ctx.jsonSchema.if = { properties: { hop: { const: 1 } }, required: ['hop'] };
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
    ctx.jsonSchema.then = { required: ['messages'], properties: { messages: { type: 'array', minItems: 1 } } };
  }
}

/** Converts one schema with zod's own generator: every schema with a registry id lands in `$defs`. */
export function convert(message: Pick<SpecMessage, 'schema' | 'io'>): {
  root: string;
  defs: Record<string, JsonSchema>;
} {
  const generated = z.toJSONSchema(message.schema, {
    target: 'draft-2020-12',
    io: message.io,
    override: addRefinements,
  }) as JsonSchema;
  const ref = generated.$ref;
  const defs = (generated.$defs ?? {}) as Record<string, JsonSchema>;
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) {
    throw new Error(
      'a top-level spec message needs a registry id (.meta({ id })) so it is emitted as a named definition',
    );
  }
  return { root: ref.slice('#/$defs/'.length), defs };
}

/** Replaces every `$ref` string found in `value` by `rewrite(ref)`; returns a new value. */
export function rewriteRefs(value: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, rewrite));
  if (value === null || typeof value !== 'object') return value;
  const copy: JsonSchema = {};
  for (const [key, child] of Object.entries(value)) {
    copy[key] = key === '$ref' && typeof child === 'string' ? rewrite(child) : rewriteRefs(child, rewrite);
  }
  return copy;
}

/** An object with its keys sorted, so the order of a generated map never depends on traversal order. */
export function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The standalone JSON Schema (2020-12) file of one top-level message: the message itself at the root, with a
 * stable `$id`, a `title` and a description, and every named schema it uses under `$defs`.
 */
export function messageSchema(message: SpecMessage): JsonSchema {
  const { root, defs } = convert(message);
  if (root !== message.id)
    throw new Error(`SPEC_MESSAGES names ${message.id}, but the schema's registry id is ${root}`);
  const { [root]: rootDef, ...rest } = defs;
  if (rootDef === undefined) throw new Error(`zod emitted no definition for ${root}`);
  const self = `#/$defs/${root}`;
  const rootSchema = rewriteRefs(rootDef, (ref) => (ref === self ? '#' : ref)) as JsonSchema;
  const restDefs = rewriteRefs(rest, (ref) => (ref === self ? '#' : ref)) as Record<string, JsonSchema>;
  const { description: ownDescription, ...body } = rootSchema;
  const description = ownDescription ?? message.description;
  if (typeof description !== 'string')
    throw new Error(`give ${message.id} a description (in its .meta or in SPEC_MESSAGES)`);
  const document: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${SCHEMA_BASE_URI}${schemaFileName(message.id)}`,
    title: message.id,
    description,
    ...body,
  };
  if (Object.keys(restDefs).length > 0) document.$defs = sortKeys(restDefs);
  return document;
}
