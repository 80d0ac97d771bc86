import { editComponentsTool } from './edit-components.js';
import { getComponentDetailsTool } from './get-component-details.js';
import { placeComponentsTool } from './place-components.js';
import { setPageValueTool } from './set-page-value.js';
import type { ToolDefinition } from './tool-definition.js';

/** The names of the tools every Canvas AI server ships (§5). */
export type BuiltinToolName = 'place_components' | 'edit_components' | 'set_page_value' | 'get_component_details';

/** The built-in tools (§5) by name: pure and deterministic, so the reference server and the msw mock agree. */
export const builtinTools: Record<BuiltinToolName, ToolDefinition> = {
  place_components: placeComponentsTool,
  edit_components: editComponentsTool,
  set_page_value: setPageValueTool,
  get_component_details: getComponentDetailsTool,
};
