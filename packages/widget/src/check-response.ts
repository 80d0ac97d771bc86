/** The checks a hop's answer goes through, shared by the JSON reader and the stream reader. */
import {
  type CheckIssue,
  HopErrorBodyChecker,
  type HopRequest,
  type HopResponse,
  HopResponseChecker,
} from '@canvas-ai/protocol';
import { TurnError } from './turn-error.js';

/** The error of a refused hop: its protocol error body when it has one (a JSON error, or a stream's error line). */
export function httpError(
  status: number,
  statusText: string,
  body: unknown,
  hop: number,
  retryAfter?: number,
): TurnError {
  const errorBody = HopErrorBodyChecker.safeParse(body);
  const message = errorBody.success
    ? errorBody.data.message
    : `${`The server answered hop ${hop} with HTTP ${status} ${statusText}`.trim()}.`;
  return new TurnError('http', message, { hop, status, body: errorBody.data, retryAfterMs: retryAfter });
}

/** Validates a hop response (the JSON body, or a stream's response line) and checks it answers `request`. */
export function checkHopResponse(body: unknown, request: HopRequest, status: number): HopResponse {
  const hop = request.hop;
  const parsed = HopResponseChecker.safeParse(body);
  if (!parsed.success) throw invalidAnswer(hop, status, parsed.error);
  if (parsed.data.request_id !== request.request_id || parsed.data.hop !== hop) {
    throw new TurnError(
      'invalid_response',
      `The server answered hop ${parsed.data.hop} of turn "${parsed.data.request_id}" to hop ${hop} of turn "${request.request_id}".`,
      { hop, status },
    );
  }
  return parsed.data;
}

/** The error of an answer that does not follow the protocol schema, naming the first problem. */
export function invalidAnswer(hop: number, status: number, error: { issues: CheckIssue[] }): TurnError {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return new TurnError(
    'invalid_response',
    `The server's answer to hop ${hop} does not follow the protocol (${where}${issue?.message ?? 'invalid'}).`,
    { hop, status },
  );
}
