import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { HopResponse } from '../src/index.js';
import {
  admitHop,
  answerResponse,
  continuingResponse,
  maxHopsMessage,
  maxHopsResponse,
  type HopAdmissionInput,
  type StoredTurnSummary,
} from '../src/server.js';

// The turn rules of spec §8 and the response builders, shared by every TypeScript server.
const running: StoredTurnSummary = { agent: 'page_builder', hop: 2, ended: false };
const ended: StoredTurnSummary = { agent: 'page_builder', hop: 3, ended: true };

function admit(overrides: Partial<HopAdmissionInput>) {
  return admitHop({
    requestId: 't1',
    hop: 3,
    agentId: 'page_builder',
    busy: false,
    cancelled: false,
    turn: running,
    ...overrides,
  });
}

function refusal(overrides: Partial<HopAdmissionInput>): string {
  try {
    admit(overrides);
  } catch (error) {
    const { status, code, field } = error as { status: number; code: string; field?: string };
    return `${status} ${code}${field ? ` (${field})` : ''}`;
  }
  return 'admitted';
}

describe('admitHop: the turn rules of spec §8, in their order', () => {
  it('starts a new turn on hop 1 when nothing is stored', () => {
    assert.equal(admit({ hop: 1, turn: undefined }), 'start');
  });

  it('resumes a stored turn with its next hop, and replays its latest hop', () => {
    assert.equal(admit({ hop: 3 }), 'resume');
    assert.equal(admit({ hop: 2 }), 'replay');
    assert.equal(admit({ hop: 3, turn: ended }), 'replay', 'the final hop of an ended turn stays replayable');
  });

  it('answers 409 hop_in_progress first, whatever else is wrong', () => {
    assert.equal(refusal({ busy: true, cancelled: true, agentId: 'qa', hop: 9 }), '409 hop_in_progress');
  });

  it('answers 410 to a cancelled turn on any hop, hop 1 included, before the agent is compared', () => {
    assert.equal(refusal({ cancelled: true, hop: 1, turn: undefined }), '410 turn_not_found');
    assert.equal(refusal({ cancelled: true, hop: 3, agentId: 'qa' }), '410 turn_not_found');
  });

  it('answers 410 to a later hop of a turn it does not hold', () => {
    assert.equal(refusal({ hop: 2, turn: undefined }), '410 turn_not_found');
  });

  it('answers 409 agent_changed before replaying or ordering', () => {
    assert.equal(refusal({ agentId: 'qa', hop: 2 }), '409 agent_changed (agent)');
    assert.equal(refusal({ agentId: 'qa', hop: 7 }), '409 agent_changed (agent)');
  });

  it('answers 410 past the last hop of an ended turn, and 409 before it', () => {
    assert.equal(refusal({ turn: ended, hop: 4 }), '410 turn_not_found');
    assert.equal(refusal({ turn: ended, hop: 2 }), '409 hop_out_of_order (hop)');
  });

  it('answers 409 hop_out_of_order to a skipped, a stale, or a restarted hop', () => {
    assert.equal(refusal({ hop: 4 }), '409 hop_out_of_order (hop)');
    assert.equal(refusal({ hop: 1 }), '409 hop_out_of_order (hop)');
  });
});

describe('the hop-response builders', () => {
  const head = { requestId: 't1', hop: 2, agent: { id: 'page_builder', label: 'Page builder' }, outputs: [] };

  it('build a continuing response with the whole narration so far', () => {
    const response = continuingResponse(head, ['I will add a hero.', '  ', 'Next, the cards.']);
    assert.deepEqual(HopResponse.parse(response), response);
    assert.equal(response.should_continue, true);
    assert.equal(response.progress, 'I will add a hero.\n\nNext, the cards.');
    assert.equal(response.protocol, 'canvas-ai/1');
  });

  it('build an answer with the answer stripped off the end of progress', () => {
    const response = answerResponse(head, ['I will add a hero.', 'Done: a hero.']);
    assert.deepEqual(HopResponse.parse(response), response);
    assert.deepEqual(
      [response.progress, response.message, response.finish_reason],
      ['I will add a hero.', 'Done: a hero.', 'answer'],
    );
  });

  it('build the max_hops ending with the fixed message and nothing stripped', () => {
    const response = maxHopsResponse(head, ['One.', 'Two.'], 2);
    assert.deepEqual(HopResponse.parse(response), response);
    assert.deepEqual(
      [response.progress, response.message, response.finish_reason],
      ['One.\n\nTwo.', maxHopsMessage(2), 'max_hops'],
    );
  });
});
