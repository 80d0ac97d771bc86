import {
  applyOutputsWithResults,
  findComponent,
  Layout,
  PageValues,
  ToolOutput,
  type ApplyResult,
  type CanvasDocument,
  type ComponentNode,
  type Props,
} from '@canvas-ai/protocol';
import type { ApplyInfo } from '@canvas-ai/widget/loop';
import { withHeadingAnchors } from './heading-anchors.js';

/** What changed in the last apply, so the canvas can highlight it briefly. */
export interface StoreChange {
  placed: string[];
  edited: string[];
  pageFields: string[];
}

/**
 * One step of the editor's undo history: the outputs that take it back (spec §17), in the order to apply them. An
 * agent turn is ONE step, however many hops it took (`requestId` names it); each of the person's edits is one too.
 */
export interface UndoStep {
  label: string;
  inverse: ToolOutput[];
  /** The agent turn this step undoes, when it is one. */
  requestId?: string;
}

/** What an undo of the store did: the step, and what of it could not be undone (the person changed it since). */
export interface StoreUndo {
  step: UndoStep;
  rejected: ApplyResult[];
}

type Listener = (change: StoreChange) => void;

/** Where a tab keeps the page across a reload, so a turn resumed after it goes on with the same page (spec §18). */
interface KeptPage {
  document: CanvasDocument;
  undo: UndoStep[];
}

/** The most steps the undo history keeps. */
const MAX_UNDO_STEPS = 50;

/**
 * The host editor's store: it owns the document (layout + page fields), the selection and the undo history.
 * The chat reads it through `snapshot()` (its `getLayout`) and writes to it only through `apply()` (its
 * `applyOutputs`), with the protocol's shared reducer. The person edits it too, at any time, with `edit()` and
 * `remove()`: the next hop carries their changes (spec §16). Every change is one undo step with its inverse outputs;
 * an agent turn becomes one step when it ends (`recordTurn`, from the chat's `canvas-ai-turn-end`).
 */
export class EditorStore {
  #document: CanvasDocument;
  #selected: string | null = null;
  #undo: UndoStep[] = [];
  readonly #listeners = new Set<Listener>();
  readonly #storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | undefined;
  readonly #storageKey: string;

  /** `storage` keeps the page across a reload (default: none); what it holds wins over `initial`. */
  constructor(
    initial: CanvasDocument,
    storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>,
    storageKey = 'canvas-ai-demo:page',
  ) {
    this.#storage = storage;
    this.#storageKey = storageKey;
    const kept = this.#load();
    this.#document = withHeadingAnchors(kept?.document ?? initial);
    this.#undo = kept?.undo ?? [];
  }

  /** The current document (immutable: replaced on every change). */
  get document(): CanvasDocument {
    return this.#document;
  }

  /** The selected component's uuid, or null. */
  get selected(): string | null {
    return this.#selected;
  }

  /** The undo history, oldest first. */
  get undoSteps(): readonly UndoStep[] {
    return this.#undo;
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

  /**
   * Applies outputs with the shared reducer and reports each one back as an apply result: a hop's (the agent's turn
   * becomes an undo step when it ends), or the chat's undo of a turn, which takes that turn's step off the history.
   */
  apply(outputs: readonly ToolOutput[], info?: ApplyInfo): ApplyResult[] {
    const { document, results } = applyOutputsWithResults(this.#document, outputs);
    this.#document = withHeadingAnchors(document);
    if (info?.kind === 'undo') this.#undo = this.#undo.filter((step) => step.requestId !== info.requestId);
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
    this.#changed(change);
    return results;
  }

  /** Makes an agent turn one undo step: `inverse` is the whole turn's undo (the chat's `canvas-ai-turn-end` detail). */
  recordTurn(requestId: string, inverse: readonly ToolOutput[]): void {
    if (inverse.length === 0) return;
    this.#push({ label: 'Agent turn', inverse: [...inverse], requestId });
    this.#changed({ placed: [], edited: [], pageFields: [] });
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
    this.#personChange(`Edit ${Object.keys(changed).join(', ')}`, {
      type: 'edit_components',
      call_id: 'person',
      component_updates: { [uuid]: changed },
    });
  }

