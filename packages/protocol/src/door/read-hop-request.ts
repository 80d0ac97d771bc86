import { readAttachments } from '../attachments/read-attachments.js';
import { DigestBuilder } from '../layout/digest-builder.js';
import type { DocumentDigest } from '../layout/document-digest.js';
import type { PropsPrints } from '../layout/props-json.js';
import { LAYOUT_STEP_WORK } from '../layout/plain-layout.js';
import { parseHopRequestBytes, type ParseResult } from '../parse/parse-hop-request.js';
import { HopError } from '../wire/errors.js';
import type { Attachment, HopRequest } from '../wire/hop-request.js';
import { LIMITS } from '../wire/limits.js';
import { nextMacrotask, type Pause, pauseFor, runSteps } from '../steps/steps.js';
import { readBody, type ReadBodyOptions } from './read-body.js';
import { readMultipart } from './read-multipart.js';

/** A hop request that passed the door, with hop 1's attachments. */
export interface DoorResult {
  request: HopRequest;
  attachments: Attachment[];
  /** Bytes of the body: what the request may still cost (a server may let a small one skip its turns). */
  bytes: number;
  /**
   * The fingerprint of the request's page (spec §16.1), built in the validating walk of its layout with
   * {@link DoorOptions.prints}; undefined without them, or when the layout missed that walk's fast path (a key the
   * schema strips): then the server builds it from the request (`digestDocument`).
   */
  digest?: DocumentDigest | undefined;
}

/** How {@link readHopRequest} bounds a request; every field has the protocol's default. */
export interface DoorOptions extends ReadBodyOptions {
  /** The largest multipart body (hop 1 with attachments). Default {@link LIMITS.maxBodyBytes}. */
  maxBodyBytes?: number;
  /** The largest JSON body, and multipart `request` part. Default {@link LIMITS.maxJsonBodyBytes} (never above `maxBodyBytes`). */
  maxJsonBodyBytes?: number;
  /**
   * Awaited before each step of the work (scan, parse, schema, layout checks, each window of a multipart body) of a
   * body over 256 KiB, so that no step of this request shares a turn of the event loop with another's (a smaller
   * body's steps are small, and run at once). Default: the next macrotask.
   */
  pause?: Pause;
  /** The hop's props cache: given, the page's fingerprint is built in the layout's validating walk ({@link DoorResult.digest}). */
  prints?: PropsPrints | undefined;
}

/**
 * Everything a hop request must pass before a server looks at the turn (spec §4 and the validation order of spec §7):
 * the content type (415: `application/json` or `multipart/form-data`, nothing else), the body size (413, before
 * parsing, counted as it streams; a JSON body and a multipart `request` part have their own, smaller limit), the JSON
 * bounds of spec §13 checked on the bytes before they are decoded, the JSON or multipart body (400 naming the field),
 * hop 1's attachments. The reference server (and so its msw mock) uses it. Throws a {@link HopError}; a request
 * refused here changes nothing.
 */
export async function readHopRequest(request: Request, options: DoorOptions = {}): Promise<DoorResult> {
  const contentType = request.headers.get('content-type') ?? '';
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json' && mediaType !== 'multipart/form-data') {
    throw new HopError(
      'unsupported_media_type',
      `Send the hop as application/json (or multipart/form-data with attachments on hop 1 or a screenshot), not ${JSON.stringify(contentType || 'no content type')}.`,
      { field: 'content-type' },
    );
  }
  const maxBodyBytes = options.maxBodyBytes ?? LIMITS.maxBodyBytes;
  const maxJsonBytes = Math.min(options.maxJsonBodyBytes ?? LIMITS.maxJsonBodyBytes, maxBodyBytes);
  const given = options.pause ?? nextMacrotask;
  if (mediaType === 'application/json') {
    const body = await readBody(request, maxJsonBytes, options);
    const pause = pauseFor(body.byteLength, given);
    const { request: parsed, digest } = await parseFingerprinted(body, options.prints, pause);
    return { request: parsed, attachments: [], bytes: body.byteLength, digest };
  }
  const body = await readBody(request, maxBodyBytes, options);
  const pause = pauseFor(body.byteLength, given);
  await pause();
  const parts = await readMultipart(
    body,
    contentType,
    { maxParts: LIMITS.maxMultipartParts, maxHeaderBytes: LIMITS.maxPartHeaderBytes },
    pause,
  );
  const part = parts.find((candidate) => candidate.name === 'request');
  if (part === undefined) {
    throw new HopError('missing_field', 'A multipart hop needs a "request" part holding the hop request JSON.', {
      field: 'request',
    });
  }
  if (part.body.byteLength > maxJsonBytes) {
    throw new HopError(
      'payload_too_large',
      `The "request" part is larger than ${maxJsonBytes} bytes; send a smaller page or transcript.`,
      { field: 'request' },
    );
  }
  const { request: parsed, digest } = await parseFingerprinted(part.body, options.prints, pause);
  const files = parts.filter((candidate) => candidate.name === 'attachments');
  // Hop 1 carries the user's images; later hops none, but the answer to a screenshot wait its one image (spec §4.3,
  // spec §20.3). Whether the turn waits for a screenshot is the hop's to check, after the turn rules.
  const screenshot = parsed.hop !== 1 && parsed.answer?.kind === 'screenshot';
  if (files.length > 0 && parsed.hop !== 1 && !screenshot) {
    throw new HopError(
      'attachment_rejected',
      'Attachments are sent with hop 1 only (and a screenshot with the answer that brings it); later hops are plain JSON.',
      { field: 'attachments', requestId: parsed.request_id },
    );
  }
  if (screenshot && files.length > 1) {
    throw new HopError('attachment_rejected', 'The answer to a screenshot carries one image, not several.', {
      field: 'attachments',
      requestId: parsed.request_id,
    });
  }
  return { request: parsed, attachments: readAttachments(files, parsed.request_id), bytes: body.byteLength, digest };
}

/** The request JSON parsed in steps, and with `prints` its page's fingerprint, built in the layout's validating walk. */
async function parseFingerprinted(
  bytes: Uint8Array,
  prints: PropsPrints | undefined,
  pause: Pause,
): Promise<{ request: HopRequest; digest: DocumentDigest | undefined }> {
  const builder = prints ? new DigestBuilder(prints) : undefined;
  const result = await runSteps(parseHopRequestBytes(bytes, builder), pause);
  const request = unwrap(result);
  const visited = result.success && result.visited;
  const digest =
    builder && visited
      ? await runSteps(builder.finishSteps(request.context.page, LAYOUT_STEP_WORK, LAYOUT_STEP_WORK), pause)
      : undefined;
  return { request, digest };
}

function unwrap(result: ParseResult): HopRequest {
  if (!result.success) throw result.error;
  return result.data;
}
