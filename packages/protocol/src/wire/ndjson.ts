import type { HopStreamLine } from './hop-stream.js';

/** One line of a streamed hop as sent: its JSON and the `\n` that ends it (spec §6.1). */
export function encodeStreamLine(line: HopStreamLine): string {
  return `${JSON.stringify(line)}\n`;
}

/**
 * Cuts the text of an NDJSON body into lines as its chunks arrive. Each chunk is searched once, so the work is linear
 * in the body however it is cut; a line is returned only once its `\n` arrived, and blank lines are skipped.
 */
export class StreamLineDecoder {
  #partial: string[] = [];

  /** The complete lines this chunk ends, without their `\n`. */
  push(chunk: string): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      this.#partial.push(chunk.slice(start, end));
      const line = this.#partial.join('');
      this.#partial = [];
      if (line.trim() !== '') lines.push(line);
      start = end + 1;
    }
    if (start < chunk.length) this.#partial.push(chunk.slice(start));
    return lines;
  }

  /** What came after the last `\n` when the body ended: a line cut short (a lost response, spec §6.1), or `''`. */
  rest(): string {
    const rest = this.#partial.join('');
    this.#partial = [];
    return rest;
  }
}
