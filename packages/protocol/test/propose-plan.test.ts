// The plan tool and its decisions (spec/hop-protocol.md §20.4): offered only for a declared wait and an agent that
// plans first, its components checked against the catalog, the result told to the model worded exactly, the
// decisions a plan refuses, and the agents config's rules for plan_first (spec §12.4).
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { AgentDefinition, type PlanWaiting, WaitAnswer } from '../src/index.js';
import {
  agentToolNames,
  answerProblems,
  builtinTools,
  executeToolCalls,
  offeredTools,
  PLAN_APPROVED_RESULT,
  PLAN_PENDING_RESULT,
  PLAN_REVISE_RESULT,
  answerResult,
} from '../src/server.js';
import { catalog, counterUuids, documentOf, pageFields } from './support/tools-fixtures.js';

const propose = (id: string, rows: unknown) => ({ id, name: 'propose_plan', arguments: JSON.stringify({ rows }) });
const waiting: PlanWaiting = {
  kind: 'plan',
  call_id: 'call_plan',
  expires_at: '2026-12-04T16:00:00.000Z',
  plan: { rows: [{ title: 'Hero', components: ['sdc.demo.hero'] }] },
};
const decision = (fields: Record<string, unknown>) =>
  WaitAnswer.parse({ kind: 'plan', call_id: 'call_plan', ...fields });

function run(calls: ReturnType<typeof propose>[]) {
  return executeToolCalls(calls, {
    tools: builtinTools,
    catalog,
    document: documentOf(),
    pageFields,
    newUuid: counterUuids(),
  });
}

describe('propose_plan', () => {
  it('is an agent’s tool only with plan_first, and offered only to a turn whose client declared the wait "plan"', () => {
    const agent = { tools: ['place_components'] };
    assert.deepEqual(agentToolNames(agent), ['place_components']);
    const names = agentToolNames({ ...agent, plan_first: true });
    assert.deepEqual(names, ['place_components', 'propose_plan']);
    assert.deepEqual(Object.keys(offeredTools(builtinTools, names, [], ['question'])), ['place_components']);
    assert.deepEqual(Object.keys(offeredTools(builtinTools, names, [], ['plan'])), names);
  });

  it('makes the turn wait with the rows, titles trimmed, and a stand-in result; no output', async () => {
    const rows = [
      { title: ' Hero ', components: ['sdc.demo.hero'] },
      { title: 'Cards', components: ['sdc.demo.section', 'sdc.demo.card'] },
    ];
    const result = await run([propose('call_plan', rows)]);
    assert.deepEqual(result.outputs, []);
    assert.deepEqual(result.results, [
      { call_id: 'call_plan', name: 'propose_plan', content: PLAN_PENDING_RESULT, ok: true },
    ]);
    assert.deepEqual(result.wait, {
      kind: 'plan',
      call_id: 'call_plan',
      plan: { rows: [{ title: 'Hero', components: ['sdc.demo.hero'] }, rows[1]] },
    });
  });

  it('refuses a plan naming a component the catalog does not have, or no rows: a readable result and no wait', async () => {
    const unknown = await run([propose('bad', [{ title: 'Hero', components: ['sdc.demo.heroo'] }])]);
    assert.equal(unknown.wait, undefined);
    assert.match(
      unknown.results[0]!.content,
      /rows\[0\] \("Hero"\): unknown component `sdc\.demo\.heroo`; did you mean `sdc\.demo\.hero`/,
    );
    const empty = await run([propose('bad', [])]);
    assert.equal(empty.wait, undefined);
    assert.match(empty.results[0]!.content, /do not match its parameters/);
  });
});

describe('a decision on a plan', () => {
  it('is told to the model in fixed words, a revision followed by the trimmed feedback', () => {
    assert.equal(answerResult(waiting, decision({ decision: 'approve' })), PLAN_APPROVED_RESULT);
    assert.equal(
      answerResult(waiting, decision({ decision: 'revise', feedback: '  No hero.  ' })),
      `${PLAN_REVISE_RESULT}No hero.`,
    );
  });

  it('names the offending part of a decision that does not fit', () => {
    const paths = (answer: WaitAnswer) => answerProblems(waiting, answer).map((problem) => problem.path);
    assert.deepEqual(paths(decision({ decision: 'approve' })), []);
    assert.deepEqual(paths(decision({ decision: 'revise', feedback: 'more' })), []);
    assert.deepEqual(paths(decision({ decision: 'revise' })), ['answer.feedback']);
    assert.deepEqual(paths(decision({ decision: 'approve', feedback: 'ok' })), ['answer.feedback']);
    assert.deepEqual(paths(decision({ decision: 'approve', call_id: 'other' })), ['answer.call_id']);
    assert.deepEqual(paths(WaitAnswer.parse({ kind: 'question', call_id: 'call_plan', choices: [0] })), [
      'answer.kind',
    ]);
  });
});

describe('plan_first in the agents config', () => {
  const agent = { label: 'B', description: 'Builds', system_prompt: 'Build.', tools: ['place_components'] };
  it('is off by default, and allowed for an agent that places components', () => {
    assert.equal(AgentDefinition.parse(agent).plan_first, false);
    assert.equal(AgentDefinition.parse({ ...agent, plan_first: true }).plan_first, true);
  });

  it('is refused for an agent that cannot place components, and propose_plan listed in tools is refused', () => {
    const without = AgentDefinition.safeParse({ ...agent, tools: ['edit_components'], plan_first: true });
    assert.deepEqual(
      without.error?.issues.map((issue) => [issue.path.join('.'), issue.message]),
      [['plan_first', 'plan_first needs place_components in tools (the agent would plan what it cannot build)']],
    );
    const listed = AgentDefinition.safeParse({ ...agent, tools: ['place_components', 'propose_plan'] });
    assert.deepEqual(
      listed.error?.issues.map((issue) => issue.path.join('.')),
      ['tools.1'],
    );
  });
});
