import * as z from 'zod/mini';
import { withMeta } from './meta.js';
import { HopErrorBody } from './errors.js';
import { HopResponse } from './hop-response.js';
import { ToolOutput } from './outputs.js';

/** The outputs of the parked calls this hop executed, sent before the model is called; equal to the response's. */
export const OutputsStreamLine = withMeta(z.object({ type: z.literal('outputs'), outputs: z.array(ToolOutput) }), {
  id: 'OutputsStreamLine',
});
export type OutputsStreamLine = z.infer<typeof OutputsStreamLine>;

/** A piece of this hop's model text as it arrives; the pieces joined are the model's text, not yet trimmed. */
export const TextStreamLine = withMeta(z.object({ type: z.literal('text'), delta: z.string() }), {
  id: 'TextStreamLine',
});
export type TextStreamLine = z.infer<typeof TextStreamLine>;

/** Sent after 15 seconds without another line, so a proxy keeps a quiet connection open; clients ignore it. */
export const KeepaliveStreamLine = withMeta(z.object({ type: z.literal('keepalive') }), { id: 'KeepaliveStreamLine' });
export type KeepaliveStreamLine = z.infer<typeof KeepaliveStreamLine>;

/** The last line of a hop that answered: the response the same hop gets as JSON. */
export const ResponseStreamLine = withMeta(z.object({ type: z.literal('response'), response: HopResponse }), {
  id: 'ResponseStreamLine',
});
export type ResponseStreamLine = z.infer<typeof ResponseStreamLine>;

/** The last line of a hop that failed after the stream began: the HTTP status and body it has as JSON (spec §7). */
export const ErrorStreamLine = withMeta(
  z.object({
    type: z.literal('error'),
    status: z.int().check(z.minimum(400), z.maximum(599)),
    error: HopErrorBody,
  }),
  { id: 'ErrorStreamLine' },
);
export type ErrorStreamLine = z.infer<typeof ErrorStreamLine>;

/**
 * One line of a streamed hop (revision 1.4, spec §6.1), discriminated on `type`: at most one `outputs` line first,
 * `text` lines, `keepalive` lines, and exactly one `response` or `error` line last.
 */
export const HopStreamLine = withMeta(
  z.discriminatedUnion('type', [
    OutputsStreamLine,
    TextStreamLine,
    KeepaliveStreamLine,
    ResponseStreamLine,
    ErrorStreamLine,
  ]),
  { id: 'HopStreamLine', description: 'One line of a streamed hop (application/x-ndjson).' },
);
export type HopStreamLine = z.infer<typeof HopStreamLine>;
