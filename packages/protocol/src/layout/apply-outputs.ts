import type { JsonValue } from '../wire/json.js';
import type { ComponentNode, Layout, PageValues, Placement, Props } from '../wire/layout.js';
import type {
  ApplyResult,
  EditComponentsOutput,
  MoveComponentsOutput,
  MoveOperation,
  PlaceComponentsOutput,
  PlaceOperation,
  RemoveComponentsOutput,
  SetPageValueOutput,
  ToolOutput,
} from '../wire/outputs.js';
import { LayoutError } from './layout-error.js';
import { conflictReason, conflictResult, currentValuesOf, findConflicts } from './conflicts.js';
import { findComponent, findComponentPaths, resolveTarget, walkLayout } from './layout-tree.js';
import { locate, replaceAt, subtreeUuids, valueAt, withList } from './tree-edit.js';
import { parseTarget } from '../wire/constants.js';

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
  return outputs.reduce((current, output) => applyOne(current, output).document, document);
}

/** What {@link applyOutputsWithResults} returns. */
export interface AppliedOutputs {
  /** The document with every output applied that could be. */
  document: CanvasDocument;
  /** One apply result per output, in order: the `apply_results` a client sends with the next hop. */
  results: ApplyResult[];
  /**
   * The outputs that take the applied ones back (spec §17), in the order to apply them: the last applied output's
   * inverse first. Each carries the `call_id` of the output it undoes and `replaces` what that output left, so
   * applying them after the person changed one of those values refuses exactly that part (spec §17.2).
   */
  inverse: ToolOutput[];
}

/**
 * Applies each output on its own, skipping the impossible ones, and reports what happened to each:
 * the `apply_results` a client sends with the next hop, and the outputs that undo what was applied.
 */
