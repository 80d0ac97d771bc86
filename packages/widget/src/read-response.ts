import { HopErrorBodyChecker, NDJSON_MEDIA_TYPE, type HopRequest, type HopResponse } from '@canvas-ai/protocol';
import { checkHopResponse, httpError } from './check-response.js';
import { readHopStream, type StreamHandlers } from './read-stream.js';
import { TurnError } from './turn-error.js';

/**
 * Reads one hop's HTTP response into a validated {@link HopResponse}, or throws the {@link TurnError} that ends
 * the turn: an HTTP error, `status: false`, or a body the protocol schema rejects (a response for another turn
 * or hop included). A 200 of `Content-Type: application/x-ndjson` is a streamed hop, read line by line with
 * `handlers` (see read-stream.ts); anything else is the JSON response every server sends.
 */
export async function readHopResponse(
  response: Response,
  request: HopRequest,
  handlers: StreamHandlers = {},
): Promise<HopResponse> {
  if (response.ok && isNdjson(response.headers.get('content-type'))) return readHopStream(response, request, handlers);
  const hop = request.hop;
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw httpError(response.status, response.statusText, body, hop, retryAfterMs(response));
  if (isObject(body) && body.status === false) {
    const errorBody = HopErrorBodyChecker.safeParse(body);
    const message = errorBody.success ? errorBody.data.message : `The server refused hop ${hop} without saying why.`;
    throw new TurnError('server', message, { hop, status: response.status, body: errorBody.data });
  }
  return checkHopResponse(body, request, response.status);
}

/** Whether a Content-Type is NDJSON, parameters (`; charset=utf-8`) aside. */
function isNdjson(contentType: string | null): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === NDJSON_MEDIA_TYPE;
}

/** `Retry-After` in milliseconds, when it is a number of seconds (spec §8.3: 409 `hop_in_progress` sends it). */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after')?.trim();
  if (!value || !/^\d+$/.test(value)) return undefined;
  return Number(value) * 1000;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
