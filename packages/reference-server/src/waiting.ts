/**
 * Waiting turns (spec/hop-protocol.md §20): what a turn waits for once a call asked the person or the host, and the
 * checks of the hop that brings the answer, before anything of it runs.
 */
import type { Attachment, HopRequest, Waiting } from '@canvas-ai/protocol';
import { answerProblems, answerResult, HopError, type WaitRequest } from '@canvas-ai/protocol/server';
import type { ModelMessage } from './providers/model-provider.js';
import { decidedResults } from './approvals.js';
import { storedAttachment } from './turn-seed.js';
import type { TurnSoFar } from './turn-state.js';

/** What the response and the stored turn carry for a call that asked: until when the server waits (spec §20.1). */
export function waitingFor(wait: WaitRequest & { call_id: string }, waitMs: number, now: number): Waiting {
  const expires_at = new Date(now + waitMs).toISOString();
  if (wait.kind === 'plan') return { kind: wait.kind, call_id: wait.call_id, expires_at, plan: wait.plan };
  return wait.kind === 'question'
    ? { kind: wait.kind, call_id: wait.call_id, expires_at, question: wait.question }
    : { kind: wait.kind, call_id: wait.call_id, expires_at, screenshot: wait.screenshot };
}

/** Whether the server stopped waiting: past `expires_at` the turn is over (spec §20.1). */
export function waitExpired(waiting: Waiting, now: number): boolean {
  return now >= Date.parse(waiting.expires_at);
}

/** The 410 of a turn whose wait expired: the turn is over, and the message says what to do (spec §20.1). */
export function waitExpiredError(requestId: string): HopError {
  return new HopError(
    'wait_expired',
    'This turn waited too long for an answer, so it ended. Send your message again to start over.',
    { requestId },
  );
}

/**
 * The turn a hop continues, with the answer in place of the asking call's result (spec §20.1) and, for a screenshot,
 * its image given to the model right after (spec §20.3); or the 400 of a hop whose `answer` is missing, does not
 * fit, or answers a turn that waits for nothing. Checked after the turn rules and before the hop runs, so a refused
 * hop changes nothing and may be sent again. An expired wait is the caller's to find first (it ends the turn).
 */
export function withAnswer(
  turn: TurnSoFar | undefined,
  request: HopRequest,
  attachments: readonly Attachment[] = [],
): TurnSoFar | undefined {
  const { answer } = request;
  const waiting = turn?.waiting;
  if (!waiting) {
    if (answer === undefined) return turn;
    throw new HopError('invalid_request', 'This turn waits for no answer; send the hop without `answer`.', {
      field: 'answer',
      requestId: request.request_id,
    });
  }
  if (answer === undefined) {
    throw new HopError(
      'missing_field',
      `This turn waits for the answer to call "${waiting.call_id}" (a ${waiting.kind}); send it in \`answer\`.`,
      { field: 'answer', requestId: request.request_id },
    );
  }
  const problems = answerProblems(waiting, answer, attachments.length);
  if (problems.length > 0) {
    const first = problems[0]!;
    // A screenshot's answer without its image lacks a part of the request (spec §20.3).
    throw new HopError(
      first.path === 'attachments' ? 'missing_field' : 'invalid_request',
      problems.map((problem) => problem.message).join(' '),
      { field: first.path, issues: problems, requestId: request.request_id },
    );
  }
  const { waiting: _answered, proposal: _decided, ...rest } = turn;
  // An approval decides each proposed call's result; any other answer is the asking call's (spec §20.5, §20.1).
  const results =
    answer.kind === 'approval'
      ? decidedResults(turn, answer.approved)
      : new Map([[waiting.call_id, answerResult(waiting as Exclude<Waiting, { kind: 'approval' }>, answer)]]);
  const messages: ModelMessage[] = turn.messages.map((message) =>
    message.role === 'tool' && results.has(message.call_id)
      ? { ...message, content: results.get(message.call_id)! }
      : message,
  );
  if (answer.kind === 'screenshot' && attachments.length > 0) {
    // After every message of the waiting hop: providers want a reply's tool results before anything else.
    messages.push({
      role: 'user',
      text: `The screenshot from call ${waiting.call_id}.`,
      attachments: attachments.map(storedAttachment),
    });
  }
  return { ...rest, messages };
}
