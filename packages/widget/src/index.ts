// @canvas-ai/widget: the <canvas-ai-chat> element classes, their events and types, and the hop loop. Re-exports
// only, no side effects (import '@canvas-ai/widget/define' to register the element).
export type {
  CanvasAiErrorEvent,
  CanvasAiEventMap,
  CanvasAiHopEvent,
  CanvasAiResumeEvent,
  CanvasAiTurnEndEvent,
  CanvasAiTurnStartEvent,
  CanvasAiUndoEvent,
  ErrorDetail,
  HopDetail,
  ResumeDetail,
  TurnEndDetail,
  TurnStartDetail,
  UndoDetail,
} from './events.js';
export type {
  ChatCss,
  ChatMessageContent,
  ChatOptions,
  ChatTextInput,
  DeepChatElement,
} from './canvas-ai-chat/chat-types.js';
export { CanvasAiChat, type SendMessageOptions } from './canvas-ai-chat/canvas-ai-chat.component.js';
export { CanvasAiToolPicker } from './canvas-ai-chat/tool-picker/tool-picker.component.js';
// The loop's names are listed once, in the lit-free entry.
export * from './loop.js';