  /** The person removes a component, its slot children with it: a `remove_components` output (spec §11.4). */
  remove(uuid: string): void {
    const node = findComponent(this.#document.layout, uuid);
    if (!node) return;
    this.#personChange(`Remove ${node.component}`, { type: 'remove_components', call_id: 'person', uuids: [uuid] });
  }

  /** The last undo step, without taking it (the editor's Undo hands an agent turn to the chat, which says so). */
  peekUndo(): UndoStep | undefined {
    return this.#undo.at(-1);
  }

  /**
   * Undoes the last step with the shared reducer: what the person (or the agent) changed since stays, reported as
   * `rejected`. Undefined when there is nothing to undo.
   */
  undo(): StoreUndo | undefined {
    const step = this.#undo.pop();
    if (!step) return undefined;
    const { document, results } = applyOutputsWithResults(this.#document, step.inverse);
    this.#document = withHeadingAnchors(document);
    if (this.#selected !== null && !findComponent(document.layout, this.#selected)) this.#selected = null;
    this.#changed({ placed: [], edited: [], pageFields: [] });
    return { step, rejected: results.filter((result) => result.status === 'rejected') };
  }

  /** Selects a component (or clears the selection with null). */
  select(uuid: string | null): void {
    this.#selected = uuid === this.#selected ? null : uuid;
    this.#emit({ placed: [], edited: [], pageFields: [] });
  }

  /** Replaces the whole document (a new page), and forgets the undo history. */
  reset(document: CanvasDocument): void {
    this.#document = withHeadingAnchors(document);
    this.#selected = null;
    this.#undo = [];
    this.#changed({ placed: [], edited: [], pageFields: [] });
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** One of the person's changes, as an output through the reducer, with its undo step. */
  #personChange(label: string, output: ToolOutput): void {
    const { document, inverse } = applyOutputsWithResults(this.#document, [output]);
    this.#document = withHeadingAnchors(document);
    if (this.#selected !== null && !findComponent(document.layout, this.#selected)) this.#selected = null;
    this.#push({ label, inverse });
    this.#changed({ placed: [], edited: [], pageFields: [] });
  }

  #push(step: UndoStep): void {
    this.#undo = [...this.#undo, step].slice(-MAX_UNDO_STEPS);
  }

  #changed(change: StoreChange): void {
    this.#save();
    this.#emit(change);
  }

  #emit(change: StoreChange): void {
    for (const listener of this.#listeners) listener(change);
  }

  /** The kept page, checked with the protocol's schemas: anything else is dropped, never trusted. */
  #load(): KeptPage | undefined {
    try {
      const text = this.#storage?.getItem(this.#storageKey);
      if (!text) return undefined;
      const kept = JSON.parse(text) as { document?: { layout?: unknown; page?: unknown }; undo?: unknown };
      const layout = Layout.safeParse(kept.document?.layout);
      const page = PageValues.safeParse(kept.document?.page);
      if (!layout.success || !page.success) return undefined;
      const undo = (Array.isArray(kept.undo) ? kept.undo : []).flatMap((step: Partial<UndoStep>) => {
        const outputs = Array.isArray(step.inverse) ? step.inverse.map((output) => ToolOutput.safeParse(output)) : [];
        if (!Array.isArray(step.inverse) || outputs.some((output) => !output.success)) return [];
        if (typeof step.label !== 'string') return [];
        const inverse = outputs.flatMap((output) => (output.success ? [output.data] : []));
        return [{ label: step.label, inverse, ...(step.requestId ? { requestId: step.requestId } : {}) }];
      });
      return { document: { layout: layout.data, page: page.data }, undo };
    } catch {
      return undefined;
    }
  }

  #save(): void {
    try {
      this.#storage?.setItem(this.#storageKey, JSON.stringify({ document: this.#document, undo: this.#undo }));
    } catch {
      // A full or refused storage: a reload then starts from an empty page, as without one.
    }
  }
}

/** An empty page with one content region. */
export function emptyDocument(): CanvasDocument {
  const layout: Layout = { regions: { content: { components: [] as ComponentNode[] } } };
  return { layout, page: {} };
}
