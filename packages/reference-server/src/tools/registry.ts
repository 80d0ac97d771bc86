import { builtinTools, type ToolDefinition } from '@canvas-ai/protocol/server';

/**
 * The tools this server offers: the protocol's built-in ones (DESIGN §5) plus any a backend team adds. Agents pick
 * from these by name in the agents config; a name used twice is a start-up error, never a silent override.
 */
export function createToolRegistry(extra: readonly ToolDefinition[] = []): Record<string, ToolDefinition> {
  const registry: Record<string, ToolDefinition> = { ...builtinTools };
  for (const tool of extra) {
    if (!/^[a-z][a-z0-9_]*$/.test(tool.name)) {
      throw new Error(`Tool name "${tool.name}" must be snake_case (a-z, 0-9, _), as agents configs name tools.`);
    }
    if (Object.hasOwn(registry, tool.name)) {
      throw new Error(`A tool named "${tool.name}" already exists; give the added tool another name.`);
    }
    registry[tool.name] = tool;
  }
  return registry;
}
