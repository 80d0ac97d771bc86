import * as z from 'zod/mini';

/**
 * Names or describes a schema for the generated JSON Schema and OpenAPI, as zod's `.meta()` does: the metadata goes
 * on a copy, so the schema copied keeps its own (a `PageValues` named from `JsonObject` leaves `JsonObject` unnamed).
 * The wire schemas are written in `zod/mini` so that a browser bundle holds only the zod it uses.
 */
export function withMeta<T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, meta);
  return copy;
}
