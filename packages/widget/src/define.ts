// The package's only side effect: registers <deep-chat>, <canvas-ai-chat> and its tools picker (once, even when
// this module is loaded twice, e.g. by two bundles on one page).
import 'deep-chat';
import { CanvasAiChat } from './canvas-ai-chat/canvas-ai-chat.component.js';
import { CanvasAiToolPicker } from './canvas-ai-chat/tool-picker/tool-picker.component.js';

export * from './index.js';

if (!customElements.get('canvas-ai-tool-picker')) customElements.define('canvas-ai-tool-picker', CanvasAiToolPicker);
if (!customElements.get('canvas-ai-chat')) customElements.define('canvas-ai-chat', CanvasAiChat);

declare global {
  interface HTMLElementTagNameMap {
    'canvas-ai-chat': CanvasAiChat;
    'canvas-ai-tool-picker': CanvasAiToolPicker;
  }
}
