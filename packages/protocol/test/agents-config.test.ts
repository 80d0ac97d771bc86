import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { AgentsConfig, DEFAULT_AGENT_HOPS, MAX_AGENT_HOPS } from '../src/index.js';

// The agents config schema's own rules: the max_hops bound and the cross-references between its keys.

/** A config with one agent `a` (the main agent) and `settings` merged into that agent. */
function config(settings: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): unknown {
  return {
    main_agent: 'a',
    agents: { a: { label: 'A', description: 'An agent.', system_prompt: 'Help.', ...settings } },
    ...extra,
  };
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
