import * as z from 'zod';
import type { AgentSettings } from '../wire/admin.js';
import type { AgentSummary, AgentsResponse } from '../wire/agents.js';
import { AgentId } from '../wire/ids.js';
import { SafeKey } from '../wire/json.js';
import { TOOL_OUTPUT_TYPES } from '../wire/outputs.js';
import { DEFAULT_AGENT_HOPS, MAX_AGENT_HOPS } from '../wire/limits.js';

/** Per-tool settings of one agent (spec §12, "One call at a time"). */
export const ToolSettings = z
  .object({
    /** When false, a second call of this tool in one model reply is not executed. */
    allow_parallel: z.boolean().optional(),
    /** Told to the model for each call that was not executed because of `allow_parallel: false`. */
    parallel_message: z.string().optional(),
  })
  .meta({ id: 'ToolSettings' });
export type ToolSettings = z.infer<typeof ToolSettings>;

/** A tool name as agents reference it. */
export const ToolName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'a tool name is snake_case');

/** Which outputs of an agent need the person's approval (spec §20.5). */
export const ApprovalRule = z
  .object({
    outputs: z.array(z.enum(TOOL_OUTPUT_TYPES)).default([]),
    over_components: z.int().min(1).optional(),
  })
  .meta({ id: 'ApprovalRule' });
export type ApprovalRule = z.infer<typeof ApprovalRule>;

/** One agent of the agents config (spec/schema/agents-config.schema.json is generated from these schemas). */
export const AgentDefinition = z
  .object({
    label: z.string().min(1),
    description: z.string().min(1),
    system_prompt: z.string().min(1),
    tools: z.array(ToolName).default([]),
    max_hops: z.int().min(1).max(MAX_AGENT_HOPS).default(DEFAULT_AGENT_HOPS),
    tool_settings: z.record(ToolName, ToolSettings).default({}),
    /** Whether the project's own documentation is added to this agent's context. */
    include_docs: z.boolean().default(false),
    /**
     * The outputs that need the person's approval (revision 1.8, spec §20.5): of a type listed in `outputs`, or
     * touching more than `over_components` components.
     */
    approve: ApprovalRule.optional(),
    /**
     * Whether the agent proposes a plan before it builds (revision 1.8, spec §20.4): it gets `propose_plan` when its
     * turn's client declared the wait `plan`, and builds without a plan otherwise.
     */
    plan_first: z.boolean().default(false),
  })
  .superRefine((agent, ctx) => {
    const propose = agent.tools.indexOf('propose_plan');
    if (propose >= 0)
      ctx.addIssue({
        code: 'custom',
        path: ['tools', propose],
        message: 'propose_plan is offered by plan_first: true; remove it from tools and set plan_first',
      });
    if (agent.plan_first && !agent.tools.includes('place_components'))
      ctx.addIssue({
        code: 'custom',
        path: ['plan_first'],
        message: 'plan_first needs place_components in tools (the agent would plan what it cannot build)',
      });
  })
  .meta({ id: 'AgentDefinition' });
export type AgentDefinition = z.infer<typeof AgentDefinition>;

/** A page field the `set_page_value` tool may set. */
export const PageField = z
  .object({ name: z.pipe(SafeKey, z.string().min(1).max(100)), label: z.string(), description: z.string().optional() })
  .meta({ id: 'PageField' });
export type PageField = z.infer<typeof PageField>;

/** What {@link settingsProblems} checks settings against: the agents defined, and the canvas agents' allow-list. */
export interface SettingsRules {
  agents: Readonly<Record<string, unknown>>;
  /** The site's own canvas agents; absent, every defined agent is one. */
  canvas_agents?: readonly string[];
}

/** One broken settings rule: the key it is at and what is wrong, with the fix. */
export interface SettingsProblem {
  path: (string | number)[];
  message: string;
}

/**
 * The settings rules (spec §12.4), one problem per broken rule: the main agent and every tool are defined and are
 * canvas agents (on the allow-list), the main agent is never offered as a tool, and no tool is listed twice. The one
 * check of both the agents file and the admin surface.
 */
export function settingsProblems(settings: AgentSettings, rules: SettingsRules): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  // Own keys only: `in` would also find `toString` or `constructor` on the prototype of every object.
  const defined = Object.keys(rules.agents);
  const allowed = rules.canvas_agents ?? defined;
  const definedList = defined.join(', ') || 'none';
  // `subject` is how a message starts: `main_agent "qa" is` or `tools names "qa", which is`.
  const check = (id: string, path: (string | number)[], subject: string): void => {
    if (!Object.hasOwn(rules.agents, id)) {
      problems.push({ path, message: `${subject} not defined under agents (defined: ${definedList})` });
    } else if (!allowed.includes(id)) {
      problems.push({
        path,
        message: `${subject} not a canvas agent; add it to canvas_agents or pick one of: ${allowed.join(', ') || 'none'}`,
      });
    }
  };
  check(settings.main_agent, ['main_agent'], `main_agent "${settings.main_agent}" is`);
  settings.tools.forEach((id, index) => {
    if (id === settings.main_agent) {
      problems.push({
        path: ['tools', index],
        message: `"${id}" is the main agent; remove it from tools (the main agent answers when nothing is picked)`,
      });
    } else if (settings.tools.indexOf(id) !== index) {
      problems.push({ path: ['tools', index], message: `"${id}" is listed twice in tools; list it once` });
    } else {
      check(id, ['tools', index], `tools names "${id}", which is`);
    }
  });
  return problems;
}

/**
 * The site admin's agents config: one main agent, the agents offered in the picker, and every agent's settings.
 * Cross-references are checked here; whether each named tool exists is the server's check (it owns the tools).
 */
export const AgentsConfig = z
  .object({
    main_agent: AgentId,
    tools: z.array(AgentId).default([]),
    /**
     * The site's own canvas agents: the only ones the main agent and the tools may be, and the only ones a settings
     * screen offers (third-party agents defined under `agents` stay hidden). Default: every agent defined.
     */
    canvas_agents: z.array(AgentId).optional(),
    agents: z.record(AgentId, AgentDefinition),
    page_fields: z.array(PageField).default([]),
    /** Earlier transcript messages fed to the model on hop 1 (the current message always is). */
    history_limit: z.int().min(0).max(1000).default(20),
  })
  .superRefine((config, ctx) => {
    config.canvas_agents?.forEach((id, index) => {
      if (!Object.hasOwn(config.agents, id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['canvas_agents', index],
          message: `canvas_agents names "${id}", which is not defined under agents`,
        });
      }
    });
    for (const problem of settingsProblems(config, config)) ctx.addIssue({ code: 'custom', ...problem });
  })
  .meta({ id: 'AgentsConfig', description: 'Agents: the main agent, the picker, prompts, tools and limits.' });
export type AgentsConfig = z.infer<typeof AgentsConfig>;

/** The agents a settings screen may offer: the canvas agents' allow-list, or every agent defined (spec §12.4). */
export function canvasAgentIds(config: AgentsConfig): string[] {
  return config.canvas_agents ?? Object.keys(config.agents);
}

/** The body of `GET /api/agents` for a config: the main agent and the picker's agents, each as the picker shows it. */
export function agentsResponse(config: AgentsConfig): AgentsResponse {
  const summary = (id: string): AgentSummary => ({
    id,
    label: config.agents[id]!.label,
    description: config.agents[id]!.description,
  });
  return { main_agent: summary(config.main_agent), tools: config.tools.map(summary) };
}
