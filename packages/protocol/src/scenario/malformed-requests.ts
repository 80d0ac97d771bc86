import * as z from 'zod';
import { ErrorCodeSchema } from '../wire/errors.js';

/**
 * One row of fixtures/malformed-requests.yaml: a bad hop request and the error it must get.
 * `body` is sent as JSON; `raw` is sent verbatim (for bodies YAML cannot express, such as `__proto__` keys).
 */
export const MalformedRequestCase = z
  .object({
    name: z.string().min(1),
    body: z.unknown().optional(),
    raw: z.string().optional(),
    content_type: z.string().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    expect: z.object({ status: z.int(), code: ErrorCodeSchema, field: z.string().optional() }),
  })
  .refine((row) => (row.body === undefined) !== (row.raw === undefined), {
    message: 'give exactly one of body and raw',
  })
  .meta({ id: 'MalformedRequestCase' });
export type MalformedRequestCase = z.infer<typeof MalformedRequestCase>;

/** The table of malformed requests. */
export const MalformedRequestTable = z.array(MalformedRequestCase).min(1).meta({ id: 'MalformedRequestTable' });

/** The exact body text a row sends. */
export function malformedRequestBody(row: MalformedRequestCase): string {
  return row.raw ?? JSON.stringify(row.body);
}
