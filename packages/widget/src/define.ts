// The package's only side effect: registers <deep-chat>, <canvas-ai-chat> and its tools picker (once, even when
// this module is loaded twice, e.g. by two bundles on one page). Its declarations are the root's (package.json
// points its types there): the tag names are declared beside each class, so no host compile sees deep-chat's.
import 'deep-chat';
import { CanvasAiChat } from './canvas-ai-chat/canvas-ai-chat.component.js';
import { CanvasAiToolPicker } from './canvas-ai-chat/tool-picker/tool-picker.component.js';

export * from './index.js';

if (!customElements.get('canvas-ai-tool-picker')) customElements.define('canvas-ai-tool-picker', CanvasAiToolPicker);
if (!customElements.get('canvas-ai-chat')) customElements.define('canvas-ai-chat', CanvasAiChat);
