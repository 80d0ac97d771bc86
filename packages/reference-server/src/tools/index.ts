// Adding a tool: write one module exporting a ToolDefinition (name, description, zod input, allowParallel, execute)
// and pass it to createApp({ tools: [myTool] }). See "Adding a tool" in the package README.
export { createToolRegistry } from './registry.js';
export {
  ToolInputError,
  type ToolContext,
  type ToolDefinition,
  type ToolExecution,
} from '@canvas-ai/protocol/server';
