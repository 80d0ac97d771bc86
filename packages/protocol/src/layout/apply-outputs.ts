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
import { findComponent, resolveTarget, walkLayout } from './layout-tree.js';
import { locate, replaceAt, subtreeUuids, valueAt, withList } from './tree-edit.js';
import { parseTarget } from '../wire/layout.js';

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
  return outputs.reduce((current, output) => applyOne(current, output, false).document, document);
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
      const applied = applyOne(current, output, true);
      current = applied.document;
      inverse.unshift(applied.inverse!);
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
 * Applies one output; throws a {@link LayoutError} and changes nothing when it is impossible, or when it would
 * overwrite a value the person changed since the server read it (`replaces`, spec §16.2: code `conflict`).
 */
export function applyOutput(document: CanvasDocument, output: ToolOutput): CanvasDocument {
  return applyOne(document, output, false).document;
}

/**
 * Applies one output and returns, beside the new document, the output that takes it back (spec §17.1): applied to the
 * new document it gives `document` again. Throws like {@link applyOutput}.
 */
export function applyOutputWithInverse(
  document: CanvasDocument,
  output: ToolOutput,
): { document: CanvasDocument; inverse: ToolOutput } {
  const applied = applyOne(document, output, true);
  return { document: applied.document, inverse: applied.inverse! };
}

interface Applied {
  document: CanvasDocument;
  /** Built only when asked for: a server applying its own outputs has no use for it. */
  inverse: ToolOutput | undefined;
}

function applyOne(document: CanvasDocument, output: ToolOutput, withInverse: boolean): Applied {
  const conflicts = findConflicts(output, currentValuesOf(document));
  if (conflicts.length > 0) {
    throw new LayoutError('conflict', conflictReason(conflicts), output.call_id, conflicts);
  }
  switch (output.type) {
    case 'place_components':
      return placeComponents(document, output, withInverse);
    case 'edit_components':
      return editComponents(document, output, withInverse);
    case 'set_page_value':
      return setPageValue(document, output, withInverse);
    case 'remove_components':
      return removeComponents(document, output, withInverse);
    case 'move_components':
      return moveComponents(document, output, withInverse);
  }
}

function placeComponents(document: CanvasDocument, output: PlaceComponentsOutput, withInverse: boolean): Applied {
  const after = output.operations.reduce(
    (current, operation) => placeOne(current, operation, output.call_id),
    document,
  );
  if (!withInverse) return { document: after, inverse: undefined };
  // A component placed into the slot of one placed by this same output goes with it: only the outer ones are named.
  const placed = output.operations.flatMap((operation) => operation.components.map((node) => node.uuid));
  const inner = new Set(placed.flatMap((uuid) => subtreeUuids(findComponent(after.layout, uuid)!).slice(1)));
  const outer = placed.filter((uuid) => !inner.has(uuid)).reverse();
  const inverse: RemoveComponentsOutput = {
    type: 'remove_components',
    call_id: output.call_id,
    uuids: outer,
    replaces: Object.fromEntries(outer.map((uuid) => [uuid, structuredClone(findComponent(after.layout, uuid)!)])),
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

function editComponents(document: CanvasDocument, output: EditComponentsOutput, withInverse: boolean): Applied {
  const undo: Record<string, Props> = {};
  const redo: Record<string, Props> = {};
  const unsetBack: Record<string, string[]> = {};
  let layout = document.layout;
  for (const [uuid, props] of Object.entries(output.component_updates)) {
    const found = locate(layout, uuid);
    if (!found) throw new LayoutError('unknown_uuid', `no component "${uuid}" to edit`, output.call_id);
    const node = found.node;
    const unset = Object.hasOwn(output.unset ?? {}, uuid) ? output.unset![uuid]! : [];
    const nextProps: Props = { ...node.props, ...structuredClone(props) };
    for (const prop of unset) delete nextProps[prop];
    if (withInverse) {
      const names = [...new Set([...Object.keys(props), ...unset])];
      undo[uuid] = Object.fromEntries(
        names.map((name) => [name, Object.hasOwn(node.props, name) ? structuredClone(node.props[name]!) : null]),
      );
      redo[uuid] = Object.fromEntries(
        names.map((name) => [name, Object.hasOwn(nextProps, name) ? structuredClone(nextProps[name]!) : null]),
      );
      const wasUnset = names.filter((name) => !Object.hasOwn(node.props, name));
      if (wasUnset.length > 0) unsetBack[uuid] = wasUnset;
    }
    layout = replaceAt(layout, found.path, { ...node, props: nextProps }) as Layout;
  }
  const after = { ...document, layout };
  if (!withInverse) return { document: after, inverse: undefined };
  const inverse: EditComponentsOutput = {
    type: 'edit_components',
    call_id: output.call_id,
    component_updates: undo,
    replaces: redo,
  };
  if (Object.keys(unsetBack).length > 0) inverse.unset = unsetBack;
  return { document: after, inverse };
}

function setPageValue(document: CanvasDocument, output: SetPageValueOutput, withInverse: boolean): Applied {
  const page = { ...document.page };
  const had = Object.hasOwn(document.page, output.field);
  const before = had ? document.page[output.field]! : null;
  if (output.unset) delete page[output.field];
  else page[output.field] = structuredClone(output.value);
  const after = { ...document, page };
  if (!withInverse) return { document: after, inverse: undefined };
  const inverse: SetPageValueOutput = {
    type: 'set_page_value',
    call_id: output.call_id,
    field: output.field,
    value: structuredClone(before),
    replaces: output.unset ? null : structuredClone(output.value),
  };
  if (!had) inverse.unset = true;
  return { document: after, inverse };
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

function removeComponents(document: CanvasDocument, output: RemoveComponentsOutput, withInverse: boolean): Applied {
  let layout = document.layout;
  const taken: TakenFrom[] = [];
  for (const uuid of output.uuids) {
    const step = takeOut(layout, uuid, output.call_id);
    layout = step.layout;
    taken.push(step.taken);
  }
  const after = { ...document, layout };
  if (!withInverse) return { document: after, inverse: undefined };
  // Put back in the reverse order: each one then finds its neighbour as it was when it was taken out.
  const inverse: PlaceComponentsOutput = {
    type: 'place_components',
    call_id: output.call_id,
    operations: taken.reverse().map(({ node, target, placement, reference_uuid }) => ({
      target,
      placement,
      ...(reference_uuid === undefined ? {} : { reference_uuid }),
      components: [structuredClone(node)],
    })) as PlaceComponentsOutput['operations'],
  };
  return { document: after, inverse };
}

function moveComponents(document: CanvasDocument, output: MoveComponentsOutput, withInverse: boolean): Applied {
  let layout = document.layout;
  const undo: MoveOperation[] = [];
  for (const operation of output.operations) {
    const step = moveOne(layout, operation, output.call_id);
    layout = step.layout;
    undo.unshift(
      ...step.taken.reverse().map(({ uuid, target, placement, reference_uuid }) => ({
        uuids: [uuid],
        target,
        placement,
        ...(reference_uuid === undefined ? {} : { reference_uuid }),
      })),
    );
  }
  const after = { ...document, layout };
  if (!withInverse) return { document: after, inverse: undefined };
  const moved = [...new Set(output.operations.flatMap((operation) => operation.uuids))];
  const inverse: MoveComponentsOutput = {
    type: 'move_components',
    call_id: output.call_id,
    operations: undo,
    // A move back is safe only while each component is still where this output left it.
    replaces: Object.fromEntries(moved.map((uuid) => [uuid, locate(layout, uuid)!.target])),
  };
  return { document: after, inverse };
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
