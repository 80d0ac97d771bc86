import type { JsonValue } from '../wire/json.js';
import type { ComponentNode } from '../wire/layout.js';
import type { ApplyResult, Conflict, ToolOutput } from '../wire/outputs.js';
import type { CanvasDocument } from './apply-outputs.js';
import { findComponent } from './layout-tree.js';
import { locate } from './tree-edit.js';
import { quoteJson } from './json-quote.js';

/** How {@link findConflicts} reads what the host holds now; `undefined` means not set. */
export interface CurrentValues {
  /** A prop of a component, or `undefined` when the component has no such prop. */
  prop(uuid: string, prop: string): JsonValue | undefined;
  /** A page field, or `undefined` when it is not set. */
  pageValue(field: string): JsonValue | undefined;
  /**
   * The component `uuid` with its props and slot children, for `remove_components` (revision 1.2). A host without it
   * removes without the comparison, as a revision 1.1 host applies an edit it cannot compare.
   */
  component?(uuid: string): ComponentNode | undefined;
  /**
   * Where the component `uuid` is, as a placement target (`content`, `section-1/content`), for `move_components`
   * (revision 1.2). A host without it moves without the comparison.
   */
  targetOf?(uuid: string): string | undefined;
}

/**
 * The values an output expected to replace that no longer hold (spec §16.2): the person changed them while the
 * agent worked, so applying the output would overwrite their work. Empty when the output has no `replaces` (a
 * revision 1.0 server) or everything still matches. For a host with its own store: read through `current`, and
 * report a non-empty result with {@link conflictResult} instead of applying the output.
 */
export function findConflicts(output: ToolOutput, current: CurrentValues): Conflict[] {
  switch (output.type) {
    case 'place_components':
      return [];
    case 'edit_components': {
      const conflicts: Conflict[] = [];
      for (const [uuid, props] of Object.entries(output.replaces ?? {})) {
        // Only the props the output changes: anything else in `replaces` is not this output's business.
        const updates = Object.hasOwn(output.component_updates, uuid) ? output.component_updates[uuid]! : {};
        for (const [prop, expected] of Object.entries(props)) {
          if (!Object.hasOwn(updates, prop)) continue;
          const actual = current.prop(uuid, prop) ?? null;
          if (!jsonEqual(expected, actual)) conflicts.push({ uuid, prop, expected, actual });
        }
      }
      return conflicts;
    }
    case 'set_page_value': {
      if (output.replaces === undefined) return [];
      const actual = current.pageValue(output.field) ?? null;
      return jsonEqual(output.replaces, actual) ? [] : [{ field: output.field, expected: output.replaces, actual }];
    }
    case 'remove_components': {
      const conflicts: Conflict[] = [];
      const read = current.component;
      if (!read || output.replaces === undefined) return conflicts;
      for (const uuid of output.uuids) {
        const expected = Object.hasOwn(output.replaces, uuid) ? output.replaces[uuid] : undefined;
        const actual = expected && read(uuid);
        // A component that is gone is not a conflict but an unknown uuid, as for an edit (spec §16.2).
        if (expected && actual) compareNodes(expected, actual, conflicts);
      }
      return conflicts;
    }
    case 'move_components': {
      const read = current.targetOf;
      if (!read || output.replaces === undefined) return [];
      const moved = new Set(output.operations.flatMap((operation) => operation.uuids));
      const conflicts: Conflict[] = [];
      for (const [uuid, expected] of Object.entries(output.replaces)) {
        if (!moved.has(uuid)) continue;
        const actual = read(uuid);
        if (actual !== undefined && actual !== expected)
          conflicts.push({ uuid, expected_target: expected, actual_target: actual });
      }
      return conflicts;
    }
  }
}

/**
 * The differences between a component as an output expected it and as the host holds it: every prop that differs (on
 * it or on a component inside it) but the derived ones, which the host computes (spec §10.1), and every slot whose
 * children are not the same components in the same order.
 */
