import { HopError, LIMITS, type Attachment, type AttachmentMediaType } from '@canvas-ai/protocol';

/** The image type the bytes really are (by magic bytes, DESIGN §3), or undefined for anything else. */
export function sniffImageType(bytes: Uint8Array): AttachmentMediaType | undefined {
  const starts = (signature: readonly number[], at = 0) => signature.every((byte, i) => bytes[at + i] === byte);
  const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts(ascii('GIF87a')) || starts(ascii('GIF89a'))) return 'image/gif';
  if (starts(ascii('RIFF')) && starts(ascii('WEBP'), 8)) return 'image/webp';
  return undefined;
}

/**
 * Checks hop 1's attached files: at most {@link LIMITS.maxAttachments}, each at most
 * {@link LIMITS.maxAttachmentBytes}, each a PNG, JPEG, WebP or GIF by its bytes (the declared type is not trusted).
 */
export async function readAttachments(files: readonly (File | string)[]): Promise<Attachment[]> {
  if (files.length > LIMITS.maxAttachments) {
    throw new HopError('attachment_rejected', `Attach at most ${LIMITS.maxAttachments} images; this request has ${files.length}.`, {
      field: 'attachments',
    });
  }
  const attachments: Attachment[] = [];
  for (const [index, file] of files.entries()) {
    const field = `attachments.${index}`;
    if (typeof file === 'string') {
      throw new HopError('attachment_rejected', 'Each attachments part must be a file, not a text field.', { field });
    }
    if (file.size > LIMITS.maxAttachmentBytes) {
      throw new HopError(
        'attachment_rejected',
        `"${file.name}" is ${file.size} bytes; an attachment may have at most ${LIMITS.maxAttachmentBytes}.`,
        { field },
      );
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    const mediaType = sniffImageType(bytes);
    if (!mediaType) {
      throw new HopError('attachment_rejected', `"${file.name}" is not a PNG, JPEG, WebP or GIF image.`, { field });
    }
    attachments.push({ name: file.name || `attachment-${index + 1}`, mediaType, bytes });
  }
  return attachments;
}
