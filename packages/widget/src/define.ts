// The package's only side effect: registers <deep-chat>, <canvas-ai-chat> and its tools picker (once, even when
// this module is loaded twice, e.g. by two bundles on one page). Its declarations are the root's (package.json
// points its types there): the tag names are declared beside each class, so no host compile sees deep-chat's.
//
// In a browser only. Server rendering imports the host's modules in Node, where there is no `window`: there this
// module defines nothing and never loads deep-chat, whose modules read `window` as they load. The element classes
// themselves load in Node (Lit's Node build). deep-chat is awaited before the tags are defined, so when this module
// has loaded, <canvas-ai-chat> is defined and can create its <deep-chat> at once, as before.
import { CanvasAiChat } from './canvas-ai-chat/canvas-ai-chat.component.js';
import { CanvasAiToolPicker } from './canvas-ai-chat/tool-picker/tool-picker.component.js';

export * from './index.js';

if (typeof window !== 'undefined' && typeof customElements !== 'undefined') {
  await import('deep-chat');
  if (!customElements.get('canvas-ai-tool-picker')) customElements.define('canvas-ai-tool-picker', CanvasAiToolPicker);
  if (!customElements.get('canvas-ai-chat')) customElements.define('canvas-ai-chat', CanvasAiChat);
}
