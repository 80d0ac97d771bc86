import type { ErrorIssue } from '../wire/errors.js';
import type { WaitAnswer, Waiting } from '../wire/waits.js';
import { answerResult, questionAnswerProblems } from './ask-question.js';
import { planAnswerProblems, planAnswerResult } from './propose-plan.js';

/**
 * Why an answer does not fit what its turn waits for (spec §20.1): another kind, another call, then the kind's own
 * rules (spec §20.2, §20.3), each with the dotted path of the offending part of the request; none when it fits.
 */
export function answerProblems(waiting: Waiting, answer: WaitAnswer): ErrorIssue[] {
  if (answer.kind !== waiting.kind)
    return [
      {
        path: 'answer.kind',
        message: `This turn waits for an answer of kind "${waiting.kind}", not "${answer.kind}".`,
      },
    ];
  if (answer.call_id !== waiting.call_id)
    return [
      {
        path: 'answer.call_id',
        message: `This turn waits for the answer to call "${waiting.call_id}"; answer that call.`,
      },
    ];
  if (waiting.kind === 'question' && answer.kind === 'question')
    return questionAnswerProblems(waiting.question, answer);
  return answer.kind === 'plan' ? planAnswerProblems(answer) : [];
}

/** What the model is told for an answer that fits its wait (spec §20.2, §20.3): the asking call's result. */
export function waitAnswerResult(waiting: Waiting, answer: WaitAnswer): string {
  if (waiting.kind === 'question' && answer.kind === 'question') return answerResult(waiting.question, answer);
  if (answer.kind === 'plan') return planAnswerResult(answer);
  throw new Error(`An answer of kind "${answer.kind}" does not answer a wait of kind "${waiting.kind}".`);
}
