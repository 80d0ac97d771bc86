// A look at the page (spec/hop-protocol.md §20.3): the tool is offered only for a declared wait, waits for the page
// or a component the page holds, words the host's answer exactly, and refuses answers of another kind or shape.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { type Waiting, WaitAnswer } from '../src/index.js';
import {
  answerProblems,
  answerResult,
  builtinTools,
  executeToolCalls,
  offeredTools,
  SCREENSHOT_PENDING_RESULT,
  SCREENSHOT_SENT_RESULT,
  SCREENSHOT_UNAVAILABLE_RESULT,
} from '../src/server.js';
import { catalog, counterUuids, documentOf, pageFields } from './support/tools-fixtures.js';

const look = (id: string, args: Record<string, unknown>) => ({
  id,
  name: 'request_screenshot',
  arguments: JSON.stringify(args),
});
const waiting: Waiting = {
  kind: 'screenshot',
  call_id: 'call_look',
  expires_at: '2026-12-04T16:00:00.000Z',
  screenshot: { component_uuid: null },
};
const answer = (fields: Record<string, unknown>) =>
  WaitAnswer.parse({ kind: 'screenshot', call_id: 'call_look', ...fields });

function run(calls: ReturnType<typeof look>[], layout = documentOf()) {
  return executeToolCalls(calls, {
    tools: builtinTools,
    catalog,
    document: layout,
    pageFields,
    newUuid: counterUuids(),
  });
}

describe('request_screenshot', () => {
  it('is offered only to a turn whose client declared the wait "screenshot"', () => {
    const names = ['place_components', 'request_screenshot'];
    assert.deepEqual(Object.keys(offeredTools(builtinTools, names, [], ['question'])), ['place_components']);
    assert.deepEqual(Object.keys(offeredTools(builtinTools, names, [], ['screenshot'])), names);
  });

  it('makes the turn wait for the whole page, or the region around a component the page holds', async () => {
    const page = await run([look('call_look', {})]);
    assert.deepEqual(page.outputs, []);
    assert.deepEqual(
      page.results.map((result) => result.content),
      [SCREENSHOT_PENDING_RESULT],
    );
    assert.deepEqual(page.wait, { kind: 'screenshot', call_id: 'call_look', screenshot: { component_uuid: null } });
    const document = documentOf();
    const uuid = document.layout.regions.content!.components[0]!.uuid;
    const region = await run([look('call_region', { component_uuid: uuid })], document);
    assert.deepEqual(region.wait?.kind === 'screenshot' && region.wait.screenshot, { component_uuid: uuid });
  });

  it('makes nothing wait for a uuid the page does not hold: the model hears why', async () => {
    const result = await run([look('call_none', { component_uuid: 'not-on-the-page' })]);
    assert.equal(result.wait, undefined);
    assert.equal(result.results[0]!.ok, false);
    assert.match(result.results[0]!.content, /no component with uuid `not-on-the-page`/);
  });
});

describe('the answer to a screenshot', () => {
  it('is told to the model in fixed words', () => {
    assert.equal(answerResult(waiting, answer({})), SCREENSHOT_SENT_RESULT);
    assert.equal(answerResult(waiting, answer({ unavailable: true })), SCREENSHOT_UNAVAILABLE_RESULT);
    assert.equal(SCREENSHOT_SENT_RESULT, 'The host sent the screenshot; the image follows.');
    assert.equal(SCREENSHOT_UNAVAILABLE_RESULT, 'The host cannot take a screenshot, so none was sent.');
  });

  it('fits with one image, or unavailable without one; names the offending part otherwise', () => {
    const paths = (fields: Record<string, unknown>, images: number) =>
      answerProblems(waiting, answer(fields), images).map((problem) => problem.path);
    assert.deepEqual(paths({}, 1), []);
    assert.deepEqual(paths({ unavailable: true }, 0), []);
    assert.deepEqual(paths({}, 0), ['attachments']);
    assert.deepEqual(paths({ unavailable: true }, 1), ['answer.unavailable']);
    assert.deepEqual(paths({ call_id: 'other' }, 1), ['answer.call_id']);
    const question = WaitAnswer.parse({ kind: 'question', call_id: 'call_look', choices: [0] });
    assert.deepEqual(
      answerProblems(waiting, question).map((problem) => problem.path),
      ['answer.kind'],
    );
  });
});
