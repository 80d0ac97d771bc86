import { readAttachments } from '../attachments/read-attachments.js';
import { parseHopRequestJson, type ParseResult } from '../parse/parse-hop-request.js';
import { HopError } from '../wire/errors.js';
import type { Attachment, HopRequest } from '../wire/hop-request.js';
import { LIMITS } from '../wire/limits.js';
import { readBody } from './read-body.js';

/** A hop request that passed the door, with hop 1's attachments. */
export interface DoorResult {
  request: HopRequest;
  attachments: Attachment[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Everything a hop request must pass before a server looks at the turn (spec §4 and the validation order of spec §7):
 * order): the content type (415: `application/json` or `multipart/form-data`, nothing else), the body size (413,
 * before parsing, counted as it streams), the JSON or multipart body (400 naming the field), hop 1's attachments.
 * The reference server (and so its msw mock) uses it. Throws a {@link HopError}; a request refused here changes nothing.
 */
export async function readHopRequest(
  request: Request,
  maxBodyBytes: number = LIMITS.maxBodyBytes,
): Promise<DoorResult> {
  const contentType = request.headers.get('content-type') ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json' && mediaType !== 'multipart/form-data') {
    throw new HopError(
      'unsupported_media_type',
      `Send the hop as application/json (or multipart/form-data with attachments on hop 1), not ${JSON.stringify(contentType || 'no content type')}.`,
      { field: 'content-type' },
    );
  }
  const body = await readBody(request, maxBodyBytes);
  if (mediaType === 'application/json') return { request: unwrap(parseJson(body)), attachments: [] };
  return readMultipart(body, contentType);
}

function parseJson(body: Uint8Array): ParseResult {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { success: false, error: new HopError('invalid_json', 'The body is not UTF-8 text.') };
  }
  return parseHopRequestJson(text);
}

function unwrap(result: ParseResult): HopRequest {
  if (!result.success) throw result.error;
  return result.data;
}

async function readMultipart(body: Uint8Array<ArrayBuffer>, contentType: string): Promise<DoorResult> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new HopError('invalid_request', 'The multipart body could not be read; check its boundary and parts.');
  }
  const part = form.get('request');
  if (part === null) {
    throw new HopError('missing_field', 'A multipart hop needs a "request" part holding the hop request JSON.', {
      field: 'request',
    });
  }
  const text = typeof part === 'string' ? part : await part.text();
  const request = unwrap(parseHopRequestJson(text));
  const files = form.getAll('attachments');
  if (files.length > 0 && request.hop !== 1) {
    throw new HopError('attachment_rejected', 'Attachments are sent with hop 1 only; later hops are plain JSON.', {
      field: 'attachments',
      requestId: request.request_id,
    });
  }
  return { request, attachments: await readAttachments(files, request.request_id) };
}
