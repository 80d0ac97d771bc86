import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { AgentsConfig, AgentsResponse, agentsResponse, DEFAULT_AGENT_HOPS, MAX_AGENT_HOPS } from '../src/index.js';

// The agents config schema's own rules: the max_hops bound and the cross-references between its keys.

/** One agent definition with only the required fields. */
function agent(): Record<string, unknown> {
  return { label: 'A', description: 'An agent.', system_prompt: 'Help.' };
}

/** A config with one agent `a` (the main agent), `settings` merged into that agent and `extra` into the config. */
function config(settings: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): unknown {
  return { main_agent: 'a', agents: { a: { ...agent(), ...settings } }, ...extra };
}

describe('AgentsConfig: max_hops', () => {
  it(`is ${DEFAULT_AGENT_HOPS} when an agent names none`, () => {
    assert.equal(AgentsConfig.parse(config()).agents.a!.max_hops, DEFAULT_AGENT_HOPS);
  });

  it(`accepts 1 and ${MAX_AGENT_HOPS}, and rejects 0 and ${MAX_AGENT_HOPS + 1}`, () => {
    assert.equal(AgentsConfig.parse(config({ max_hops: 1 })).agents.a!.max_hops, 1);
    assert.equal(AgentsConfig.parse(config({ max_hops: MAX_AGENT_HOPS })).agents.a!.max_hops, MAX_AGENT_HOPS);
    assert.equal(AgentsConfig.safeParse(config({ max_hops: 0 })).success, false, 'max_hops 0');
    assert.equal(AgentsConfig.safeParse(config({ max_hops: MAX_AGENT_HOPS + 1 })).success, false, 'one too many');
  });
});

describe('AgentsConfig: cross-references name agents defined under agents', () => {
  it('rejects a main_agent that is only a property every object inherits ("toString")', () => {
    const result = AgentsConfig.safeParse({ ...(config() as object), main_agent: 'toString' });
    assert.equal(result.success, false);
    if (!result.success) {
      assert.deepEqual(result.error.issues[0]!.path, ['main_agent']);
      assert.match(result.error.issues[0]!.message, /main_agent "toString" is not defined under agents \(defined: a\)/);
    }
  });

  it('rejects a picker agent that is only an inherited property ("constructor")', () => {
    const result = AgentsConfig.safeParse(config({}, { tools: ['constructor'] }));
    assert.equal(result.success, false);
    if (!result.success) {
      assert.deepEqual(result.error.issues[0]!.path, ['tools', 0]);
      assert.match(result.error.issues[0]!.message, /tools names "constructor", which is not defined under agents/);
    }
  });

  it('accepts a picker agent that is defined', () => {
    const parsed = AgentsConfig.parse(config({}, { tools: ['b'], agents: { a: agent(), b: agent() } }));
    assert.deepEqual(parsed.tools, ['b']);
  });
});

describe('agentsResponse', () => {
  it('answers GET /api/agents with the main agent and the picker agents in config order, as summaries', () => {
    const parsed = AgentsConfig.parse({
      main_agent: 'qa',
      tools: ['writer', 'builder'],
      agents: {
        qa: { ...agent(), label: 'Q&A', description: 'Answers.' },
        builder: { ...agent(), label: 'Builder', description: 'Builds pages.', max_hops: 12 },
        writer: { ...agent(), label: 'Writer', description: 'Writes copy.' },
      },
    });
    const response = agentsResponse(parsed);
    assert.deepEqual(response, {
      main_agent: { id: 'qa', label: 'Q&A', description: 'Answers.' },
      tools: [
        { id: 'writer', label: 'Writer', description: 'Writes copy.' },
        { id: 'builder', label: 'Builder', description: 'Builds pages.' },
      ],
    });
    assert.equal(AgentsResponse.safeParse(response).success, true);
  });
});
