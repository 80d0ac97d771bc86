import type { ErrorIssue } from '../wire/errors.js';
import type { WaitAnswer, Waiting, WaitingOf } from '../wire/waits.js';
import { APPROVED_RESULT, approvalProblems, REJECTED_RESULT } from './approvals.js';
import { questionAnswerProblems, questionResult } from './ask-question.js';
import { planAnswerProblems, planAnswerResult } from './propose-plan.js';
import { screenshotResult } from './request-screenshot.js';

/**
 * Why an answer does not fit what its turn waits for (spec §20.1 and the kind's section), each with the dotted path
 * of the offending part of the request; none when it fits. `images` is how many attachments the hop carries: a
 * screenshot's answer brings its image as the one attachment (spec §20.3).
 */
export function answerProblems(waiting: Waiting, answer: WaitAnswer, images = 0): ErrorIssue[] {
  if (answer.kind !== waiting.kind)
    return [{ path: 'answer.kind', message: `This turn waits for a ${waiting.kind}; answer that.` }];
  if (answer.call_id !== waiting.call_id) {
    return [
      {
        path: 'answer.call_id',
        message: `This turn waits for the answer to call "${waiting.call_id}"; answer that call.`,
      },
    ];
  }
  if (waiting.kind === 'question' && answer.kind === 'question')
    return questionAnswerProblems(waiting.question, answer);
  if (waiting.kind === 'approval' && answer.kind === 'approval') return approvalProblems(waiting, answer);
  if (answer.kind === 'screenshot' && !answer.unavailable && images === 0)
    return [
      { path: 'attachments', message: 'Send the screenshot as the hop’s one attachments part, or unavailable: true.' },
    ];
  if (answer.kind === 'screenshot' && answer.unavailable && images > 0)
    return [{ path: 'answer.unavailable', message: 'An unavailable screenshot carries no image; send it as JSON.' }];
  if (answer.kind === 'plan') return planAnswerProblems(answer);
  return [];
}

/** What a wait asked, as far as the result of its answer depends on it. */
type AskedFor =
  | Pick<WaitingOf<'question'>, 'kind' | 'question'>
  | Pick<WaitingOf<'screenshot'>, 'kind'>
  | Pick<WaitingOf<'plan'>, 'kind'>
  | Pick<WaitingOf<'approval'>, 'kind'>;

/**
 * What the model is told for an accepted answer (spec §20.2 to spec §20.5): the call's result, worded as the spec says. For
 * an approval, the first line of a one-change proposal's result (spec §20.5; each change has its own, `decidedResults`).
 */
export function answerResult(waiting: AskedFor, answer: WaitAnswer): string {
  if (waiting.kind === 'question' && answer.kind === 'question') return questionResult(waiting.question, answer);
  if (answer.kind === 'screenshot') return screenshotResult(answer);
  if (answer.kind === 'plan') return planAnswerResult(answer);
  if (answer.kind === 'approval') return answer.approved.length > 0 ? APPROVED_RESULT : REJECTED_RESULT;
  throw new Error(`an answer of kind ${answer.kind} to a wait of kind ${waiting.kind}`);
}
