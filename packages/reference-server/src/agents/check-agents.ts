import type { AgentsConfig } from '@canvas-ai/protocol';
import { proposePlanTool } from '@canvas-ai/protocol/server';
import { ConfigError } from '../config-error.js';

/**
 * The cross-checks of the agents config only the server can make: every tool an agent names exists, and every tool setting
 * belongs to a tool the agent has. The protocol's schema has already checked the agent ids and the main agent.
 * Throws a {@link ConfigError} naming `source`, the key and the fix.
 */
export function checkAgentTools(config: AgentsConfig, toolNames: readonly string[], source: string): void {
  const known = new Set(toolNames);
  // propose_plan is not listed in tools: plan_first offers it (spec §12.4), and the schema refuses it there.
  const listed = toolNames.filter((name) => name !== proposePlanTool.name);
  const problems: string[] = [];
  for (const [agentId, agent] of Object.entries(config.agents)) {
    agent.tools.forEach((tool, index) => {
      if (!known.has(tool)) {
        problems.push(
          `${source}: agents.${agentId}.tools.${index}: there is no tool "${tool}". Use one of: ${listed.join(', ')}; ` +
            'or register the tool with createApp({ tools }) (see "Adding a tool" in the server README).',
        );
      }
    });
    for (const tool of Object.keys(agent.tool_settings)) {
      if (!agent.tools.includes(tool)) {
        problems.push(
          `${source}: agents.${agentId}.tool_settings.${tool}: "${agentId}" does not have the tool "${tool}". ` +
            `Add it to agents.${agentId}.tools or remove the setting.`,
        );
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
}
