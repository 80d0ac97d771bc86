import * as z from 'zod';
import { HopErrorBody } from './errors.js';
import { HopResponse } from './hop-response.js';
import { ToolOutput } from './outputs.js';

/** The media type a client asks for (`Accept`) and a streaming server answers with (spec §6.1). */
export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';

/** The outputs of the parked calls this hop executed, sent before the model is called; equal to the response's. */
export const OutputsStreamLine = z
  .object({ type: z.literal('outputs'), outputs: z.array(ToolOutput) })
  .meta({ id: 'OutputsStreamLine' });
export type OutputsStreamLine = z.infer<typeof OutputsStreamLine>;

/** A piece of this hop's model text as it arrives; the pieces joined are the model's text, not yet trimmed. */
export const TextStreamLine = z.object({ type: z.literal('text'), delta: z.string() }).meta({ id: 'TextStreamLine' });
export type TextStreamLine = z.infer<typeof TextStreamLine>;

/** Sent after 15 seconds without another line, so a proxy keeps a quiet connection open; clients ignore it. */
export const KeepaliveStreamLine = z.object({ type: z.literal('keepalive') }).meta({ id: 'KeepaliveStreamLine' });
export type KeepaliveStreamLine = z.infer<typeof KeepaliveStreamLine>;

/** The last line of a hop that answered: the response the same hop gets as JSON. */
export const ResponseStreamLine = z
  .object({ type: z.literal('response'), response: HopResponse })
  .meta({ id: 'ResponseStreamLine' });
export type ResponseStreamLine = z.infer<typeof ResponseStreamLine>;

/** The last line of a hop that failed after the stream began: the HTTP status and body it has as JSON (spec §7). */
export const ErrorStreamLine = z
  .object({ type: z.literal('error'), status: z.int().min(400).max(599), error: HopErrorBody })
  .meta({ id: 'ErrorStreamLine' });
export type ErrorStreamLine = z.infer<typeof ErrorStreamLine>;

/**
 * One line of a streamed hop (revision 1.4, spec §6.1), discriminated on `type`: at most one `outputs` line first,
 * `text` lines, `keepalive` lines, and exactly one `response` or `error` line last.
 */
export const HopStreamLine = z
  .discriminatedUnion('type', [
    OutputsStreamLine,
    TextStreamLine,
    KeepaliveStreamLine,
    ResponseStreamLine,
    ErrorStreamLine,
  ])
  .meta({ id: 'HopStreamLine', description: 'One line of a streamed hop (application/x-ndjson).' });
export type HopStreamLine = z.infer<typeof HopStreamLine>;
