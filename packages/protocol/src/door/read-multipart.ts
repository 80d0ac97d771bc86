import { HopError } from '../wire/errors.js';
import type { MultipartPart } from '../attachments/read-attachments.js';
import type { Pause } from '../steps/steps.js';

/** The bounds {@link readMultipart} holds a body to. */
export interface MultipartLimits {
  /** Parts in the body, those the server ignores included. */
  maxParts: number;
  /** Bytes of one part's header block. */
  maxHeaderBytes: number;
}

const CR = 0x0d;
const LF = 0x0a;
const DASH = 0x2d;
/** Bytes searched for the next delimiter between two pauses: a few milliseconds of work even on hostile bytes. */
const SEARCH_WINDOW = 512 * 1024;

const headerText = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/**
 * Splits a `multipart/form-data` body into its parts (RFC 7578), bounded before the work is spent: at most
 * `maxParts` parts and `maxHeaderBytes` of headers per part, or 400 `invalid_request` at once; the delimiter is
 * searched window by window with `pause` in between, so no search of a large upload holds the event loop. Part
 * bodies are views into `body`: nothing is copied.
 */
export async function readMultipart(
  body: Uint8Array,
  contentType: string,
  limits: MultipartLimits,
  pause: Pause,
): Promise<MultipartPart[]> {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) throw unreadable('its Content-Type names no valid boundary');
  const dashBoundary = encoder.encode(`--${boundary}`);
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const search = searcher(body);

  // The first delimiter opens the body; anything before it is a preamble to ignore.
  let at: number;
  if (startsWith(body, 0, dashBoundary)) at = dashBoundary.length;
  else {
    const first = await findWindowed(search, delimiter, 0, body.length, pause);
    if (first < 0) throw unreadable('it holds no boundary');
    at = first + delimiter.length;
  }
  const parts: MultipartPart[] = [];
  for (;;) {
    if (body[at] === DASH && body[at + 1] === DASH) return parts;
    // Transport padding (whitespace) may follow a delimiter before its line break.
    while (body[at] === 0x20 || body[at] === 0x09) at += 1;
    if (body[at] !== CR || body[at + 1] !== LF) throw unreadable('a boundary is not followed by a line break');
    at += 2;
    if (parts.length === limits.maxParts) {
      throw new HopError(
        'invalid_request',
        `The multipart body has more than ${limits.maxParts} parts; send the request and at most a few attachments.`,
      );
    }
    const headerEnd = headerBlockEnd(body, at, limits.maxHeaderBytes);
    const headers = parseHeaders(body.subarray(at, headerEnd));
    const start = headerEnd + (headerEnd === at ? 2 : 4);
    const end = await findWindowed(search, delimiter, start, body.length, pause);
    if (end < 0) throw unreadable('it has no closing boundary');
    const disposition = headers.get('content-disposition');
    const name = disposition === undefined ? undefined : dispositionParam(disposition, 'name');
    if (name === undefined) throw unreadable('a part has no Content-Disposition name');
    parts.push({
      name,
      filename: disposition === undefined ? undefined : fileName(disposition),
      contentType: headers.get('content-type'),
      body: body.subarray(start, end),
    });
    at = end + delimiter.length;
  }
}

function unreadable(why: string): HopError {
  return new HopError(
    'invalid_request',
    `The multipart body could not be read (${why}); check its boundary and parts.`,
  );
}

