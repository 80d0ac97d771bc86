import {
  applyOutputs,
  applyOutputsWithResults,
  findComponent,
  type ApplyResult,
  type CanvasDocument,
  type ComponentNode,
  type Layout,
  type Props,
  type ToolOutput,
} from '@canvas-ai/protocol';

/** What changed in the last apply, so the canvas can highlight it briefly. */
export interface StoreChange {
  placed: string[];
  edited: string[];
  pageFields: string[];
}

type Listener = (change: StoreChange) => void;

/**
 * The host editor's store: it owns the document (layout + page fields) and the selection.
 * The chat reads it through `snapshot()` (its `getLayout`) and writes to it only through `apply()` (its
 * `applyOutputs`), with the protocol's shared reducer. The person edits it too, at any time, with `edit()` and
 * `remove()`: the next hop carries their changes (spec §16).
 */
export class EditorStore {
  #document: CanvasDocument;
  #selected: string | null = null;
  readonly #listeners = new Set<Listener>();

  constructor(initial: CanvasDocument) {
    this.#document = initial;
  }

  /** The current document (immutable: replaced on every change). */
  get document(): CanvasDocument {
    return this.#document;
  }

  /** The selected component's uuid, or null. */
  get selected(): string | null {
    return this.#selected;
  }

  /** The document as the store holds it right now: what the chat's `getLayout()` returns at the start of every hop. */
  snapshot(): {
    layout: Layout;
    page: CanvasDocument['page'];
    selectedComponent: string | null;
    extra: { editor: string };
  } {
    return {
      layout: this.#document.layout,
      page: this.#document.page,
      selectedComponent: this.#selected,
      extra: { editor: 'canvas-ai-demo' },
    };
  }

  /** Applies a hop's outputs with the shared reducer and reports each one back as an apply result. */
  apply(outputs: readonly ToolOutput[]): ApplyResult[] {
    const { document, results } = applyOutputsWithResults(this.#document, outputs);
    this.#document = document;
    const applied = new Set(results.filter((r) => r.status === 'applied').map((r) => r.call_id));
    const change: StoreChange = { placed: [], edited: [], pageFields: [] };
    for (const output of outputs) {
      if (!applied.has(output.call_id)) continue;
      if (output.type === 'place_components') {
        for (const operation of output.operations) change.placed.push(...operation.components.map((node) => node.uuid));
      } else if (output.type === 'edit_components') {
        change.edited.push(...Object.keys(output.component_updates));
      } else if (output.type === 'set_page_value') {
        change.pageFields.push(output.field);
      } else if (output.type === 'move_components') {
        for (const operation of output.operations) change.placed.push(...operation.uuids);
      }
    }
    this.#emit(change);
    return results;
  }

  /**
   * The person sets props of a component (the inspector), through the same reducer as the agent's edits. No
   * `replaces`: the person edits what they see. Only changed props are applied; nothing changes when none did.
   */
  edit(uuid: string, props: Props): void {
    const node = findComponent(this.#document.layout, uuid);
    if (!node) return;
    const changed = Object.fromEntries(
      Object.entries(props).filter(([name, value]) => JSON.stringify(node.props[name]) !== JSON.stringify(value)),
    );
    if (Object.keys(changed).length === 0) return;
    this.#document = applyOutputs(this.#document, [
      { type: 'edit_components', call_id: 'person', component_updates: { [uuid]: changed } },
    ]);
    this.#emit({ placed: [], edited: [], pageFields: [] });
  }

  /**
   * The person removes a component, its slot children with it. The protocol has no remove output, so this is the
   * store's own change; the server sees the row gone in the next hop's document.
   */
  remove(uuid: string): void {
    const layout = withoutComponent(this.#document.layout, uuid);
    if (layout === this.#document.layout) return;
    this.#document = { ...this.#document, layout };
    if (this.#selected !== null && !findComponent(layout, this.#selected)) this.#selected = null;
    this.#emit({ placed: [], edited: [], pageFields: [] });
  }

  /** Selects a component (or clears the selection with null). */
  select(uuid: string | null): void {
    this.#selected = uuid === this.#selected ? null : uuid;
    this.#emit({ placed: [], edited: [], pageFields: [] });
  }

  /** Replaces the whole document (a new page). */
  reset(document: CanvasDocument): void {
    this.#document = document;
    this.#selected = null;
    this.#emit({ placed: [], edited: [], pageFields: [] });
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(change: StoreChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}

/**
 * The layout without the component `uuid` (at any depth) and its slot children. Pure: returns the same layout when
 * no component has that uuid, and otherwise new objects only on the path to it.
 */
function withoutComponent(layout: Layout, uuid: string): Layout {
  const prune = (nodes: ComponentNode[]): ComponentNode[] => {
    let changed = false;
    const kept: ComponentNode[] = [];
    for (const node of nodes) {
      if (node.uuid === uuid) {
        changed = true;
        continue;
      }
      const slots = node.slots && pruneSlots(node.slots);
      if (slots !== node.slots) changed = true;
      kept.push(slots === node.slots ? node : { ...node, slots });
    }
    return changed ? kept : nodes;
  };
  const pruneSlots = (slots: Record<string, ComponentNode[]>): Record<string, ComponentNode[]> => {
    const entries = Object.entries(slots).map(([slot, children]) => [slot, prune(children)] as const);
    return entries.some(([slot, children]) => children !== slots[slot]) ? Object.fromEntries(entries) : slots;
  };
  const regions = Object.entries(layout.regions).map(([id, region]) => {
    const components = prune(region.components);
    return [id, components === region.components ? region : { ...region, components }] as const;
  });
  return regions.some(([id, region]) => region !== layout.regions[id])
    ? { ...layout, regions: Object.fromEntries(regions) }
    : layout;
}

/** An empty page with one content region. */
export function emptyDocument(): CanvasDocument {
  const layout: Layout = { regions: { content: { components: [] as ComponentNode[] } } };
  return { layout, page: {} };
}
