import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  AgentsConfig,
  AgentsResponse,
  agentsResponse,
  canvasAgentIds,
  DEFAULT_AGENT_HOPS,
  MAX_AGENT_HOPS,
  settingsProblems,
} from '../src/index.js';

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

describe('AgentsConfig: the settings rules (spec §12.4)', () => {
  /** Three agents: the site's own `qa` and `builder`, and a third party's `vendor`, left off the allow-list. */
  const agents = { qa: agent(), builder: agent(), vendor: agent() };

  /** The problems of a config, as `key: message` lines. */
  function problems(value: Record<string, unknown>): string[] {
    const result = AgentsConfig.safeParse({ agents, canvas_agents: ['qa', 'builder'], ...value });
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  }

  it('accepts a main agent and tools chosen among the canvas agents', () => {
    assert.deepEqual(problems({ main_agent: 'qa', tools: ['builder'] }), []);
  });

  it('refuses a main agent that is also a tool, naming the tool', () => {
    assert.deepEqual(problems({ main_agent: 'qa', tools: ['builder', 'qa'] }), [
      'tools.1: "qa" is the main agent; remove it from tools (the main agent answers when nothing is picked)',
    ]);
  });

  it('refuses agents that are not canvas agents or not defined, one problem each', () => {
    assert.deepEqual(problems({ main_agent: 'vendor', tools: ['builder'] }), [
      'main_agent: main_agent "vendor" is not a canvas agent; add it to canvas_agents or pick one of: qa, builder',
    ]);
    assert.deepEqual(problems({ main_agent: 'qa', tools: ['vendor', 'ghost'] }), [
      'tools.0: tools names "vendor", which is not a canvas agent; add it to canvas_agents or pick one of: qa, builder',
      'tools.1: tools names "ghost", which is not defined under agents (defined: qa, builder, vendor)',
    ]);
  });

  it('refuses a tool listed twice', () => {
    assert.deepEqual(problems({ main_agent: 'qa', tools: ['builder', 'builder'] }), [
      'tools.1: "builder" is listed twice in tools; list it once',
    ]);
  });

  it('refuses an allow-list naming an agent that is not defined', () => {
    const result = AgentsConfig.safeParse({ main_agent: 'qa', agents, canvas_agents: ['qa', 'ghost'] });
    assert.equal(result.success, false);
    if (!result.success) {
      assert.deepEqual(result.error.issues[0]!.path, ['canvas_agents', 1]);
      assert.match(result.error.issues[0]!.message, /canvas_agents names "ghost", which is not defined under agents/);
    }
  });

  it('takes every defined agent as a canvas agent when the config has no allow-list', () => {
    const parsed = AgentsConfig.parse({ main_agent: 'vendor', tools: ['qa'], agents });
    assert.deepEqual(canvasAgentIds(parsed), ['qa', 'builder', 'vendor']);
    assert.deepEqual(settingsProblems({ main_agent: 'vendor', tools: ['qa'] }, parsed), []);
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
