import type { ErrorIssue } from '../wire/errors.js';
import type { Question, QuestionAnswer } from '../wire/waits.js';
import type { ToolDefinition } from './tool-definition.js';
import { AskQuestionInput } from './tool-inputs.js';

/** Stands in the transcript for the result of a question until the person's answer replaces it (spec §20.1). */
export const QUESTION_PENDING_RESULT = 'The question is shown to the person; their answer follows.';

/** What the model is told when the person dismissed the question (spec §20.2, worded exactly so). */
export const DISMISSED_RESULT = 'The person dismissed the question without answering.';

/**
 * `ask_question` (revision 1.7, spec §20.2): asks the person a question with 2–6 choices. It changes nothing and
 * has no output: its hop answers with `waiting` and no model decision, and the answer becomes its result.
 * Offered only to a turn whose client declared the wait `question` (spec §20.1).
 */
export const askQuestionTool: ToolDefinition<AskQuestionInput> = {
  name: 'ask_question',
  description:
    'Ask the person a question when you cannot go on well without their choice (a style, which of two options, ' +
    'what to keep). Give 2–6 short choices; set multiple when several may be picked and free_text when they may ' +
    'write their own answer. The turn pauses until they answer; the answer is the result. Ask one question at a time.',
  input: AskQuestionInput,
  allowParallel: false,
  waitKind: 'question',
  execute(input) {
    const question: Question = {
      text: input.question,
      choices: input.choices.map((choice) => choice.trim()),
      multiple: input.multiple,
      free_text: input.free_text,
    };
    return { result: QUESTION_PENDING_RESULT, wait: { kind: 'question', question } };
  },
};

/** What the model is told for an accepted answer (spec §20.2): the picked labels in order, then the text, by `; `. */
export function questionResult(question: Question, answer: QuestionAnswer): string {
  if (answer.dismissed) return DISMISSED_RESULT;
  const picked = question.choices.filter((_, index) => answer.choices.includes(index));
  const text = answer.text?.trim() ?? '';
  return `The person answered: ${[...picked, ...(text === '' ? [] : [text])].join('; ')}`;
}

/** Why an answer does not fit its question (spec §20.2), each with the dotted path of the offending part. */
export function questionAnswerProblems(question: Question, answer: QuestionAnswer): ErrorIssue[] {
  const problems: ErrorIssue[] = [];
  const text = answer.text?.trim() ?? '';
  if (answer.dismissed) {
    if (answer.choices.length > 0 || text !== '')
      problems.push({ path: 'answer.dismissed', message: 'A dismissed question picks nothing and has no text.' });
    return problems;
  }
  answer.choices.forEach((index, at) => {
    if (index >= question.choices.length)
      problems.push({
        path: `answer.choices.${at}`,
        message: `The question has ${question.choices.length} choices (indexes 0–${question.choices.length - 1}).`,
      });
  });
  if (!question.multiple && answer.choices.length > 1)
    problems.push({ path: 'answer.choices', message: 'This question takes one choice at most.' });
  if (!question.free_text && text !== '')
    problems.push({ path: 'answer.text', message: 'This question takes no text of its own: pick a choice.' });
  if (answer.choices.length === 0 && text === '')
    problems.push({ path: 'answer', message: 'Pick a choice or write an answer, or send dismissed: true.' });
  return problems;
}
