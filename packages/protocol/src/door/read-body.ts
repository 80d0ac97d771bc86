import { HopError } from '../wire/errors.js';

/**
 * Reads a request body up to `maxBytes`, refusing with 413 `payload_too_large` before anything is parsed
 * (spec/hop-protocol.md §4.1): first from the declared `Content-Length`, then by counting the bytes as they stream in
 * (a chunked body declares nothing, and a declared length may lie).
 */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () =>
    new HopError(
      'payload_too_large',
      `The request body is larger than ${maxBytes} bytes; send fewer or smaller attachments.`,
    );
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array(0);

  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
