// The glue between <canvas-ai-chat> and a GrapesJS editor: what a host developer writes. The page is GrapesJS's
// own component tree; the chat reads it at the start of every hop (getLayout) and writes to it through the protocol's
// shared reducer (applyOutputs), and one agent turn becomes one step of GrapesJS's undo history.
import { applyOutputsWithResults, type CanvasDocument, type JsonValue } from '@canvas-ai/protocol';
import type { CanvasAiChat } from '@canvas-ai/widget';
import type { Component, Editor } from 'grapesjs';
import { fromNode, isCatalogComponent, toNode, updateProps, uuidOf } from './components.js';
import { planPlaceholders } from './plan-placeholders.js';

/** Page values (spec §11: `set_page_value`) live on GrapesJS's wrapper as `data-page-<field>`, so its undo has them. */
const PAGE_ATTRIBUTE = 'data-page-';

export function connectChat(chat: CanvasAiChat, editor: Editor): void {
  const wrapper = () => editor.getWrapper()!;
  const rows = () => wrapper().components().filter(isCatalogComponent);

  // Every catalog component carries a uuid. A block dropped in gets one; a copy gets its own, since GrapesJS copies
  // the attributes and a uuid held twice ends the chat's turn (spec §16.4).
  editor.on('component:add', (component: Component) => {
    if (isCatalogComponent(component) && !uuidOf(component)) component.addAttributes({ 'data-uuid': newUuid() });
  });
  editor.on('component:clone', (component: Component) => {
    if (isCatalogComponent(component)) component.addAttributes({ 'data-uuid': newUuid() });
  });

  /** GrapesJS → protocol: the page as it is now, with the person's edits (never a cached copy). */
  const currentDocument = (): CanvasDocument => ({
    layout: { regions: { content: { components: rows().map(toNode) } } },
    page: pageValues(wrapper()),
  });

  chat.getLayout = () => {
    const selected = editor.getSelected();
    return {
      ...currentDocument(),
      selectedComponent: selected && isCatalogComponent(selected) ? (uuidOf(selected) ?? null) : null,
    };
  };
  // The shared reducer decides (placements, edits that know what they replace, removals, moves) and refuses an edit
  // of a value the person changed meanwhile; GrapesJS is then brought to the document it returned.
  chat.applyOutputs = (outputs) => {
    const { document, results } = applyOutputsWithResults(currentDocument(), outputs);
    show(document);
    return results;
  };

  /** protocol → GrapesJS: changes only what differs, so GrapesJS records the agent's changes and nothing else. */
  function show(document: CanvasDocument): void {
    const wanted = document.layout.regions.content?.components ?? [];
    const keep = new Set(wanted.map((node) => node.uuid));
    for (const row of rows()) if (!keep.has(uuidOf(row) ?? '')) row.remove();
    wanted.forEach((node, at) => {
      const current = rows();
      const row = current.find((candidate) => uuidOf(candidate) === node.uuid);
      if (row && current.indexOf(row) === at) {
        updateProps(row, node);
        return;
      }
      row?.remove(); // a move: taken out, put back where it belongs
      const index = at < current.length ? wrapper().components().indexOf(current[at]!) : undefined;
      wrapper()
        .components()
        .add(fromNode(node), index === undefined ? {} : { at: index });
    });
    setPageValues(wrapper(), document.page);
  }

  // The agent's plan on the canvas (spec §20.4): placeholders outside GrapesJS's component tree, so getLayout, the
  // undo history and the HTML export never carry them; each row the turn builds takes the place of the first left.
  const placeholders = planPlaceholders(editor);
  chat.showPlan = (plan) => placeholders.show(plan);
  chat.clearPlan = () => placeholders.clear();

  // One agent turn, one undo step (spec §17.5): GrapesJS's undo (Ctrl+Z) takes back every entry recorded while it ran,
  // as one group. Its history is a plain stack, so what the person changed during the turn joins that step.
  chat.noUndo = true;
  const undo = editor.UndoManager;
  let turnStart = 0;
  chat.addEventListener('canvas-ai-turn-start', () => {
    turnStart = undo.getStack().length;
  });
  chat.addEventListener('canvas-ai-turn-end', () => {
    const entries = (undo.getStack() as unknown as UndoStack).models.slice(turnStart);
    const group = entries[0]?.get('magicFusionIndex');
    for (const entry of entries) entry.set('magicFusionIndex', group);
  });
}

/** GrapesJS's undo stack (a Backbone collection); entries sharing a `magicFusionIndex` are undone together. */
interface UndoStack {
  models: Array<{ get(key: string): unknown; set(key: string, value: unknown): void }>;
}

function pageValues(wrapper: Component): Record<string, JsonValue> {
  const values: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(wrapper.getAttributes())) {
    if (name.startsWith(PAGE_ATTRIBUTE)) values[name.slice(PAGE_ATTRIBUTE.length)] = JSON.parse(String(value));
  }
  return values;
}

function setPageValues(wrapper: Component, page: Record<string, JsonValue>): void {
  const current = pageValues(wrapper);
  for (const name of Object.keys(current)) if (!(name in page)) wrapper.removeAttributes(`${PAGE_ATTRIBUTE}${name}`);
  for (const [name, value] of Object.entries(page)) {
    if (JSON.stringify(current[name]) !== JSON.stringify(value))
      wrapper.addAttributes({ [`${PAGE_ATTRIBUTE}${name}`]: JSON.stringify(value) });
  }
}

function newUuid(): string {
  return crypto.randomUUID();
}
