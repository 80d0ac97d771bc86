// The demo host: an editor store, a canvas that renders it, and <canvas-ai-chat> wired to both.
import '@canvas-ai/widget/define';
import type { CanvasAiChat } from '@canvas-ai/widget';
import { html, render } from 'lit';
import { EditorStore, emptyDocument } from './editor-store.js';
import { canvasView } from './render/canvas-view.js';
import { inspectorView } from './render/inspector-view.js';
import { SUGGESTIONS } from './suggestions.js';
import './demo.css';

/** How long placed or edited components stay highlighted. */
const HIGHLIGHT_MS = 1600;

const store = new EditorStore(emptyDocument());
const canvas = document.querySelector<HTMLElement>('#canvas')!;
const inspector = document.querySelector<HTMLElement>('#inspector')!;
const chat = document.querySelector<CanvasAiChat>('#chat')!;
let highlighted = new Set<string>();
let highlightTimer: ReturnType<typeof setTimeout> | undefined;

function paint(): void {
  render(
    canvasView({
      document: store.document,
      selected: store.selected,
      highlighted,
      onSelect: (uuid) => store.select(uuid),
      onRemove: (uuid) => store.remove(uuid),
    }),
    canvas,
  );
  render(
    inspectorView({
      document: store.document,
      selected: store.selected,
      onEdit: (uuid, props) => store.edit(uuid, props),
      onRemove: (uuid) => store.remove(uuid),
    }),
    inspector,
  );
}

store.subscribe((change) => {
  const touched = [...change.placed, ...change.edited];
  if (touched.length > 0) {
    highlighted = new Set(touched);
    clearTimeout(highlightTimer);
    highlightTimer = setTimeout(() => {
      highlighted = new Set();
      paint();
    }, HIGHLIGHT_MS);
  }
  paint();
  touched.at(-1) &&
    canvas
      .querySelector(`[data-uuid="${CSS.escape(touched.at(-1)!)}"]`)
      ?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
});

// The chat reads the store at the start of every hop and writes to it only through the shared reducer.
chat.getLayout = () => store.snapshot();
chat.applyOutputs = (outputs) => store.apply(outputs);

render(
  html`${SUGGESTIONS.map(
    (suggestion) => html`<button
      type="button"
      class="chip"
      title=${suggestion.hint}
      @click=${() => chat.sendMessage(suggestion.text, { agent: suggestion.agent })}
    >
      ${suggestion.label}
    </button>`,
  )}`,
  document.querySelector<HTMLElement>('#chips')!,
);

document.querySelector('#new-page')!.addEventListener('click', () => {
  chat.stop();
  store.reset(emptyDocument());
});

paint();
// For end-to-end tests and curious developers: the store, read-only by convention.
Object.assign(window, { canvasAiDemo: { store } });
