import { HopErrorBody, HopResponse, type HopRequest } from '@canvas-ai/protocol';
import { TurnError } from './turn-error.js';

/**
 * Reads one hop's HTTP response into a validated {@link HopResponse}, or throws the {@link TurnError} that ends
 * the turn: an HTTP error, `status: false`, or a body the protocol schema rejects (a response for another turn
 * or hop included).
 */
export async function readHopResponse(response: Response, request: HopRequest): Promise<HopResponse> {
  const hop = request.hop;
  const body: unknown = await response.json().catch(() => undefined);
  const errorBody = HopErrorBody.safeParse(body);
  if (!response.ok) {
    const message = errorBody.success
      ? errorBody.data.message
      : `${`The server answered hop ${hop} with HTTP ${response.status} ${response.statusText}`.trim()}.`;
    throw new TurnError('http', message, { hop, status: response.status, body: errorBody.data });
  }
  if (isObject(body) && body.status === false) {
    const message = errorBody.success ? errorBody.data.message : `The server refused hop ${hop} without saying why.`;
    throw new TurnError('server', message, { hop, status: response.status, body: errorBody.data });
  }
  const parsed = HopResponse.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new TurnError(
      'invalid_response',
      `The server's answer to hop ${hop} does not follow the protocol (${where}${issue?.message ?? 'invalid'}).`,
      {
        hop,
        status: response.status,
      },
    );
  }
  if (parsed.data.request_id !== request.request_id || parsed.data.hop !== hop) {
    throw new TurnError(
      'invalid_response',
      `The server answered hop ${parsed.data.hop} of turn "${parsed.data.request_id}" to hop ${hop} of turn "${request.request_id}".`,
      { hop, status: response.status },
    );
  }
  return parsed.data;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
