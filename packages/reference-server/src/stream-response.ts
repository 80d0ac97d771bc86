import {
  encodeStreamLine,
  type HopResponse,
  type HopStreamLine,
  NDJSON_MEDIA_TYPE,
  type ToolOutput,
} from '@canvas-ai/protocol';
import { HopError, isHopError } from '@canvas-ai/protocol/server';
import type { HopEvents } from './hop-events.js';

/** The headers of a streamed hop (spec §6.1). */
export const STREAM_HEADERS = {
  'Content-Type': `${NDJSON_MEDIA_TYPE}; charset=utf-8`,
  'Cache-Control': 'no-store',
} as const;

/** A quiet stream gets a keepalive line after this long (spec §6.1). */
export const DEFAULT_KEEPALIVE_MS = 15_000;

/**
 * Whether a request's `Accept` names the NDJSON stream (with a q above 0). Media types compare without case and
 * parameters, as spec §4.1 says of `Content-Type`.
 */
export function wantsStream(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== NDJSON_MEDIA_TYPE) return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Runs a hop for a client that asked for a stream. A hop refused before it was admitted rejects, so its refusal is
 * a plain JSON error (spec §6.1); once admitted it resolves to the NDJSON body: the outputs and text lines as the
 * hop reports them, then its `response` line, or an `error` line when it fails. A client that goes away stops the
 * lines, never the hop.
 */
export function streamHop(
  run: (events: HopEvents) => Promise<HopResponse>,
  options: { keepaliveMs: number },
): Promise<ReadableStream<Uint8Array>> {
  return new Promise((resolve, reject) => {
    let lines: LineWriter | undefined;
    const begin = (): LineWriter => {
      if (!lines) {
        lines = new LineWriter(options.keepaliveMs);
        resolve(lines.body);
      }
      return lines;
    };
    const events: HopEvents = {
      admitted: () => void begin(),
      outputs: (outputs: readonly ToolOutput[]) => lines?.send({ type: 'outputs', outputs: [...outputs] }),
      text: (delta: string) => {
        if (delta !== '') lines?.send({ type: 'text', delta });
      },
    };
    run(events).then(
      (response) => begin().end({ type: 'response', response }),
      (error: unknown) => (lines ? lines.end(errorLine(error)) : reject(error)),
    );
  });
}

/** The last line of a hop that failed after its stream began: the status and body it has as JSON (spec §7). */
function errorLine(error: unknown): HopStreamLine {
  const hopError = isHopError(error)
    ? error
    : new HopError('internal_error', 'The server failed; the error is in its log.', { cause: error });
  return { type: 'error', status: hopError.status, error: hopError.toBody() };
}

/** Writes stream lines to a response body, with a keepalive after each quiet interval, until the last line. */
class LineWriter {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #open = true;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #keepaliveMs: number;
  readonly #encoder = new TextEncoder();

  constructor(keepaliveMs: number) {
    this.#keepaliveMs = keepaliveMs;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      // The client went away: stop writing. The hop runs on and stores its response for a retry (spec §8.2).
      cancel: () => this.#close(),
    });
    this.#arm();
  }

  send(line: HopStreamLine): void {
    if (!this.#open) return;
    this.#controller.enqueue(this.#encoder.encode(encodeStreamLine(line)));
    this.#arm();
  }

  end(line: HopStreamLine): void {
    if (!this.#open) return;
    this.send(line);
    this.#close();
    this.#controller.close();
  }

  #arm(): void {
    clearTimeout(this.#timer);
    if (this.#open) this.#timer = setTimeout(() => this.send({ type: 'keepalive' }), this.#keepaliveMs);
  }

  #close(): void {
    this.#open = false;
    clearTimeout(this.#timer);
  }
}
