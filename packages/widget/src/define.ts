// The package's only side effect: registers <deep-chat>, <canvas-ai-chat> and its tools picker. Its declarations are
// the root's (package.json points its types there): the tag names are declared beside each class, so no host
// compile sees deep-chat's.
//
// In a browser only. Server rendering imports the host's modules in Node, where there is no `window`: there this
// module defines nothing and never loads deep-chat, whose modules read `window` as they load. The element classes
// themselves load in Node (lit's Node build). deep-chat is awaited before the tags are defined, so once this module
// has loaded, <canvas-ai-chat> is defined and creates its <deep-chat> at once, as before.
import { defineElements } from './define-elements.js';

export * from './index.js';

if (typeof window !== 'undefined' && typeof customElements !== 'undefined') {
  await import('deep-chat');
  defineElements();
}
