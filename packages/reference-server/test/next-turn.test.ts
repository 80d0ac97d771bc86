import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type AgentDefinition, HopRequest, type ToolOutput } from '@canvas-ai/protocol';
import { digestDocument } from '@canvas-ai/protocol/server';
import { loadConfig } from '../src/config.js';
import type { ParkedCallsStep } from '../src/hop-run.js';
import { endWith, type GoingOn, nextTurn, outcomeOf, type TurnFacts } from '../src/next-turn.js';
import type { ModelReply } from '../src/providers/model-provider.js';
import { seedTurn } from '../src/turn-seed.js';
import { hopUsage } from '../src/usage.js';
import { EMPTY_LAYOUT, laterHop } from './support/harness.js';

const calls: ModelReply = {
  text: 'Placing a hero.',
  toolCalls: [{ id: 'call-1', name: 'place_components', arguments: '{"placements":[]}' }],
  usage: { input_tokens: 120, output_tokens: 30, cached_input_tokens: 100 },
};
const answer: ModelReply = { text: 'Done: the page has a hero.', toolCalls: [] };
const output: ToolOutput = { type: 'remove_components', call_id: 'call-0', uuids: ['a-component'] };

let run: TurnFacts;
let step: ParkedCallsStep;

before(async () => {
  const { agents } = await loadConfig();
  const agent = agents.agents[agents.main_agent] as AgentDefinition;
  const first = HopRequest.parse({
    protocol: 'canvas-ai/1',
    request_id: 'turn-1',
    hop: 1,
    messages: [{ role: 'user', text: 'Add a hero' }],
    context: { current_layout: EMPTY_LAYOUT },
  });
  const turn = { ...seedTurn(agents, agents.main_agent, agent, first, []), hop: 1, decisions: 1 };
  run = {
    deps: { ttl: { turnMs: 60_000, finishedMs: 10_000, lockMs: 30_000 } },
    request: HopRequest.parse(laterHop('turn-1', 2, EMPTY_LAYOUT)),
    agentId: agents.main_agent,
    agent,
    turn,
  };
  step = {
    messages: [...turn.messages, { role: 'notice', text: 'The page is empty.' }],
    outputs: [],
    document: { layout: structuredClone(EMPTY_LAYOUT), page: {} },
    placedUuids: ['placed-1'],
    executed: [],
    told: { selected: null, extra: '' },
  };
});

/** Calls `build` twice on one input: both results must be equal, and the input as it was before. */
function assertPure<T>(build: () => T, inputs: unknown): T {
  const before = structuredClone(inputs);
  const first = build();
  const second = build();
  assert.deepEqual(second, first, 'the same input gives the same result');
  assert.notEqual(second, first, 'each call builds its own result');
  assert.deepEqual(inputs, before, 'the input is left as it was');
  return first;
}

describe('nextTurn: the response and record of a turn that goes on (pure)', () => {
  it('parks the reply’s calls: called twice on one input, equal results and an unchanged input', () => {
    const hop: GoingOn = {
      outcome: { kind: 'parks', reply: calls },
      decided: true,
      usage: hopUsage(undefined, calls.usage),
      expected: digestDocument(step.document),
    };
    const next = assertPure(() => nextTurn(run, step, hop), { run, step, hop });
    assert.equal(next.response.should_continue, true);
    assert.equal(next.response.progress, 'Placing a hero.', 'the reply’s text joins the narration now');
    assert.equal(next.ttlMs, 60_000, 'a turn that goes on is kept as long as a turn');
    assert.equal(next.record.kind, 'active');
    if (next.record.kind !== 'active') return;
    assert.deepEqual(next.record.parked, calls.toolCalls, 'the calls run at the start of the next hop');
    assert.equal(next.record.decisions, 2, 'one more decision');
    assert.equal(next.record.held, undefined);
    assert.deepEqual(next.record.messages.at(-1), { role: 'assistant', text: calls.text, tool_calls: calls.toolCalls });
    assert.equal(next.record.messages.length, step.messages.length + 1);
    assert.equal(next.record.response.progress, '', 'the stored response leaves the narration to the messages');
    assert.deepEqual(next.record.usage, hopUsage(undefined, calls.usage)?.turn);
  });

  it('holds an answer back while the hop has outputs, the same way every time', () => {
    const withOutputs: ParkedCallsStep = { ...step, outputs: [output] };
    const hop: GoingOn = {
      outcome: { kind: 'holds', ending: { kind: 'answer', text: answer.text } },
      decided: true,
      usage: undefined,
      expected: digestDocument(withOutputs.document),
    };
    const next = assertPure(() => nextTurn(run, withOutputs, hop), { run, withOutputs, hop });
    assert.equal(next.response.should_continue, true, 'the host reports on the outputs before the answer');
    assert.deepEqual(next.response.outputs, [output]);
    assert.equal(next.response.progress, '', 'the answer is not narrated before the turn ends');
    assert.equal(next.record.kind, 'active');
    if (next.record.kind !== 'active') return;
    assert.deepEqual(next.record.held, { kind: 'answer', text: answer.text });
    assert.deepEqual(next.record.parked, []);
    assert.equal(next.record.messages.length, step.messages.length, 'the answer is not a message yet');
  });
});

describe('endWith: a turn that ends (pure)', () => {
  it('answers, kept as a finished turn, the same way every time', () => {
    const next = assertPure(() => endWith(run, step, { kind: 'answer', text: answer.text }, undefined), { run, step });
    assert.equal(next.response.should_continue, false);
    assert.equal(next.record.kind, 'finished');
    assert.equal(next.ttlMs, 10_000, 'a finished turn is kept briefly');
  });
});

describe('outcomeOf: the one place a turn’s ending is decided', () => {
  const held = { kind: 'answer', text: 'held' } as const;
  const cases: Array<[string, ReturnType<typeof outcomeOf>, ReturnType<typeof outcomeOf>]> = [
    ['a held ending that applies ends the turn', outcomeOf(held, undefined, []), { kind: 'ends', ending: held }],
    ['a reply with calls parks them', outcomeOf(undefined, calls, [output]), { kind: 'parks', reply: calls }],
    [
      'an answer without outputs ends the turn',
      outcomeOf(undefined, answer, []),
      { kind: 'ends', ending: { kind: 'answer', text: answer.text } },
    ],
    [
      'an answer with outputs is held',
      outcomeOf(undefined, answer, [output]),
      { kind: 'holds', ending: { kind: 'answer', text: answer.text } },
    ],
    [
      'no decision left, no outputs: max_hops now',
      outcomeOf(undefined, undefined, []),
      { kind: 'ends', ending: { kind: 'max_hops' } },
    ],
    [
      'no decision left, with outputs: max_hops held',
      outcomeOf(undefined, undefined, [output]),
      { kind: 'holds', ending: { kind: 'max_hops' } },
    ],
  ];
  for (const [name, actual, expected] of cases) {
    it(name, () => assert.deepEqual(actual, expected));
  }
});
