import { askQuestionTool } from './ask-question.js';
import { editComponentsTool } from './edit-components.js';
import { getComponentDetailsTool } from './get-component-details.js';
import { moveComponentsTool } from './move-components.js';
import { placeComponentsTool } from './place-components.js';
import { proposePlanTool } from './propose-plan.js';
import { removeComponentsTool } from './remove-components.js';
import { requestScreenshotTool } from './request-screenshot.js';
import { setPageValueTool } from './set-page-value.js';
import { REQUIRED_OUTPUT_TYPES } from '../wire/outputs.js';
import type { ToolDefinition } from './tool-definition.js';

/** The names of the tools every Canvas AI server ships (spec §12). */
export type BuiltinToolName =
  | 'place_components'
  | 'edit_components'
  | 'set_page_value'
  | 'remove_components'
  | 'move_components'
  | 'get_component_details'
  | 'ask_question'
  | 'request_screenshot'
  | 'propose_plan';

/**
 * The built-in tools (spec §12) by name: pure and deterministic, so a replayed scenario gets the same outputs. The
 * remove and move tools are offered only to a client that declared their outputs (spec §5.1, {@link offeredTools}).
 */
export const builtinTools: Record<BuiltinToolName, ToolDefinition> = {
  place_components: placeComponentsTool,
  edit_components: editComponentsTool,
  set_page_value: setPageValueTool,
  remove_components: removeComponentsTool,
  move_components: moveComponentsTool,
  get_component_details: getComponentDetailsTool,
  ask_question: askQuestionTool,
  request_screenshot: requestScreenshotTool,
  propose_plan: proposePlanTool,
};

/**
 * The tools an agent has: its `tools`, and `propose_plan` when it plans first (spec §12.4, §20.4). Which of them a
 * turn offers is {@link offeredTools}' to say.
 */
export function agentToolNames(agent: { tools: readonly string[]; plan_first?: boolean | undefined }): string[] {
  return agent.plan_first ? [...agent.tools, proposePlanTool.name] : [...agent.tools];
}

/**
 * The tools of `names` a turn may offer its model (spec §5.1, §20.1): every tool whose output type every v1 host
 * applies (or that has no output), a tool of a type the client must declare only when the turn's client declared it,
 * and a tool that makes the turn wait only when the client declared that kind of wait.
 */
export function offeredTools(
  tools: Readonly<Record<string, ToolDefinition>>,
  names: readonly string[],
  declared: readonly string[],
  declaredWaits: readonly string[] = [],
): Record<string, ToolDefinition> {
  const offered: Record<string, ToolDefinition> = {};
  for (const name of names) {
    const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (!tool) continue;
    if (tool.waitKind !== undefined && !declaredWaits.includes(tool.waitKind)) continue;
    const type = tool.outputType;
    if (type === undefined || (REQUIRED_OUTPUT_TYPES as readonly string[]).includes(type) || declared.includes(type))
      offered[name] = tool;
  }
  return offered;
}
