/**
 * What one turn changed on the host's page, and the outputs that take it back (spec §17). Framework-free: the loop
 * records into it hop by hop, and any host (the element, a React app) undoes a turn with it.
 */
import {
  applyOutputsWithResults,
  REQUIRED_OUTPUT_TYPES,
  type ApplyResult,
  type CanvasDocument,
  type ToolOutput,
} from '@canvas-ai/protocol';
import { type ComponentPlaces, findPlaces, uuidsNamedBy } from './component-places.js';

/** A turn's changes: what the host applied, and how to undo it. Plain JSON, so it can be stored and restored. */
export interface TurnChanges {
  requestId: string;
  /** Every output the host applied, in the order it applied them. */
  outputs: ToolOutput[];
  /** The outputs that undo them, in the order to apply them (the last applied output's inverse first). */
  inverse: ToolOutput[];
  /**
   * Outputs the host applied that have no inverse: every one of a turn started without `undo`, else those the shared
   * reducer could not apply to the document the hop was sent with (a host whose own rules differ). An undo cannot
   * take them back and says so.
   */
  unrecorded: ToolOutput[];
  /**
   * Where the turn left each component it touched (or, for one it removed, where it was), by uuid: an undo names what
   * it could not take back by label and place, even when it is no longer on the page. Absent: nothing recorded.
   */
  places?: ComponentPlaces | undefined;
}

/** No changes yet. */
export function noChanges(requestId: string): TurnChanges {
  return { requestId, outputs: [], inverse: [], unrecorded: [] };
}

/** Whether a turn changed the page: there is something an undo would do or report. */
export function changedPage(changes: TurnChanges | undefined): boolean {
  return changes !== undefined && (changes.inverse.length > 0 || changes.unrecorded.length > 0);
}

/**
 * Whether a host that applies `outputTypes` can apply every inverse of `changes` (the undo of a placement is a
 * `remove_components`, so a host must apply it to undo one). The v1 types are always applied.
 */
export function canUndo(changes: TurnChanges | undefined, outputTypes: readonly string[]): boolean {
  if (!changes || changes.inverse.length === 0) return false;
  const applied = new Set<string>([...REQUIRED_OUTPUT_TYPES, ...outputTypes]);
  return changes.inverse.every((output) => applied.has(output.type));
}

/**
 * Records one hop into `changes`: which of its outputs the host applied (`returned`, or all when it returned
 * nothing), and their inverses, computed with the shared reducer from `document`, the document the hop was sent with.
 * Returns the inverses of this hop, in undo order. Pure: `changes` is replaced, not changed.
 *
 * Computed from the hop's own document rather than read from the host again: no second `getLayout` per hop. What
 * the person changes while the hop is in flight is seen at undo time anyway, through the inverses' `replaces`
 * (spec §17.2); only a neighbour they moved in that moment can make a removal go back next to another one.
 */
export function recordHop(
  changes: TurnChanges,
  document: CanvasDocument,
  outputs: readonly ToolOutput[],
  returned: readonly ApplyResult[] | undefined,
): { changes: TurnChanges; inverse: ToolOutput[] } {
  if (outputs.length === 0) return { changes, inverse: [] };
  const applied = appliedOutputs(outputs, returned);
  const predicted = predict(document, outputs);
  const inverseOf = new Map(predicted.inverse.map((output) => [output.call_id, output]));
  const inverse = applied
    .filter((output) => inverseOf.has(output.call_id))
    .map((output) => inverseOf.get(output.call_id)!)
    .reverse();
  const places = placesAfter(document, predicted.after, [...applied, ...inverse]);
  return {
    inverse,
    changes: {
      requestId: changes.requestId,
      outputs: [...changes.outputs, ...applied],
      inverse: [...inverse, ...changes.inverse],
      unrecorded: [...changes.unrecorded, ...applied.filter((output) => !inverseOf.has(output.call_id))],
      ...(changes.places || places ? { places: { ...changes.places, ...places } } : {}),
    },
  };
}

/**
 * Records one hop into `changes` without an undo: the outputs the host applied, each kept as a change with no inverse
 * (`unrecorded`). What a turn started without `undo` records (see `TurnOptions.undo`): no reducer runs, and an undo
 * says that nothing could be taken back.
 */
export function recordHopWithoutUndo(
  changes: TurnChanges,
  outputs: readonly ToolOutput[],
  returned: readonly ApplyResult[] | undefined,
): { changes: TurnChanges; inverse: ToolOutput[] } {
  if (outputs.length === 0) return { changes, inverse: [] };
  const applied = appliedOutputs(outputs, returned);
  return {
    inverse: [],
    changes: {
      ...changes,
      outputs: [...changes.outputs, ...applied],
      unrecorded: [...changes.unrecorded, ...applied],
    },
  };
}

/** The outputs the host applied: those `returned` says were, or all of them when it returned nothing. */
function appliedOutputs(outputs: readonly ToolOutput[], returned: readonly ApplyResult[] | undefined): ToolOutput[] {
  if (returned === undefined) return [...outputs];
  const applied = new Set(returned.filter((result) => result.status === 'applied').map((result) => result.call_id));
  return outputs.filter((output) => applied.has(output.call_id));
}

/**
 * The inverse of every output the reducer applies to `document`, and the document it predicts after them; none when
 * it cannot read the document at all.
 */
function predict(
  document: CanvasDocument,
  outputs: readonly ToolOutput[],
): { inverse: ToolOutput[]; after: CanvasDocument | undefined } {
  try {
    const { document: after, inverse } = applyOutputsWithResults(document, outputs);
    return { inverse, after };
  } catch {
    // A document the reducer cannot walk (a host's own shape, checked only as far as the request needs) has no undo.
    return { inverse: [], after: undefined };
  }
}

/**
 * Where the components `outputs` name are after the hop, or before it for those it removed; undefined when none is
 * found (or the document cannot be read).
 */
function placesAfter(
  before: CanvasDocument,
  after: CanvasDocument | undefined,
  outputs: readonly ToolOutput[],
): ComponentPlaces | undefined {
  if (!after || outputs.length === 0) return undefined;
  try {
    const uuids = new Set(outputs.flatMap(uuidsNamedBy));
    const places = { ...findPlaces(before.layout, uuids), ...findPlaces(after.layout, uuids) };
    return Object.keys(places).length > 0 ? places : undefined;
  } catch {
    return undefined;
  }
}
