/**
 * The lines of a streamed hop (spec §6, revision 1.4), as this client reads them. Kept here until the protocol
 * package exports its `HopStreamLine`; the shapes are those of stream-format decided for 1.4.
 */
import { HopErrorBody, HopResponse, ToolOutput } from '@canvas-ai/protocol';
import * as z from 'zod';

/** One NDJSON line of a streamed hop, discriminated on `type`. */
export const HopStreamLine = z.discriminatedUnion('type', [
  z.object({ type: z.literal('outputs'), outputs: z.array(ToolOutput) }),
  z.object({ type: z.literal('text'), delta: z.string() }),
  z.object({ type: z.literal('keepalive') }),
  z.object({ type: z.literal('response'), response: HopResponse }),
  z.object({ type: z.literal('error'), status: z.int().min(400).max(599), error: HopErrorBody }),
]);
export type HopStreamLine = z.infer<typeof HopStreamLine>;
