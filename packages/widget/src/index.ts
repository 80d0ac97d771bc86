// @canvas-ai/widget: the hop loop and the <canvas-ai-chat> class. Re-exports only; no side effects
// (import '@canvas-ai/widget/define' to register the element).
export * from './hop-loop.js';
export * from './retry.js';
export * from './build-request.js';
export * from './serialize-request.js';
export * from './read-response.js';
export * from './turn-error.js';
export * from './ids.js';
export * from './events.js';
export * from './canvas-ai-chat/narration.js';
export * from './canvas-ai-chat/agents-context.js';
export type { ChatOptions } from './canvas-ai-chat/deep-chat-theme.js';
export * from './canvas-ai-chat/canvas-ai-chat.component.js';
export * from './canvas-ai-chat/tool-picker/tool-picker.component.js';
