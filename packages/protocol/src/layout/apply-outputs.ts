import { Immer } from 'immer';
import type { ComponentNode, Layout, PageValues } from '../wire/layout.js';
import type { ApplyResult, PlaceOperation, ToolOutput } from '../wire/outputs.js';
import { LayoutError } from './layout-error.js';
import { conflictReason, conflictResult, type CurrentValues, findConflicts } from './conflicts.js';
import { findComponent, findComponentPath, resolveTarget, walkLayout, type LayoutPath } from './layout-tree.js';

// Our own Immer, not the global one: no auto-freeze. Freezing walks every node a result shares with a document
// that is not frozen yet, and a server gets a fresh, unfrozen layout with every hop: at 10,000 components that was
// 3/4 of each apply (bench/README.md). Purity does not depend on it: the reducer never writes to its input.
const { produce } = new Immer({ autoFreeze: false });

/**
 * The host document the outputs change: the layout and, beside it, the page fields (`set_page_value`).
 * It mirrors a request's `context.current_layout` and `context.page`.
 */
export interface CanvasDocument {
  layout: Layout;
  page: PageValues;
}

/**
 * Applies outputs in order and returns the new document (spec §11). Pure: the input is never changed. All or nothing:
 * an impossible operation throws a {@link LayoutError} and no output of the list is applied.
 */
export function applyOutputs(document: CanvasDocument, outputs: readonly ToolOutput[]): CanvasDocument {
  return outputs.reduce(applyOutput, document);
}

/**
 * Applies each output on its own, skipping the impossible ones, and reports what happened to each:
 * the `apply_results` a client sends with the next hop.
 */
export function applyOutputsWithResults(
  document: CanvasDocument,
  outputs: readonly ToolOutput[],
): { document: CanvasDocument; results: ApplyResult[] } {
  const results: ApplyResult[] = [];
  let current = document;
  for (const output of outputs) {
    try {
      current = applyOutput(current, output);
      results.push({ call_id: output.call_id, status: 'applied' });
    } catch (error) {
      if (!(error instanceof LayoutError)) throw error;
      results.push(
        error.code === 'conflict'
          ? conflictResult(output, error.conflicts)
          : { call_id: output.call_id, status: 'rejected', reason: error.message },
      );
    }
  }
  return { document: current, results };
}

/**
 * Applies one output; throws a {@link LayoutError} and changes nothing when it is impossible, or when it would
 * overwrite a value the person changed since the server read it (`replaces`, spec §16.2: code `conflict`).
 */
export function applyOutput(document: CanvasDocument, output: ToolOutput): CanvasDocument {
  const conflicts = findConflicts(output, currentValuesOf(document));
  if (conflicts.length > 0) {
    throw new LayoutError('conflict', conflictReason(conflicts), output.call_id, conflicts);
  }
  switch (output.type) {
    case 'place_components':
      return output.operations.reduce((current, operation) => placeOne(current, operation, output.call_id), document);
    case 'edit_components': {
      // Found in the plain document first: walking the draft instead would draft every node it passes.
      const edits = Object.entries(output.component_updates).map(([uuid, props]) => {
        const found = findComponentPath(document.layout, uuid);
        if (!found) throw new LayoutError('unknown_uuid', `no component "${uuid}" to edit`, output.call_id);
        return { path: found.path, props };
      });
      return produce(document, (draft) => {
        for (const { path, props } of edits)
          Object.assign(follow<ComponentNode>(draft.layout, path).props, structuredClone(props));
      });
    }
    case 'set_page_value':
      return produce(document, (draft) => {
        draft.page[output.field] = structuredClone(output.value);
      });
  }
}

/**
 * One placement, by path copying rather than immer: the new list and the objects on the path to it are fresh
 * copies, everything else is shared with the input. (Splicing through an immer draft pays a proxy trap per shifted
 * item, and assigning a new list to a draft makes immer 11 walk the whole list for nested drafts: either way the
 * whole layout on every hop; bench/README.md.)
 */
function placeOne(document: CanvasDocument, operation: PlaceOperation, callId: string): CanvasDocument {
  assertNewUuids(document.layout, operation.components, callId);
  const { list, path } = resolveTarget(document.layout, operation.target, callId);
  let index = list.length;
  if (operation.placement !== 'inside') {
    if (operation.reference_uuid === undefined) {
      throw new LayoutError('missing_reference', `placement "${operation.placement}" needs a reference_uuid`, callId);
    }
    const reference = list.findIndex((node) => node.uuid === operation.reference_uuid);
    if (reference === -1) {
      throw new LayoutError(
        'unknown_reference',
        `reference_uuid "${operation.reference_uuid}" is not in target "${operation.target}"`,
        callId,
      );
    }
    index = operation.placement === 'above' ? reference : reference + 1;
  }
  // Copies, so the output the caller holds is not aliased by the new document.
  const components = structuredClone(operation.components) as ComponentNode[];
  const next = [...list.slice(0, index), ...components, ...list.slice(index)];
  return { ...document, layout: replaceAt(document.layout, path, next) as Layout };
}

/** Reads a document's current values for the conflict check. */
function currentValuesOf(document: CanvasDocument): CurrentValues {
  // One walk per uuid, not per prop: an edit names several props of the same component.
  const nodes = new Map<string, ComponentNode | undefined>();
  return {
    prop: (uuid, prop) => {
      if (!nodes.has(uuid)) nodes.set(uuid, findComponent(document.layout, uuid));
      const node = nodes.get(uuid);
      return node && Object.hasOwn(node.props, prop) ? node.props[prop] : undefined;
    },
    pageValue: (field) => (Object.hasOwn(document.page, field) ? document.page[field] : undefined),
  };
}

/** A copy of `root` with the value at `path` replaced, sharing everything off the path. */
function replaceAt(root: unknown, path: LayoutPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path as [string | number, ...LayoutPath];
  const container = root as Record<string | number, unknown>;
  const copy = (Array.isArray(container) ? [...container] : { ...container }) as Record<string | number, unknown>;
  copy[key] = replaceAt(container[key], rest, value);
  return copy;
}

/** The value at `path` under `root` (an immer draft: only the objects on the path get drafted). */
function follow<T>(root: unknown, path: LayoutPath): T {
  return path.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], root) as T;
}

/** Every uuid placed is new: not in the layout, and not twice in the placed components. */
function assertNewUuids(layout: Layout, components: readonly ComponentNode[], callId: string): void {
  // The few placed uuids go in the set and the layout is only looked up against it (not the other way round).
  const placed = new Set<string>();
  const duplicate = (uuid: string) =>
    new LayoutError('duplicate_uuid', `uuid "${uuid}" is already in the layout`, callId);
  walkLayout({ regions: { placed: { components: [...components] } } }, (node) => {
    if (placed.has(node.uuid)) throw duplicate(node.uuid);
    placed.add(node.uuid);
  });
  walkLayout(layout, (node) => {
    if (placed.has(node.uuid)) throw duplicate(node.uuid);
  });
}
