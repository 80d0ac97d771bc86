import { StreamLineDecoder } from '@canvas-ai/protocol';

/**
 * Reads a byte stream as its `\n`-terminated lines (NDJSON, the streamed hop of spec §6.1) with the protocol's
 * framing (`StreamLineDecoder`: each chunk searched once, so linear in the bytes however they are cut).
 */

/**
 * Yields each complete line of `body`, without its `\n` (nor a `\r` before it); blank lines are skipped. A last piece
 * without its `\n` is not a line: the stream may have been cut inside it, so it is dropped (the caller sees a stream
 * that ended early). The reader is released, and the stream cancelled when the caller stops early or `signal`
 * aborts (which ends the lines at once, even when the stream's source ignores the abort).
 */
export async function* ndjsonLines(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const cancel = (): void => void reader.cancel(signal?.reason).catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  const text = new TextDecoder();
  const lines = new StreamLineDecoder();
  let ended = false;
  try {
    for (;;) {
      if (signal?.aborted) return;
      const { done, value } = await reader.read();
      for (const line of lines.push(done ? text.decode() : text.decode(value, { stream: true }))) {
        // A chunk may hold several lines: none after an abort is handed over.
        if (signal?.aborted) return;
        yield line.endsWith('\r') ? line.slice(0, -1) : line;
      }
      if (done) {
        ended = true;
        return;
      }
    }
  } finally {
    signal?.removeEventListener('abort', cancel);
    // Stopped early (the final line came, or the caller threw): nothing more is read, so the connection is let go.
    if (!ended) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
