// Registers <canvas-ai-chat> and its tools picker, once even when loaded twice (e.g. by two bundles on one page). No
// side effect of its own: define.ts calls it in a browser once deep-chat is loaded, standalone.ts after its static
// import of deep-chat.
import { CanvasAiChat } from './canvas-ai-chat/canvas-ai-chat.component.js';
import { CanvasAiToolPicker } from './canvas-ai-chat/tool-picker/tool-picker.component.js';

/** Defines `<canvas-ai-tool-picker>` and `<canvas-ai-chat>` unless defined; `<deep-chat>` must be registered first. */
export function defineElements(): void {
  if (!customElements.get('canvas-ai-tool-picker')) customElements.define('canvas-ai-tool-picker', CanvasAiToolPicker);
  if (!customElements.get('canvas-ai-chat')) customElements.define('canvas-ai-chat', CanvasAiChat);
}
