/**
 * Splits a byte stream into its `\n`-terminated lines (NDJSON, the streamed hop of spec §6), linear in the bytes:
 * each chunk is decoded once and searched once from where the last line ended; a line that spans chunks is kept as
 * its pieces and joined once, when its newline comes. The buffer is never re-scanned.
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
  const decoder = new TextDecoder();
  let pieces: string[] = [];
  let ended = false;
  try {
    for (;;) {
      if (signal?.aborted) return;
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        pieces.push(text.slice(start, end));
        const line = pieces.length === 1 ? pieces[0]! : pieces.join('');
        pieces = [];
        start = end + 1;
        const content = line.endsWith('\r') ? line.slice(0, -1) : line;
        if (content.trim().length > 0) yield content;
      }
      if (start < text.length) pieces.push(text.slice(start));
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
