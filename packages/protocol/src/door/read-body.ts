import { HopError } from '../wire/errors.js';

/**
 * A share of a server-wide budget of body bytes held in memory at once: taken as a body streams in (its declared
 * length at once when it has one), given back by the server when the request is done. `take` answers false when the
 * budget cannot cover the bytes; then nothing was taken.
 */
export interface BodyAllowance {
  take(bytes: number): boolean;
}

/** How {@link readBody} bounds the reading of one body, besides its size. */
export interface ReadBodyOptions {
  /** The whole body must have arrived within this many milliseconds of the start of reading, or 408 `request_timeout`. */
  bodyTimeoutMs?: number;
  /** The server's budget of buffered body bytes; a body it cannot cover gets 503 `server_busy` with `Retry-After`. */
  allowance?: BodyAllowance;
}

/**
 * Reads a request body up to `maxBytes`, refusing with 413 `payload_too_large` before anything is parsed
 * (spec/hop-protocol.md §4.1): first from the declared `Content-Length`, then by counting the bytes as they stream in
 * (a chunked body declares nothing, and a declared length may lie). With `options`, a body that trickles in slower
 * than `bodyTimeoutMs` allows gets 408, and one the server's byte budget cannot hold 503, both before it is buffered
 * whole. A client that goes away mid-body gets a 400 nobody reads (not a server failure: nothing is logged as one).
 */
export async function readBody(
  request: Request,
  maxBytes: number,
  options: ReadBodyOptions = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () =>
    new HopError(
      'payload_too_large',
      `The request body is larger than ${maxBytes} bytes; send fewer or smaller attachments.`,
    );
  const busy = () =>
    new HopError('server_busy', 'The server is receiving too many requests at once; try again in a moment.', {
      retryAfterSeconds: 1,
    });
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const { allowance } = options;
  let taken = 0;
  if (allowance && Number.isFinite(declared) && declared > 0) {
    if (!allowance.take(declared)) throw busy();
    taken = declared;
  }

  // With a declared length the body is copied into place as it arrives, a chunk at a time; without one the chunks
  // are joined at the end. Either way no single step copies a whole large body at once when it can be avoided.
  const declaredFits = Number.isInteger(declared) && declared >= 0;
  let body: Uint8Array<ArrayBuffer> | undefined = declaredFits ? new Uint8Array(declared) : undefined;
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  const deadline = deadlineOf(options.bodyTimeoutMs);
  try {
    for (;;) {
      const { done, value } = await deadline.race(reader.read());
      if (done) break;
      const end = total + value.byteLength;
      if (end > maxBytes) throw tooLarge();
      if (allowance && end > taken) {
        if (!allowance.take(end - taken)) throw busy();
        taken = end;
      }
      if (body && end <= body.byteLength) body.set(value, total);
      else {
        // More than declared (a runtime that does not hold the body to its length): fall back to joining chunks.
        if (body) chunks.push(body.subarray(0, total));
        body = undefined;
        chunks.push(value);
      }
      total = end;
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    if (error instanceof HopError) throw error;
    throw new HopError('invalid_request', 'The request body ended before it was complete.', { cause: error });
  } finally {
    deadline.clear();
  }
  if (body) return total === body.byteLength ? body : body.slice(0, total);
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return joined;
}

/** A deadline for the whole body: `race` rejects with 408 once it has passed. */
function deadlineOf(timeoutMs: number | undefined) {
  if (timeoutMs === undefined || !Number.isFinite(timeoutMs)) {
    return { race: <T>(promise: Promise<T>) => promise, clear: () => undefined };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new HopError(
            'request_timeout',
            `The request body did not arrive within ${timeoutMs} ms; send it again on a faster connection.`,
          ),
        ),
      timeoutMs,
    );
  });
  // Never unhandled: a body that arrived in time leaves it pending, then cleared.
  expired.catch(() => undefined);
  return { race: <T>(promise: Promise<T>) => Promise.race([promise, expired]), clear: () => clearTimeout(timer) };
}
