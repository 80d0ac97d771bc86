import { HopStreamLine, NDJSON_MEDIA_TYPE, StreamLineDecoder } from '@canvas-ai/protocol';

/** What a streamed hop's client asks with: the reference widget's `Accept`. */
export const STREAM_ACCEPT = `${NDJSON_MEDIA_TYPE}, application/json;q=0.9`;

/**
 * Reads an NDJSON body line by line as it arrives, each validated as a `HopStreamLine` (a line that is not one
 * throws). `next()` resolves with the next line, or undefined at the end of the body.
 */
export class StreamReader {
  readonly lines: HopStreamLine[] = [];
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #text = new TextDecoder();
  #decoder = new StreamLineDecoder();
  #queued: string[] = [];
  /** What followed the last newline when the body ended ('' for a well-formed body). */
  rest = '';

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  async next(): Promise<HopStreamLine | undefined> {
    while (this.#queued.length === 0) {
      const { done, value } = await this.#reader.read();
      if (done) {
        this.#queued.push(...this.#decoder.push(this.#text.decode()));
        this.rest = this.#decoder.rest();
        if (this.#queued.length === 0) return undefined;
        break;
      }
      this.#queued.push(...this.#decoder.push(this.#text.decode(value, { stream: true })));
    }
    const line = HopStreamLine.parse(JSON.parse(this.#queued.shift()!));
    this.lines.push(line);
    return line;
  }

  /** Reads lines until one of this type; throws if the body ends first. */
  async until<T extends HopStreamLine['type']>(type: T): Promise<Extract<HopStreamLine, { type: T }>> {
    for (let line = await this.next(); line; line = await this.next()) {
      if (line.type === type) return line as Extract<HopStreamLine, { type: T }>;
    }
    throw new Error(`the stream ended without a ${type} line`);
  }

  /** Every line to the end of the body. */
  async all(): Promise<HopStreamLine[]> {
    while (await this.next());
    return this.lines;
  }

  /** Stops reading: the client goes away. */
  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

/** What the stream rules of spec §6.1 find wrong with a whole stream's lines (empty: nothing). */
export function streamProblems(lines: readonly HopStreamLine[]): string[] {
  const problems: string[] = [];
  const last = lines.at(-1);
  if (!last || (last.type !== 'response' && last.type !== 'error'))
    problems.push('the last line is no response or error');
  const finals = lines.filter((line) => line.type === 'response' || line.type === 'error').length;
  if (finals !== 1) problems.push(`${finals} response or error lines, not one`);
  const outputs = lines.filter((line) => line.type === 'outputs');
  if (outputs.length > 1) problems.push(`${outputs.length} outputs lines`);
  const firstText = lines.findIndex((line) => line.type === 'text');
  if (outputs.length === 1 && firstText !== -1 && firstText < lines.indexOf(outputs[0]!))
    problems.push('a text line before the outputs line');
  if (last?.type === 'response') {
    const sent = outputs[0]?.outputs ?? [];
    if (JSON.stringify(sent) !== JSON.stringify(last.response.outputs))
      problems.push("the outputs line differs from the response's outputs");
    if (outputs.length === 1 && sent.length === 0) problems.push('an outputs line without outputs');
  }
  return problems;
}

/** The pieces of the model's text a stream carried, joined. */
export function streamedText(lines: readonly HopStreamLine[]): string {
  return lines.map((line) => (line.type === 'text' ? line.delta : '')).join('');
}
