import type { AttachmentMediaType } from '../wire/hop-request.js';

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = ascii('GIF87a');
const GIF89 = ascii('GIF89a');
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');

/**
 * The image type the bytes really are, by their first bytes (spec/hop-protocol.md §4.3), or undefined for anything
 * else. The declared type and the file name are never trusted.
 */
export function sniffImageType(bytes: Uint8Array): AttachmentMediaType | undefined {
  const starts = (signature: readonly number[], at = 0): boolean =>
    signature.every((byte, i) => bytes[at + i] === byte);
  if (starts(PNG)) return 'image/png';
  if (starts(JPEG)) return 'image/jpeg';
  if (starts(GIF87) || starts(GIF89)) return 'image/gif';
  if (starts(RIFF) && starts(WEBP, 8)) return 'image/webp';
  return undefined;
}
