import { ToolName } from '@canvas-ai/protocol';
import { builtinTools, type ToolDefinition } from '@canvas-ai/protocol/server';
import { ConfigError } from '../config-error.js';

/**
 * The tools this server offers: the protocol's built-in ones (spec/hop-protocol.md §12) plus any a backend team
 * adds. Agents pick from these by name in the agents config; a bad or repeated name is a start-up
 * {@link ConfigError} naming the `createApp({ tools })` entry, never a silent override.
 */
export function createToolRegistry(extra: readonly ToolDefinition[] = []): Record<string, ToolDefinition> {
  const registry: Record<string, ToolDefinition> = { ...builtinTools };
  const problems: string[] = [];
  extra.forEach((tool, index) => {
    const where = `createApp({ tools }): tools.${index}.name`;
    if (!ToolName.safeParse(tool.name).success) {
      problems.push(`${where}: "${tool.name}" is not snake_case (a-z, 0-9, _); agents configs name tools that way.`);
    } else if (Object.hasOwn(registry, tool.name)) {
      problems.push(`${where}: a tool named "${tool.name}" already exists; give the added tool another name.`);
    } else registry[tool.name] = tool;
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return registry;
}
