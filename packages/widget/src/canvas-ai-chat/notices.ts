import type { ApplyResult, Conflict, ToolOutput } from '@canvas-ai/protocol';
import { type ComponentPlaces, componentsOf, placeOf, targetParent } from '../component-places.js';
import type { UndoResult } from '../undo.js';
import { quoteValue, type ChatStrings } from './strings.js';

/**
 * What the person reads about the outputs of one hop the editor did not apply (spec §16.3), one sentence each:
 * a conflict says their edit was kept; any other rejection gives the editor's reason. Plain text, escaped where shown.
 */
export function rejectionNotices(
  results: readonly ApplyResult[] | undefined,
  outputs: readonly ToolOutput[],
  strings: ChatStrings,
): string[] {
  return (results ?? [])
    .filter((result) => result.status === 'rejected')
    .map((result) => {
      const output = outputs.find((candidate) => candidate.call_id === result.call_id);
      if (result.conflicts && result.conflicts.length > 0)
        return strings.editKept(keptList(result.conflicts, strings, 'place', {}));
      const what = output ? strings.change(output, false, []) : strings.unknownChange;
      return strings.notApplied(what, result.reason?.trim() ?? '');
    });
}

/**
 * What the person reads about an undo (spec §17.2): one sentence for the whole (all, part or none of the turn taken
 * back), then one per change that stayed: a conflict says their later edit was kept, a component no longer on the
 * page says so, any other refusal gives the editor's reason. Components are named by label and place, never by uuid.
 * Plain text.
 */
export function undoNotices(result: UndoResult, strings: ChatStrings): { summary: string; notices: string[] } {
  const { places } = result;
  const notices = [
    ...result.notUndone.map(({ output, result: rejected }) => {
      const change = strings.change(output, true, namesOf(output, places, strings));
      // A component no longer on the page reads as a cleared value to the conflict check: it is said to be gone.
      const isGone = (uuid: string) => placeOf(places, uuid)?.gone === true;
      const kept = (rejected.conflicts ?? []).filter((conflict) => !('uuid' in conflict) || !isGone(conflict.uuid));
      if (kept.length > 0) return strings.undoKept(change, keptList(kept.slice(0, 3), strings, 'moved', places));
      const gone = componentsOf(output).some(isGone);
      return strings.undoRefused(change, gone ? strings.gone : named(rejected.reason?.trim() ?? '', places, strings));
    }),
    ...result.unrecorded.map((output) =>
      strings.noInverse(strings.change(undoOf(output), true, namesOf(output, places, strings))),
    ),
  ];
  return { summary: strings.undoSummary(result.reason, result.status), notices };
}

/**
 * An output the host applied, as its undo would be: `strings.change` names a change by the inverse that takes it back
 * (a removal undoes a placement), so a change that has no inverse is named through the one it would have had.
 */
function undoOf(output: ToolOutput): ToolOutput {
  if (output.type === 'place_components')
    return { type: 'remove_components', call_id: output.call_id, uuids: componentsOf(output) };
  if (output.type === 'remove_components') return { type: 'place_components', call_id: output.call_id, operations: [] };
  return output;
}

/** The components an output is about, each by its label and place. */
function namesOf(output: ToolOutput, places: ComponentPlaces, strings: ChatStrings): string[] {
  return componentsOf(output).map((uuid) => nameOf(uuid, places, strings, catalogIdIn(output, uuid)));
}

/** One component by label and place; `component` is its catalog id when the output says it and no place is known. */
function nameOf(uuid: string, places: ComponentPlaces, strings: ChatStrings, component?: string): string {
  const place = placeOf(places, uuid);
  const id = place?.component ?? component;
  const label = id === undefined ? strings.unknownComponent : strings.componentLabel(id);
  if (!place) return id === undefined ? label : strings.componentAt(label, undefined);
  const within = place.within === undefined ? undefined : strings.componentLabel(place.within);
  return strings.componentAt(label, { region: place.region, row: place.row, within, gone: place.gone });
}

/** The catalog id an output gives for one of its components (a placement's node, a removal's `replaces`). */
function catalogIdIn(output: ToolOutput, uuid: string): string | undefined {
  if (output.type === 'place_components')
    return output.operations.flatMap((operation) => operation.components).find((node) => node.uuid === uuid)?.component;
  if (output.type === 'remove_components' && output.replaces && Object.hasOwn(output.replaces, uuid))
    return output.replaces[uuid]?.component;
  return undefined;
}

/** An editor's reason with every uuid the chat can name replaced by the component's label, quoted. */
function named(reason: string, places: ComponentPlaces, strings: ChatStrings): string {
  let text = reason;
  for (const [uuid, place] of Object.entries(places)) {
    const label = `“${strings.componentLabel(place.component)}”`;
    // Quoted, or standing alone (`<uuid>/slot`, `<uuid>.prop`): never inside a longer id.
    const escaped = uuid.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    text = text.replace(new RegExp(`"${escaped}"|(?<![A-Za-z0-9_-])${escaped}(?![A-Za-z0-9_-])`, 'g'), label);
  }
  return text;
}

/** A placement target named: a region as it is, a slot as the slot of its component. */
function targetName(target: string, places: ComponentPlaces, strings: ChatStrings): string {
  const parent = targetParent(target);
  return parent === undefined ? target : `${target.slice(parent.length + 1)}: ${nameOf(parent, places, strings)}`;
}

/** Each conflict's kept value, named; a target conflict as `place` (where it is) or `moved` (where they moved it). */
function keptList(
  conflicts: readonly Conflict[],
  strings: ChatStrings,
  target: 'place' | 'moved',
  places: ComponentPlaces,
): string[] {
  return conflicts.map((conflict) => {
    if ('field' in conflict) return strings.keptValue('page', conflict.field, quoteValue(conflict.actual, strings));
    if ('prop' in conflict) return strings.keptValue('prop', conflict.prop, quoteValue(conflict.actual, strings));
    if ('slot' in conflict) return strings.keptValue('slot', conflict.slot, '');
    return strings.keptValue(target, targetName(conflict.actual_target, places, strings), '');
  });
}