export function applyOutputsWithResults(document: CanvasDocument, outputs: readonly ToolOutput[]): AppliedOutputs {
  const results: ApplyResult[] = [];
  const inverse: ToolOutput[] = [];
  let current = document;
  for (const output of outputs) {
    try {
      const applied = applyOne(current, output);
      current = applied.document;
      inverse.unshift(applied.inverse());
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
  return { document: current, results, inverse };
}

/**
 * One output applied, and the output that takes it back (spec §17.1), built only when called: a server applying its
 * own outputs never asks for it. The documents are never changed (path copying), so the call may come later.
 */
interface Applied {
  document: CanvasDocument;
  inverse: () => ToolOutput;
}

/**
 * Applies one output; throws a {@link LayoutError} and changes nothing when it is impossible, or when it would
 * overwrite a value the person changed since the server read it (`replaces`, spec §16.2: code `conflict`).
 */
function applyOne(document: CanvasDocument, output: ToolOutput): Applied {
  const conflicts = findConflicts(output, currentValuesOf(document));
  if (conflicts.length > 0) {
    throw new LayoutError('conflict', conflictReason(conflicts), output.call_id, conflicts);
  }
  switch (output.type) {
    case 'place_components':
      return placeComponents(document, output);
    case 'edit_components':
      return editComponents(document, output);
    case 'set_page_value':
      return setPageValue(document, output);
    case 'remove_components':
      return removeComponents(document, output);
    case 'move_components':
      return moveComponents(document, output);
  }
}

function placeComponents(document: CanvasDocument, output: PlaceComponentsOutput): Applied {
  const after = output.operations.reduce(
    (current, operation) => placeOne(current, operation, output.call_id),
    document,
  );
  const inverse = (): RemoveComponentsOutput => {
    // A component placed into the slot of one placed by this same output goes with it: only the outer ones are named.
    const placed = new Map<string, ComponentNode>();
    for (const operation of output.operations) {
      for (const { uuid } of operation.components) {
        const node = findComponent(after.layout, uuid);
        if (node) placed.set(uuid, node);
      }
    }
    const inner = new Set([...placed.values()].flatMap((node) => subtreeUuids(node).slice(1)));
    const outer = [...placed].filter(([uuid]) => !inner.has(uuid)).reverse();
    return {
      type: 'remove_components',
      call_id: output.call_id,
      uuids: outer.map(([uuid]) => uuid),
      replaces: Object.fromEntries(outer.map(([uuid, node]) => [uuid, structuredClone(node)])),
    };
  };
  return { document: after, inverse };
}

/**
 * One placement: the new list and the objects on the path to it are fresh copies, everything else is shared with the
 * input (see tree-edit.ts).
 */
function placeOne(document: CanvasDocument, operation: PlaceOperation, callId: string): CanvasDocument {
  assertNewUuids(document.layout, operation.components, callId);
  const { list, path } = resolveTarget(document.layout, operation.target, callId);
  const index = insertionIndex(list, operation, callId);
  // Copies, so the output the caller holds is not aliased by the new document.
  const components = structuredClone(operation.components) as ComponentNode[];
  const next = [...list.slice(0, index), ...components, ...list.slice(index)];
  return { ...document, layout: withList(document.layout, path, next) };
}

/** Where `placement` puts components in `list`: the end for `inside`, else next to `reference_uuid`. */
function insertionIndex(
  list: readonly ComponentNode[],
  operation: { target: string; placement: Placement; reference_uuid?: string | undefined },
  callId: string,
): number {
  if (operation.placement === 'inside') return list.length;
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
  return operation.placement === 'above' ? reference : reference + 1;
}

function editComponents(document: CanvasDocument, output: EditComponentsOutput): Applied {
  // Per edited component, its props before and after and the names the output set or unset: what the inverse needs.
  const edited: Array<{ uuid: string; before: Props; after: Props; names: string[] }> = [];
  let layout = document.layout;
  // One walk finds them all (spec §13.2); an edit moves nothing, so the paths hold while the props change. The node
  // is read at its path each time: an edit of a component inside another edited one replaced it there.
  const paths = findComponentPaths(layout, new Set(Object.keys(output.component_updates)));
  for (const [uuid, props] of Object.entries(output.component_updates)) {
    const found = paths.get(uuid);
    if (!found) throw new LayoutError('unknown_uuid', `no component "${uuid}" to edit`, output.call_id);
    const node = valueAt<ComponentNode>(layout, found.path);
    const unset = (output.unset && Object.hasOwn(output.unset, uuid) ? output.unset[uuid] : undefined) ?? [];
    const nextProps: Props = { ...node.props, ...structuredClone(props) };
    for (const prop of unset) delete nextProps[prop];
    edited.push({ uuid, before: node.props, after: nextProps, names: [...new Set([...Object.keys(props), ...unset])] });
    layout = replaceAt(layout, found.path, { ...node, props: nextProps }) as Layout;
  }
  const inverse = (): EditComponentsOutput => {
    const undo: Record<string, Props> = {};
    const redo: Record<string, Props> = {};
    const unsetBack: Record<string, string[]> = {};
    for (const { uuid, before, after, names } of edited) {
      undo[uuid] = Object.fromEntries(names.map((name) => [name, propOrNull(before, name)]));
      redo[uuid] = Object.fromEntries(names.map((name) => [name, propOrNull(after, name)]));
      const wasUnset = names.filter((name) => !Object.hasOwn(before, name));
      if (wasUnset.length > 0) unsetBack[uuid] = wasUnset;
    }
    return {
      type: 'edit_components',
      call_id: output.call_id,
      component_updates: undo,
      replaces: redo,
      ...(Object.keys(unsetBack).length > 0 ? { unset: unsetBack } : {}),
    };
  };
  return { document: { ...document, layout }, inverse };
}

/** A copy of the prop's value, or null when it is not set (an inverse's way to say "unset"). */
function propOrNull(props: Props, name: string): JsonValue {
  const value = Object.hasOwn(props, name) ? props[name] : undefined;
  return value === undefined ? null : structuredClone(value);
}

function setPageValue(document: CanvasDocument, output: SetPageValueOutput): Applied {
  const page = { ...document.page };
  if (output.unset) delete page[output.field];
  else page[output.field] = structuredClone(output.value);
  const inverse = (): SetPageValueOutput => ({
    type: 'set_page_value',
    call_id: output.call_id,
    field: output.field,
    value: propOrNull(document.page, output.field),
    replaces: output.unset ? null : structuredClone(output.value),
    ...(Object.hasOwn(document.page, output.field) ? {} : { unset: true }),
  });
  return { document: { ...document, page }, inverse };
}

/** Where a component was taken from, and how to put it back there: next to the neighbour it had. */
interface TakenFrom {
  uuid: string;
  node: ComponentNode;
  target: string;
  placement: Placement;
  reference_uuid?: string;
}

/**
 * Takes the component `uuid` out of the layout, with its slot children, and says how to put it back: below the
 * component that was before it, else above the one that was after it, else inside its (now empty) list.
 */
function takeOut(layout: Layout, uuid: string, callId: string): { layout: Layout; taken: TakenFrom } {
  const found = locate(layout, uuid);
  if (!found) throw new LayoutError('unknown_uuid', `no component "${uuid}" on the page`, callId);
  const list = valueAt<ComponentNode[]>(layout, found.listPath);
  const rest = [...list.slice(0, found.index), ...list.slice(found.index + 1)];
  const before = rest[found.index - 1];
  const after = rest[found.index];
  const taken: TakenFrom = before
    ? { uuid, node: found.node, target: found.target, placement: 'below', reference_uuid: before.uuid }
    : after
      ? { uuid, node: found.node, target: found.target, placement: 'above', reference_uuid: after.uuid }
      : { uuid, node: found.node, target: found.target, placement: 'inside' };
  return { layout: withList(layout, found.listPath, rest), taken };
}

function removeComponents(document: CanvasDocument, output: RemoveComponentsOutput): Applied {
  let layout = document.layout;
  const taken: TakenFrom[] = [];
  for (const uuid of output.uuids) {
    const step = takeOut(layout, uuid, output.call_id);
    layout = step.layout;
    taken.push(step.taken);
  }
  // Put back in the reverse order: each one then finds its neighbour as it was when it was taken out.
  const inverse = (): PlaceComponentsOutput => ({
    type: 'place_components',
    call_id: output.call_id,
    operations: taken.toReversed().map(({ node, target, placement, reference_uuid }) => ({
      target,
      placement,
      ...(reference_uuid === undefined ? {} : { reference_uuid }),
      components: [structuredClone(node)],
    })) as PlaceComponentsOutput['operations'],
  });
  return { document: { ...document, layout }, inverse };
}

function moveComponents(document: CanvasDocument, output: MoveComponentsOutput): Applied {
  let layout = document.layout;
  // Per operation, where its components were taken from: the moves back, last operation and component first.
  const taken: TakenFrom[][] = [];
  for (const operation of output.operations) {
    const step = moveOne(layout, operation, output.call_id);
    layout = step.layout;
    taken.push(step.taken);
  }
  const inverse = (): MoveComponentsOutput => {
    const undo: MoveOperation[] = taken.toReversed().flatMap((step) =>
      step.toReversed().map(({ uuid, target, placement, reference_uuid }) => ({
        uuids: [uuid],
        target,
        placement,
        ...(reference_uuid === undefined ? {} : { reference_uuid }),
      })),
    );
    // A move back is safe only while each component is still where this output left it.
    const replaces: Record<string, string> = {};
    for (const operation of output.operations) {
      for (const uuid of operation.uuids) {
        const found = locate(layout, uuid);
        if (found) replaces[uuid] = found.target;
      }
    }
    return { type: 'move_components', call_id: output.call_id, operations: undo, replaces };
  };
  return { document: { ...document, layout }, inverse };
}

/**
 * One move: the components are taken out in order (so `reference_uuid` and the target are found without them), then
 * inserted at the target in that order. A component cannot go into its own slots, nor next to itself.
 */
function moveOne(layout: Layout, operation: MoveOperation, callId: string): { layout: Layout; taken: TakenFrom[] } {
  const parsed = parseTarget(operation.target);
  for (const uuid of operation.uuids) {
    const found = locate(layout, uuid);
    if (!found) throw new LayoutError('unknown_uuid', `no component "${uuid}" to move`, callId);
    if (parsed.kind === 'slot' && subtreeUuids(found.node).includes(parsed.parentUuid)) {
      throw new LayoutError(
        'move_into_itself',
        `component "${uuid}" cannot move into "${operation.target}": that is inside the component itself`,
        callId,
      );
    }
  }
  if (operation.reference_uuid !== undefined && operation.uuids.includes(operation.reference_uuid)) {
    throw new LayoutError(
      'unknown_reference',
      `reference_uuid "${operation.reference_uuid}" is one of the components being moved`,
      callId,
    );
  }
  let current = layout;
  const taken: TakenFrom[] = [];
  for (const uuid of operation.uuids) {
    const step = takeOut(current, uuid, callId);
    current = step.layout;
    taken.push(step.taken);
  }
  const { list, path } = resolveTarget(current, operation.target, callId);
  const index = insertionIndex(list, operation, callId);
  const nodes = taken.map((entry) => entry.node);
  return { layout: withList(current, path, [...list.slice(0, index), ...nodes, ...list.slice(index)]), taken };
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
