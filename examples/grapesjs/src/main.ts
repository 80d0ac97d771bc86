// The GrapesJS example: the editor from the npm registry, the catalog's component types, and the chat.
import '@canvas-ai/widget/define';
import type { CanvasAiChat } from '@canvas-ai/widget';
import grapesjs from 'grapesjs';
import 'grapesjs/dist/css/grapes.min.css';
import { registerComponents } from './components.js';
import { connectChat } from './connect-chat.js';
import './example.css';

const editor = grapesjs.init({
  container: '#gjs',
  height: '100%',
  fromElement: false,
  storageManager: false,
  blockManager: { appendTo: '#blocks' },
  panels: { defaults: [] },
});
registerComponents(editor);

const chat = document.querySelector<CanvasAiChat>('#chat')!;
chat.outputTypes = ['place_components', 'edit_components', 'set_page_value', 'remove_components', 'move_components'];
connectChat(chat, editor);

// The page title, a page value the agent sets, shown above the editor.
const title = document.querySelector<HTMLElement>('#page-title')!;
editor.on('component:update', () => {
  const value = editor.getWrapper()?.getAttributes()['data-page-title'];
  title.textContent = value ? JSON.parse(value) : 'Untitled page';
});

// For the end-to-end test and the console: the editor.
Object.assign(window, { editor });
