import { parseHopRequest, parseHopRequestJson } from '../parse/parse-hop-request.js';
import { HopError } from '../wire/errors.js';
import type { Attachment, AttachmentMediaType, HopRequest } from '../wire/hop-request.js';
import { LIMITS } from '../wire/limits.js';

/** A hop request as the mock received it: the validated request and hop 1's attachments. */
export interface ReceivedHop {
  request: HopRequest;
  attachments: Attachment[];
}

/**
 * Reads a hop's body like a server's door (spec/hop-protocol.md §4): JSON, or on hop 1 multipart with a `request` part and `attachments`
 * file parts, each checked by its magic bytes. Throws a {@link HopError} for anything the protocol rejects.
 */
export async function readHopBody(request: Request): Promise<ReceivedHop> {
  const length = Number(request.headers.get('content-length') ?? '0');
  if (length > LIMITS.maxBodyBytes) {
    throw new HopError('payload_too_large', `The body has ${length} bytes; the limit is ${LIMITS.maxBodyBytes}.`);
  }
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) {
    return { request: unwrap(parseHopRequestJson(await request.text())), attachments: [] };
  }
  if (type === 'multipart/form-data') return readMultipart(request);
  throw new HopError(
    'unsupported_media_type',
    `Send the hop as application/json (or multipart/form-data on hop 1), not ${type ? `"${type}"` : 'a body without a Content-Type'}.`,
  );
}

async function readMultipart(request: Request): Promise<ReceivedHop> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch (error) {
    throw new HopError('invalid_request', `The multipart body cannot be read: ${(error as Error).message}`);
  }
  const part = form.get('request');
  if (part === null) throw new HopError('missing_field', 'A multipart hop needs a "request" part holding the JSON request.', { field: 'request' });
  const hop = unwrap(parseHopRequestJson(typeof part === 'string' ? part : await part.text()));
  const requestId = hop.request_id;
  if (hop.hop !== 1) {
    throw new HopError('attachment_rejected', 'Only hop 1 may carry attachments; send later hops as application/json.', { requestId, field: 'attachments' });
  }
  const files = form.getAll('attachments');
  if (files.length > LIMITS.maxAttachments) {
    throw new HopError('attachment_rejected', `At most ${LIMITS.maxAttachments} attachments per message, not ${files.length}.`, { requestId, field: 'attachments' });
  }
  const attachments: Attachment[] = [];
  for (const [index, file] of files.entries()) {
    const field = `attachments.${index}`;
    if (typeof file === 'string') throw new HopError('attachment_rejected', `${field} must be a file part, not a text field.`, { requestId, field });
    if (file.size > LIMITS.maxAttachmentBytes) {
      throw new HopError('attachment_rejected', `${field} has ${file.size} bytes; the limit is ${LIMITS.maxAttachmentBytes}.`, { requestId, field });
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    const mediaType = sniffImageType(bytes);
    if (mediaType === undefined) {
      throw new HopError('attachment_rejected', `${field} is not a PNG, JPEG, WebP or GIF image.`, { requestId, field });
    }
    attachments.push({ name: file.name || `attachment-${index + 1}`, mediaType, bytes });
  }
  return { request: hop, attachments };
}

/** The image type by magic bytes (the declared type is not trusted), or undefined. */
export function sniffImageType(bytes: Uint8Array): AttachmentMediaType | undefined {
  const starts = (...signature: number[]): boolean => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  const ascii = (from: number, to: number): string => String.fromCharCode(...bytes.subarray(from, to));
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'image/gif';
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

function unwrap(result: ReturnType<typeof parseHopRequest>): HopRequest {
  if (!result.success) throw result.error;
  return result.data;
}
