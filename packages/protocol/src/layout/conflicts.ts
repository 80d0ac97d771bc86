import type { JsonValue } from '../wire/json.js';
import type { ApplyResult, Conflict, ToolOutput } from '../wire/outputs.js';

/** How {@link findConflicts} reads what the host holds now; `undefined` means not set. */
export interface CurrentValues {
  /** A prop of a component, or `undefined` when the component has no such prop. */
  prop(uuid: string, prop: string): JsonValue | undefined;
  /** A page field, or `undefined` when it is not set. */
  pageValue(field: string): JsonValue | undefined;
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
  }
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
    const what = 'field' in conflict ? `the page's ${conflict.field}` : `${conflict.uuid}.${conflict.prop}`;
    const now = conflict.actual === null ? 'cleared it' : `changed it to ${quote(conflict.actual)}`;
    return `${what}: the person ${now} (this output expected ${quote(conflict.expected)})`;
  });
  const more = conflicts.length > 5 ? `; and ${conflicts.length - 5} more` : '';
  const reason = `Not applied, so the person's edit is kept: ${described.join('; ')}${more}.`;
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason;
}

function quote(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS - 1)}…` : text;
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
