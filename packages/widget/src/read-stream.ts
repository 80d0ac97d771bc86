/**
 * Reads a streamed hop (spec §6.1, revision 1.4): NDJSON lines, each validated like a JSON response. The `outputs`
 * line (at most one, before any text) goes to `onOutputs` at once, `text` lines to `onText`, `keepalive` lines are
 * skipped, and the stream ends with one `response` line (the hop's response, as JSON would carry it) or one `error`
 * line (the error a JSON answer would have been). A stream that ends, or breaks, before either is a lost response: a
 * `network` error, which the retry rules send again (spec §8.2).
 */
import {
  check,
  type HopRequest,
  type HopResponse,
  type HopStreamLine,
  HopStreamLineChecker,
  type ToolOutput,
} from '@canvas-ai/protocol';
import { ndjsonLines } from './ndjson-lines.js';
import { checkHopResponse, httpError, invalidAnswer } from './check-response.js';
import { TurnError } from './turn-error.js';

/** What a streamed answer hands its reader before the response line (spec §6.1). */
export interface StreamHandlers {
  /** The `outputs` line: the outputs of the hop's executed calls. Awaited before the next line is read. */
  onOutputs?: ((outputs: ToolOutput[]) => void | Promise<void>) | undefined;
  /** A `text` line: a piece of the hop's model text, as it arrives. */
  onText?: ((delta: string) => void) | undefined;
  /** Aborting it ends the reading at once (a stop), whether or not the response's body noticed. */
  signal?: AbortSignal | undefined;
}

/**
 * The line types this client knows; a line of another type (a later revision's) is skipped (spec §7.1). Keyed by the
 * protocol's type, so a line type added there fails the type-check until it is listed here.
 */
const KNOWN_TYPES = new Set<string>(
  Object.keys({ outputs: true, text: true, keepalive: true, response: true, error: true } satisfies Record<
    HopStreamLine['type'],
    true
  >),
);

/** The `type` of a line, read before the line is validated against its own schema. */
const LineHead = check.object<{ type: string }>({ type: check.string() });

/** Reads a 200 `application/x-ndjson` answer to `request` into its response; see the module comment. */
export async function readHopStream(
  response: Response,
  request: HopRequest,
  handlers: StreamHandlers,
): Promise<HopResponse> {
  const hop = request.hop;
  const status = response.status;
  if (!response.body) throw lostAnswer(hop, undefined);
  const lines = ndjsonLines(response.body, handlers.signal);
  let outputsSeen = false;
  let textSeen = false;
  try {
    for (;;) {
      let next: IteratorResult<string>;
      try {
        next = await lines.next();
      } catch (error) {
        throw lostAnswer(hop, error);
      }
      if (next.done) throw lostAnswer(hop, undefined);
      const line = parseLine(next.value, hop, status);
      if (!line) continue;
      switch (line.type) {
        case 'outputs':
          // One outputs line, first: the client applies it the moment it arrives, so a second could not be undone.
          if (outputsSeen || textSeen) throw outOfOrder(hop, status, 'an outputs line after the outputs or the text');
          outputsSeen = true;
          await handlers.onOutputs?.(line.outputs);
          break;
        case 'text':
          textSeen = true;
          handlers.onText?.(line.delta);
          break;
        case 'keepalive':
          break;
        case 'response':
          return checkHopResponse(line.response, request, status);
        case 'error':
          throw httpError(line.status, '', line.error, hop);
      }
    }
  } finally {
    await lines.return(undefined);
  }
}

/** One line, validated; undefined for a line of a type this client does not know. */
function parseLine(text: string, hop: number, status: number): HopStreamLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TurnError('invalid_response', `The server's answer to hop ${hop} has a line that is not JSON.`, {
      hop,
      status,
    });
  }
  const head = LineHead.safeParse(value);
  if (!head.success) throw invalidAnswer(hop, status, head.error);
  if (!KNOWN_TYPES.has(head.data.type)) return undefined;
  const line = HopStreamLineChecker.safeParse(value);
  if (!line.success) throw invalidAnswer(hop, status, line.error);
  return line.data;
}

/** A stream that ended or broke before its last line: the response was lost, and the same hop goes again. */
function lostAnswer(hop: number, cause: unknown): TurnError {
  const why = cause instanceof Error ? `: ${cause.message}` : '';
  return new TurnError('network', `The server's answer to hop ${hop} broke off before its end${why}.`, {
    hop,
    cause,
  });
}

function outOfOrder(hop: number, status: number, what: string): TurnError {
  return new TurnError('invalid_response', `The server's answer to hop ${hop} sent ${what}.`, { hop, status });
}
