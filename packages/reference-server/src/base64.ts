/**
 * Bytes as base64 with the runtime's own encoder: `Uint8Array.prototype.toBase64` where it exists (browsers), else
 * Node's and Bun's `Buffer`, else a table. Never `String.fromCharCode` + `btoa`, which builds a binary string as
 * long as the bytes first: a second of event loop for a few 5 MB attachments.
 */
export function toBase64(bytes: Uint8Array): string {
  const native = (bytes as Uint8Array & { toBase64?: () => string }).toBase64;
  if (typeof native === 'function') return native.call(bytes);
  const NodeBuffer = (globalThis as { Buffer?: NodeBufferLike }).Buffer;
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  return tableBase64(bytes);
}

/** Unpadded base64url (RFC 4648, section 5), for ids and tokens. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

interface NodeBufferLike {
  from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'base64'): string };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The encoder of last resort: three bytes to four characters, joined once per 48 KB slice. */
function tableBase64(bytes: Uint8Array): string {
  const slices: string[] = [];
  for (let start = 0; start < bytes.length; start += 49_152) {
    const end = Math.min(bytes.length, start + 49_152);
    const chars: string[] = [];
    for (let at = start; at < end; at += 3) {
      const a = bytes[at]!;
      const b = at + 1 < end ? bytes[at + 1]! : 0;
      const c = at + 2 < end ? bytes[at + 2]! : 0;
      chars.push(
        ALPHABET[a >> 2]!,
        ALPHABET[((a & 3) << 4) | (b >> 4)]!,
        at + 1 < end ? ALPHABET[((b & 15) << 2) | (c >> 6)]! : '=',
        at + 2 < end ? ALPHABET[c & 63]! : '=',
      );
    }
    slices.push(chars.join(''));
  }
  return slices.join('');
}