/** The boundary parameter of a multipart Content-Type (RFC 2046: 1–70 characters), or undefined. */
function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"\r\n]{1,70})"|([^\s;"]{1,70}))\s*(?:;|$)/i.exec(contentType);
  return match ? (match[1] ?? match[2]) : undefined;
}

/** Where the header block starting at `from` ends (the offset of its blank line), within `maxBytes`, or 400. */
function headerBlockEnd(body: Uint8Array, from: number, maxBytes: number): number {
  if (body[from] === CR && body[from + 1] === LF) return from;
  const limit = Math.min(body.length, from + maxBytes + 4);
  for (let at = body.indexOf(CR, from); at >= 0 && at + 3 < limit; at = body.indexOf(CR, at + 1)) {
    if (body[at + 1] === LF && body[at + 2] === CR && body[at + 3] === LF) return at;
  }
  if (limit < body.length) {
    throw new HopError('invalid_request', `A part of the multipart body has more than ${maxBytes} bytes of headers.`);
  }
  throw unreadable('a part has no end of its headers');
}

/** A part's headers by lower-cased name (the first of each name counts). */
function parseHeaders(block: Uint8Array): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of headerText.decode(block).split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

/** A parameter of a Content-Disposition value (`name="request"`), quoted or not; browsers escape `"` as `%22`. */
function dispositionParam(value: string, param: string): string | undefined {
  const pattern = new RegExp(`;\\s*${param}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i');
  const match = pattern.exec(value);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

/** The file name of a part: `filename*` (RFC 5987, UTF-8) when given, else `filename`; undefined for a text field. */
function fileName(disposition: string): string | undefined {
  const extended = dispositionParam(disposition, 'filename\\*');
  if (extended !== undefined) {
    const encoded = /^utf-8''(.*)$/i.exec(extended)?.[1];
    if (encoded !== undefined) {
      try {
        return decodeURIComponent(encoded);
      } catch {
        // A malformed escape: fall back to the plain filename.
      }
    }
  }
  return dispositionParam(disposition, 'filename');
}

function startsWith(body: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (body.length - at < prefix.length) return false;
  for (let index = 0; index < prefix.length; index += 1) if (body[at + index] !== prefix[index]) return false;
  return true;
}

/** Finds `needle` in `[from, to)` of the body: the first offset, or -1. */
type Search = (needle: Uint8Array, from: number, to: number) => number;

/** Searches window by window, pausing between windows. */
async function findWindowed(search: Search, needle: Uint8Array, from: number, to: number, pause: Pause) {
  for (let start = from; start < to; start += SEARCH_WINDOW) {
    if (start > from) await pause();
    // Windows overlap by the needle's length, so a delimiter across two windows is found.
    const found = search(needle, start, Math.min(to, start + SEARCH_WINDOW + needle.length - 1));
    if (found >= 0) return found;
  }
  return -1;
}

/**
 * The fastest search the runtime offers: Node's (and Bun's) native `Buffer#indexOf`, else a Knuth–Morris–Pratt
 * scan, linear whatever the bytes and the boundary (both chosen by the client).
 */
function searcher(body: Uint8Array): Search {
  const NodeBuffer = (
    globalThis as {
      Buffer?: { from(buffer: ArrayBufferLike, offset: number, length: number): Uint8Array };
    }
  ).Buffer;
  if (NodeBuffer) {
    const buffer = NodeBuffer.from(body.buffer, body.byteOffset, body.byteLength);
    return (needle, from, to) => {
      const found = buffer.subarray(from, to).indexOf(needle as never);
      return found < 0 ? -1 : from + found;
    };
  }
  return (needle, from, to) => kmpIndexOf(body, needle, from, to);
}

function kmpIndexOf(haystack: Uint8Array, needle: Uint8Array, from: number, to: number): number {
  const failure = new Int32Array(needle.length);
  for (let index = 1, matched = 0; index < needle.length; index += 1) {
    while (matched > 0 && needle[index] !== needle[matched]) matched = failure[matched - 1]!;
    if (needle[index] === needle[matched]) matched += 1;
    failure[index] = matched;
  }
  for (let at = from, matched = 0; at < to; at += 1) {
    while (matched > 0 && haystack[at] !== needle[matched]) matched = failure[matched - 1]!;
    if (haystack[at] === needle[matched]) matched += 1;
    if (matched === needle.length) return at - needle.length + 1;
  }
  return -1;
}