function compareNodes(expected: ComponentNode, actual: ComponentNode, conflicts: Conflict[]): void {
  const props = new Set([...Object.keys(expected.props), ...Object.keys(actual.props)]);
  for (const derived of [expected.derived, actual.derived]) for (const prop of derived ?? []) props.delete(prop);
  for (const prop of props) {
    const want = Object.hasOwn(expected.props, prop) ? expected.props[prop]! : null;
    const got = Object.hasOwn(actual.props, prop) ? actual.props[prop]! : null;
    if (!jsonEqual(want, got)) conflicts.push({ uuid: actual.uuid, prop, expected: want, actual: got });
  }
  const slots = new Set([...Object.keys(expected.slots ?? {}), ...Object.keys(actual.slots ?? {})]);
  for (const slot of slots) {
    const want = (Object.hasOwn(expected.slots ?? {}, slot) ? expected.slots![slot]! : []).map((node) => node.uuid);
    const children = Object.hasOwn(actual.slots ?? {}, slot) ? actual.slots![slot]! : [];
    const got = children.map((node) => node.uuid);
    if (want.join('\u0000') !== got.join('\u0000'))
      conflicts.push({ uuid: actual.uuid, slot, expected: want, actual: got });
  }
  // The components inside both are compared too, wherever the person put them inside this one.
  for (const children of Object.values(expected.slots ?? {})) {
    for (const child of children) {
      const held = findIn(actual, child.uuid);
      if (held) compareNodes(child, held, conflicts);
    }
  }
}

function findIn(root: ComponentNode, uuid: string): ComponentNode | undefined {
  for (const children of Object.values(root.slots ?? {})) {
    for (const child of children) {
      if (child.uuid === uuid) return child;
      const found = findIn(child, uuid);
      if (found) return found;
    }
  }
  return undefined;
}

/** Reads a document's current values for the conflict check (the reducer's own {@link CurrentValues}). */
export function currentValuesOf(document: CanvasDocument): CurrentValues {
  // One walk per uuid, not per prop: an edit names several props of the same component.
  const nodes = new Map<string, ComponentNode | undefined>();
  const node = (uuid: string): ComponentNode | undefined => {
    if (!nodes.has(uuid)) nodes.set(uuid, findComponent(document.layout, uuid));
    return nodes.get(uuid);
  };
  return {
    prop: (uuid, prop) => {
      const found = node(uuid);
      return found && Object.hasOwn(found.props, prop) ? found.props[prop] : undefined;
    },
    pageValue: (field) => (Object.hasOwn(document.page, field) ? document.page[field] : undefined),
    component: node,
    targetOf: (uuid) => locate(document.layout, uuid)?.target,
  };
}

/** The `rejected` apply result of an output that was not applied because of `conflicts`, with a readable reason. */
export function conflictResult(output: ToolOutput, conflicts: readonly Conflict[]): ApplyResult {
  return {
    call_id: output.call_id,
    status: 'rejected',
    reason: conflictReason(conflicts),
    conflicts: conflicts.slice(0, MAX_CONFLICTS),
  };
}

/** The wire's bound on `conflicts` in one apply result (spec §5). */
const MAX_CONFLICTS = 100;
/** The wire's bound on an apply result's `reason` (spec §5). */
const MAX_REASON_CHARS = 2000;
/** A value quoted in a reason is cut here, so the reason stays within the wire's 2,000 characters. */
const QUOTE_CHARS = 80;

/** "the person changed hero-1.heading to "…" (the edit expected "…")", for people and for older servers. */
export function conflictReason(conflicts: readonly Conflict[]): string {
  const described = conflicts.slice(0, 5).map((conflict) => {
    if ('expected_target' in conflict)
      return `${conflict.uuid}: the person moved it to ${conflict.actual_target} (this output expected it in ${conflict.expected_target})`;
    if ('slot' in conflict)
      return `${conflict.uuid}/${conflict.slot}: the person changed what it holds (now ${quote(conflict.actual)}, this output expected ${quote(conflict.expected)})`;
    const what = 'field' in conflict ? `the page's ${conflict.field}` : `${conflict.uuid}.${conflict.prop}`;
    const now = conflict.actual === null ? 'cleared it' : `changed it to ${quote(conflict.actual)}`;
    return `${what}: the person ${now} (this output expected ${quote(conflict.expected)})`;
  });
  const more = conflicts.length > 5 ? `; and ${conflicts.length - 5} more` : '';
  const reason = `Not applied, so the person's edit is kept: ${described.join('; ')}${more}.`;
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason;
}

function quote(value: JsonValue): string {
  return quoteJson(value, QUOTE_CHARS);
}

/** JSON equality: same values, object keys in any order. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]!))
    );
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key]!, b[key]!));
}
