// The demo host: an editor store, a canvas that renders it, and <canvas-ai-chat> wired to both.
import '@canvas-ai/widget/define';
import { TOOL_OUTPUT_TYPES } from '@canvas-ai/protocol';
import type { CanvasAiChat } from '@canvas-ai/widget';
import type { ShownPlan } from '@canvas-ai/widget/loop';
import { html, render } from 'lit';
import { allowedAgentServer } from './agent-server.js';
import { EditorStore, emptyDocument } from './editor-store.js';
import { canvasView } from './render/canvas-view.js';
import { inspectorView } from './render/inspector-view.js';
import { screenshotOf } from './screenshot.js';
import { SettingsScreen, takeAdminTokenFromAddress } from './settings-screen.js';
import { SUGGESTIONS } from './suggestions.js';
import './demo.css';

/** How long placed or edited components stay highlighted. */
const HIGHLIGHT_MS = 1600;

// The page survives a reload of this tab (sessionStorage), so a turn the chat resumes goes on with it (spec §18).
const store = new EditorStore(emptyDocument(), sessionStorage);
const canvas = document.querySelector<HTMLElement>('#canvas')!;
const inspector = document.querySelector<HTMLElement>('#inspector')!;
const chat = document.querySelector<CanvasAiChat>('#chat')!;
const undoButton = document.querySelector<HTMLButtonElement>('#undo')!;

// `?agent-server=http://127.0.0.1:8787` points the chat at an agent server on another origin (spec §4.6), which must
// list this page's origin in its --allowed-origins; the session cookie then goes along with every request. Only this
// page's origin or one on the build's allow-list is taken (agent-server.ts); any other is ignored with a warning.
const agentServer = allowedAgentServer(
  new URLSearchParams(location.search).get('agent-server'),
  location.origin,
  import.meta.env.VITE_AGENT_SERVERS,
  (message) => console.warn(message),
);
if (agentServer) {
  chat.endpoint = new URL('/api/hop', agentServer).href;
  chat.tokenEndpoint = new URL('/api/token', agentServer).href;
  chat.agentsEndpoint = new URL('/api/agents', agentServer).href;
  chat.credentials = 'include';
}
const undoStatus = document.querySelector<HTMLElement>('#undo-status')!;
const reducedMotion = matchMedia('(prefers-reduced-motion: reduce)');
let highlighted = new Set<string>();
let highlightTimer: ReturnType<typeof setTimeout> | undefined;
/** The agent's plan while it waits or is built (spec §20.4): its rows not built yet are drawn as placeholders. */
let plan: ShownPlan | undefined;

function paint(): void {
  render(
    canvasView({
      document: store.document,
      selected: store.selected,
      highlighted,
      onSelect: (uuid) => store.select(uuid),
      onRemove: (uuid) => store.remove(uuid),
      planned: plan && { rows: plan.rows.slice(plan.built), firstNumber: plan.built + 1 },
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
  const step = store.peekUndo();
  undoButton.disabled = step === undefined;
  undoButton.title = step ? `Undo: ${step.label}` : 'Nothing to undo';
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
      ?.scrollIntoView({ block: 'nearest', behavior: reducedMotion.matches ? 'auto' : 'smooth' });
});

// The chat reads the store at the start of every hop and writes to it only through the shared reducer; the store
// applies every output type, so the chat declares them all (the remove and move tools, and Undo of a placement).
chat.outputTypes = [...TOOL_OUTPUT_TYPES];
chat.getLayout = () => store.snapshot();
chat.applyOutputs = (outputs, _response, info) => store.apply(outputs, info);
// The agent's plan on the canvas (spec §20.4): placeholders outside the store, so getLayout never sends them; each
// row the turn builds takes the place of the first placeholder left.
chat.showPlan = (shown) => {
  plan = shown;
  paint();
};
chat.clearPlan = () => {
  plan = undefined;
  paint();
};
// A look at the page (spec §20.3): the canvas, or the region around a component, as a PNG the agent may ask for.
chat.getScreenshot = ({ componentUuid }) => screenshotOf(canvas, componentUuid);
// One agent turn, one step of the editor's undo history, however many hops it took.
chat.addEventListener('canvas-ai-turn-end', ({ detail }) => store.recordTurn(detail.requestId, detail.inverse));

/**
 * The editor's Undo (the button, Ctrl+Z / Cmd+Z): the last step. The chat's own last turn goes through the chat, so
 * the chat shows what could not be undone and tells the model next time; everything else through the store.
 */
async function undo(): Promise<void> {
  const step = store.peekUndo();
  if (!step) return;
  if (step.requestId !== undefined && chat.canUndo) {
    await chat.undo();
    undoStatus.textContent = 'Undone: the agent’s turn (see the chat).';
    return;
  }
  const done = store.undo()!;
  undoStatus.textContent =
    done.rejected.length === 0
      ? `Undone: ${done.step.label}.`
      : `Undone: ${done.step.label}, except what was changed since (${done.rejected.length}).`;
}
undoButton.addEventListener('click', () => void undo());
document.addEventListener('keydown', (event) => {
  const typing = (event.target as HTMLElement | null)?.closest('input, textarea, [contenteditable], canvas-ai-chat');
  if ((event.ctrlKey || event.metaKey) && !event.shiftKey && event.key.toLowerCase() === 'z' && !typing) {
    event.preventDefault();
    void undo();
  }
});

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

// The settings screen (#settings), a second page of the same document: the editor and its chat stay as they are while
// it is shown, so going back needs no reload; the chat asks for the agents again at its next message (spec §3.1).
takeAdminTokenFromAddress();
const settings = new SettingsScreen(document.querySelector<HTMLElement>('#settings-screen')!);
const workspace = document.querySelector<HTMLElement>('.workspace')!;
const settingsPage = document.querySelector<HTMLElement>('#settings')!;
function showPage(): void {
  const onSettings = location.hash === '#settings';
  settingsPage.hidden = !onSettings;
  workspace.hidden = onSettings;
  if (onSettings) void settings.open();
}
addEventListener('hashchange', showPage);
showPage();
