import * as z from 'zod/mini';
import { refineBy } from './refinements.js';

export { FORBIDDEN_KEYS } from './predicates.js';

/** A key of a free-form map on the wire: any string but the prototype-polluting ones. */
export const SafeKey = z
  .string()
  .check(refineBy('isSafeKey', [], { message: 'this key is not allowed (prototype pollution guard)' }));

/** Any JSON value whose object keys are all {@link SafeKey}s. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Any JSON value whose object keys are all {@link SafeKey}s. */
export const JsonValue: z.ZodMiniType<JsonValue> = z
  .lazy(() =>
    z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(SafeKey, JsonValue)]),
  )
  .register(z.globalRegistry, { id: 'JsonValue', description: 'Any JSON value.' });

/** A JSON object whose keys are all {@link SafeKey}s. */
export const JsonObject = z.record(SafeKey, JsonValue);
/** A JSON object whose keys are all {@link SafeKey}s. */
export type JsonObject = z.infer<typeof JsonObject>;
