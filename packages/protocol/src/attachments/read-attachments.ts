import { HopError } from '../wire/errors.js';
import type { Attachment } from '../wire/hop-request.js';
import { LIMITS } from '../wire/limits.js';
import { sniffImageType } from './sniff.js';

/** One part of a `multipart/form-data` body (what the door's `readMultipart` splits a body into). */
export interface MultipartPart {
  /** The `name` of its `Content-Disposition`. */
  name: string;
  /** The `filename`, when the part is a file (a part without one is a text field). */
  filename: string | undefined;
  /** Its `Content-Type`, as declared (never trusted for attachments: their bytes decide). */
  contentType: string | undefined;
  /** Its bytes: a view into the body, not a copy. */
  body: Uint8Array;
}

/**
 * Checks hop 1's `attachments` parts (spec/hop-protocol.md §4.3): at most {@link LIMITS.maxAttachments}, each a
 * file (a part with a file name, not a text field) of at most {@link LIMITS.maxAttachmentBytes}, each a PNG, JPEG,
 * WebP or GIF by its bytes. Throws 400 `attachment_rejected` naming `attachments` or `attachments.N`, with `requestId`
 * when known. Messages name the part, never the file: a file name is the client's text, and error messages are shown
 * to people (spec §7).
 */
export function readAttachments(parts: readonly MultipartPart[], requestId?: string): Attachment[] {
  if (parts.length > LIMITS.maxAttachments) {
    throw new HopError(
      'attachment_rejected',
      `Attach at most ${LIMITS.maxAttachments} images; this request has ${parts.length}.`,
      {
        field: 'attachments',
        requestId,
      },
    );
  }
  const attachments: Attachment[] = [];
  for (const [index, part] of parts.entries()) {
    const field = `attachments.${index}`;
    const which = `Attachment ${index + 1}`;
    if (part.filename === undefined) {
      throw new HopError(
        'attachment_rejected',
        `Each attachments part must be a file, not a text field (${field} is text).`,
        { field, requestId },
      );
    }
    if (part.body.byteLength > LIMITS.maxAttachmentBytes) {
      throw new HopError(
        'attachment_rejected',
        `${which} is ${part.body.byteLength} bytes; an attachment may have at most ${LIMITS.maxAttachmentBytes}.`,
        { field, requestId },
      );
    }
    const mediaType = sniffImageType(part.body);
    if (!mediaType)
      throw new HopError('attachment_rejected', `${which} is not a PNG, JPEG, WebP or GIF image.`, {
        field,
        requestId,
      });
    attachments.push({ name: part.filename || `attachment-${index + 1}`, mediaType, bytes: part.body });
  }
  return attachments;
}
