import {
  applyOutputsWithResults,
  type ApplyResult,
  type CanvasDocument,
  type ComponentNode,
  type Layout,
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
 * `applyOutputs`), with the protocol's shared reducer.
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
      } else {
        change.pageFields.push(output.field);
      }
    }
    this.#emit(change);
    return results;
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

/** An empty page with one content region. */
export function emptyDocument(): CanvasDocument {
  const layout: Layout = { regions: { content: { components: [] as ComponentNode[] } } };
  return { layout, page: {} };
}
