import { HopError } from '../wire/errors.js';
import type { Attachment } from '../wire/hop-request.js';
import { LIMITS } from '../wire/limits.js';
import { sniffImageType } from './sniff.js';

/**
 * Checks hop 1's `attachments` parts (spec/hop-protocol.md §4.3): at most {@link LIMITS.maxAttachments}, each a
 * file (not a text field) of at most {@link LIMITS.maxAttachmentBytes}, each a PNG, JPEG, WebP or GIF by its
 * bytes. Throws 400 `attachment_rejected` naming `attachments` or `attachments.N`, with `requestId` when known.
 */
export async function readAttachments(files: readonly (File | string)[], requestId?: string): Promise<Attachment[]> {
  if (files.length > LIMITS.maxAttachments) {
    throw new HopError(
      'attachment_rejected',
      `Attach at most ${LIMITS.maxAttachments} images; this request has ${files.length}.`,
      {
        field: 'attachments',
        requestId,
      },
    );
  }
  const attachments: Attachment[] = [];
  for (const [index, file] of files.entries()) {
    const field = `attachments.${index}`;
    if (typeof file === 'string') {
      throw new HopError(
        'attachment_rejected',
        `Each attachments part must be a file, not a text field (${field} is text).`,
        { field, requestId },
      );
    }
    if (file.size > LIMITS.maxAttachmentBytes) {
      throw new HopError(
        'attachment_rejected',
        `"${file.name}" is ${file.size} bytes; an attachment may have at most ${LIMITS.maxAttachmentBytes}.`,
        {
          field,
          requestId,
        },
      );
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    const mediaType = sniffImageType(bytes);
    if (!mediaType)
      throw new HopError('attachment_rejected', `"${file.name}" is not a PNG, JPEG, WebP or GIF image.`, {
        field,
        requestId,
      });
    attachments.push({ name: file.name || `attachment-${index + 1}`, mediaType, bytes });
  }
  return attachments;
}
