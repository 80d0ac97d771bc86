import { editComponentsTool } from './edit-components.js';
import { getComponentDetailsTool } from './get-component-details.js';
import { placeComponentsTool } from './place-components.js';
import { setPageValueTool } from './set-page-value.js';
import type { ToolDefinition } from './tool-definition.js';

/** The names of the tools every Canvas AI server ships (spec §12). */
export type BuiltinToolName = 'place_components' | 'edit_components' | 'set_page_value' | 'get_component_details';

/** The built-in tools (spec §12) by name: pure and deterministic, so a replayed scenario gets the same outputs. */
export const builtinTools: Record<BuiltinToolName, ToolDefinition> = {
  place_components: placeComponentsTool,
  edit_components: editComponentsTool,
  set_page_value: setPageValueTool,
  get_component_details: getComponentDetailsTool,
};
