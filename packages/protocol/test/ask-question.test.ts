// The question tool and its answers (spec/hop-protocol.md §20): offered only for a declared wait, one wait per
// reply, the result told to the model worded exactly, and the answers a question refuses.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { HopRequest, QuestionAnswer, type WaitingOf } from '../src/index.js';
import {
  answerProblems,
  questionResult,
  askQuestionTool,
  builtinTools,
  DISMISSED_RESULT,
  executeToolCalls,
  offeredTools,
  QUESTION_PENDING_RESULT,
  secondWaitMessage,
  type ToolDefinition,
} from '../src/server.js';
import { catalog, counterUuids, documentOf, pageFields } from './support/tools-fixtures.js';

const ask = (id: string, args: Record<string, unknown>) => ({
  id,
  name: 'ask_question',
  arguments: JSON.stringify(args),
});
const TONE = { question: 'Which tone?', choices: ['Playful', ' Elegant ', 'Bold'], free_text: true };
const waiting: WaitingOf<'question'> = {
  kind: 'question',
  call_id: 'call_tone',
  expires_at: '2026-12-04T16:00:00.000Z',
  question: { text: 'Which tone?', choices: ['Playful', 'Elegant', 'Bold'], multiple: false, free_text: true },
};
const answer = (fields: Record<string, unknown>) =>
  QuestionAnswer.parse({ kind: 'question', call_id: 'call_tone', ...fields });

function run(calls: ReturnType<typeof ask>[], tools: Record<string, ToolDefinition> = builtinTools) {
  return executeToolCalls(calls, { tools, catalog, document: documentOf(), pageFields, newUuid: counterUuids() });
}

describe('ask_question', () => {
  it('is offered only to a turn whose client declared the wait "question"', () => {
    const names = ['place_components', 'ask_question'];
    assert.deepEqual(Object.keys(offeredTools(builtinTools, names, [])), ['place_components']);
    assert.deepEqual(Object.keys(offeredTools(builtinTools, names, [], ['plan'])), ['place_components']);
    assert.deepEqual(Object.keys(offeredTools(builtinTools, names, [], ['question'])), names);
  });

  it('makes the turn wait with the question, its choices trimmed, and a stand-in result; no output', async () => {
    const result = await run([ask('call_tone', TONE)]);
    assert.deepEqual(result.outputs, []);
    assert.deepEqual(result.results, [
      { call_id: 'call_tone', name: 'ask_question', content: QUESTION_PENDING_RESULT, ok: true },
    ]);
    assert.deepEqual(result.wait, { kind: 'question', call_id: 'call_tone', question: waiting.question });
  });

  it('waits for the first question of a reply only; a later call that would wait is refused, another tool too', async () => {
    const otherWait: ToolDefinition = { ...askQuestionTool, name: 'ask_again', allowParallel: true };
    const tools = { ...builtinTools, ask_again: otherWait };
    const result = await run([ask('one', TONE), ask('two', TONE), { ...ask('three', TONE), name: 'ask_again' }], tools);
    assert.equal(result.wait?.call_id, 'one');
    assert.deepEqual(
      result.results.map((call) => call.ok),
      [true, false, false],
    );
    assert.equal(result.results[2]!.content, secondWaitMessage('ask_again'));
  });

  it('refuses a question with one choice, seven, or two the same: a readable result and no wait', async () => {
    for (const choices of [['Only'], ['1', '2', '3', '4', '5', '6', '7'], ['Same', ' Same']]) {
      const result = await run([ask('bad', { question: 'Which?', choices })]);
      assert.equal(result.wait, undefined, JSON.stringify(choices));
      assert.match(result.results[0]!.content, /do not match its parameters/);
    }
  });
});

describe('the answer to a question', () => {
  it('is told to the model as the picked labels in choice order, then the text, joined by "; "', () => {
    assert.equal(questionResult(waiting.question, answer({ choices: [1] })), 'The person answered: Elegant');
    const several = { ...waiting.question, multiple: true };
    assert.equal(
      questionResult(several, answer({ choices: [2, 0], text: ' warmer ' })),
      'The person answered: Playful; Bold; warmer',
    );
    assert.equal(questionResult(waiting.question, answer({ text: 'calm' })), 'The person answered: calm');
    assert.equal(questionResult(waiting.question, answer({ dismissed: true })), DISMISSED_RESULT);
  });

  it('fits when it picks what the question offers, or writes where it may, or is dismissed', () => {
    assert.deepEqual(answerProblems(waiting, answer({ choices: [0] })), []);
    assert.deepEqual(answerProblems(waiting, answer({ choices: [2], text: 'and bright' })), []);
    assert.deepEqual(answerProblems(waiting, answer({ dismissed: true })), []);
  });

  it('names the offending part of an answer that does not fit', () => {
    const paths = (fields: Record<string, unknown>, question = waiting.question) =>
      answerProblems({ ...waiting, question }, answer(fields)).map((problem) => problem.path);
    assert.deepEqual(paths({ call_id: 'other', choices: [0] }), ['answer.call_id']);
    assert.deepEqual(paths({ choices: [0, 3] }), ['answer.choices.1', 'answer.choices']);
    assert.deepEqual(paths({ choices: [] }), ['answer']);
    assert.deepEqual(paths({ text: '   ' }), ['answer']);
    assert.deepEqual(paths({ text: 'mine' }, { ...waiting.question, free_text: false }), ['answer.text']);
    assert.deepEqual(paths({ dismissed: true, choices: [0] }), ['answer.dismissed']);
  });

  it('is refused at the door when it picks a choice twice or names a kind it does not know', () => {
    assert.equal(HopRequest.shape.answer.safeParse({ kind: 'question', call_id: 'c', choices: [1, 1] }).success, false);
    assert.equal(HopRequest.shape.answer.safeParse({ kind: 'plan', call_id: 'c' }).success, false);
  });
});
