// A streamed hop (spec §6, revision 1.4) written by hand, line by line, for the edge cases: the test holds the
// stream open between lines, so what the page does before the response line is observed, not timed.
import type { HopRequest } from '@canvas-ai/protocol';
import { HttpResponse } from 'msw';
import type { HopStep } from './hop-server.js';

/** The writing end of one streamed answer. */
export interface StreamWriter {
  /** Writes one line: the object as JSON, then `\n`. */
  send(line: unknown): void;
  /** Ends the stream (a stream without its last line is a lost response). */
  close(): void;
  /** Breaks the stream, as a dropped connection would. */
  cut(): void;
}

/** A hop step that answers with a stream; `write` is handed the request and the stream's writing end. */
export function streamed(write: (body: HopRequest, stream: StreamWriter) => void | Promise<void>): HopStep {
  return (body) => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const readable = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
    });
    const encoder = new TextEncoder();
    const writer: StreamWriter = {
      send: (line) => controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`)),
      close: () => controller.close(),
      cut: () => controller.error(new TypeError('connection reset')),
    };
    void write(body, writer);
    return new HttpResponse(readable, {
      headers: { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' },
    });
  };
}
