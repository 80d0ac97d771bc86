/**
 * Taking a turn back (spec §17): its inverse outputs, applied through the host's own `applyOutputs`, which refuses
 * each one whose replaced values the person changed since, so their later edits stay (spec §17.2). Framework-free.
 */
import type { ApplyResult, ToolOutput } from '@canvas-ai/protocol';
import {
  type ComponentPlace,
  type ComponentPlaces,
  componentsOf,
  conflictComponents,
  findPlaces,
  placeOf,
  uuidsNamedBy,
} from './component-places.js';
import type { ApplyOutputsHook, GetLayoutHook } from './hop-loop.js';
import { recordHop, type TurnChanges } from './turn-changes.js';

/** Why a turn is undone: the person asked after it ended, or stopped it and asked to revert what it did. */
export type UndoReason = 'undo' | 'revert';

/** What an undo did. */
export interface UndoResult {
  requestId: string;
  reason: UndoReason;
  /**
   * `undone`: every change taken back; `partial`: some were, some were not (see `notUndone`, `unrecorded`); `failed`:
   * none could be; `nothing`: there was none.
   */
  status: 'undone' | 'partial' | 'failed' | 'nothing';
  /**
   * `outputs`: the chat applied the inverse outputs through `applyOutputs`; `history`: the host's own history took the
   * turn back (`undoInHistory` said so), and the chat applied nothing.
   */
  via: 'outputs' | 'history';
  /** The inverse outputs that were applied to the host. */
  inverse: ToolOutput[];
  /** What the host reported for each of them. */
  results: ApplyResult[];
  /** Each inverse the host refused, with its result (a conflict: the person changed it since; or a reason). */
  notUndone: Array<{ output: ToolOutput; result: ApplyResult }>;
  /** Changes the host applied that had no inverse, so they stay. */
  unrecorded: ToolOutput[];
  /**
   * Where the components of what was not undone are now, or were (`gone`), by uuid: what the chat names them by
   * (label and place, never the uuid).
   */
  places: ComponentPlaces;
}

/** Options of {@link undoTurn}. */
export interface UndoOptions {
  /**
   * Reads the page after the undo, when something was not undone: the components it names are then placed where
   * they are now, or marked `gone`. Without it (or when it fails), the places the turn left them in.
   */
  getLayout?: GetLayoutHook | undefined;
}

/**
 * Undoes a turn: applies `changes.inverse` through `applyOutputs` (with `response` undefined and `info.kind` `undo`)
 * and reports what could not be taken back. A host that returns nothing applied everything.
 */
export async function undoTurn(
  changes: TurnChanges,
  applyOutputs: ApplyOutputsHook,
  reason: UndoReason = 'undo',
  options: UndoOptions = {},
): Promise<UndoResult> {
  const base = {
    requestId: changes.requestId,
    reason,
    via: 'outputs' as const,
    inverse: changes.inverse,
    unrecorded: changes.unrecorded,
  };
  if (changes.inverse.length === 0) {
    const places = await placesNow(changes, changes.unrecorded.flatMap(componentsOf), options);
    return nothingTakenBack(changes, reason, changes.unrecorded, places);
  }
  const returned = await applyOutputs([...changes.inverse], undefined, { requestId: changes.requestId, kind: 'undo' });
  const results = Array.isArray(returned)
    ? returned
    : changes.inverse.map((output): ApplyResult => ({ call_id: output.call_id, status: 'applied' }));
  const notUndone = results
    .filter((result) => result.status === 'rejected')
    .map((result) => ({ output: changes.inverse.find((output) => output.call_id === result.call_id)!, result }))
    .filter((entry) => entry.output !== undefined);
  const applied = changes.inverse.length - notUndone.length;
  const status =
    notUndone.length === 0 && changes.unrecorded.length === 0 ? 'undone' : applied > 0 ? 'partial' : 'failed';
  const named = [
    ...notUndone.flatMap(({ output, result }) => [...uuidsNamedBy(output), ...conflictComponents(result.conflicts)]),
    ...changes.unrecorded.flatMap(componentsOf),
  ];
  return { ...base, status, results, notUndone, places: await placesNow(changes, named, options) };
}

/**
 * What `TurnOptions.undo` takes: how a turn records the inverses of what the host applied, hop by hop, and how
 * `Turn.revert` takes them back. One value of it exists, {@link undoRecording}; a turn started without it bundles
 * and runs no reducer (a host whose undo manager groups the turn's changes, or keeps snapshots, needs no inverses).
 */
export interface UndoRecording {
  recordHop: typeof recordHop;
  undoTurn: typeof undoTurn;
}

/** Undo for the loop (spec §17): `startTurn({ …, undo: undoRecording })`. */
export const undoRecording: UndoRecording = { recordHop, undoTurn };

/**
 * What `Turn.revert` reports for a turn started without `undo`: it applies nothing, so every change the turn applied
 * stays (`failed`; `nothing` when it applied none), inverses recorded before a reload included (the loop without
 * `undo` cannot apply them), and the person is told what stays (spec §17.2).
 */
export function revertWithoutRecording(changes: TurnChanges): UndoResult {
  return nothingTakenBack(changes, 'revert', changes.outputs, changes.places ?? {});
}

/** An undo that applied nothing: `stays` are the changes that stay on the page, `failed` when there are any. */
function nothingTakenBack(
  changes: TurnChanges,
  reason: UndoReason,
  stays: ToolOutput[],
  places: ComponentPlaces,
): UndoResult {
  return {
    requestId: changes.requestId,
    reason,
    status: stays.length > 0 ? 'failed' : 'nothing',
    via: 'outputs',
    inverse: [],
    results: [],
    notUndone: [],
    unrecorded: stays,
    places,
  };
}

/** What an undo the host's own history made reports: everything taken back, nothing applied by the chat. */
export function undoneInHistory(changes: TurnChanges, reason: UndoReason): UndoResult {
  const { requestId } = changes;
  return {
    requestId,
    reason,
    status: 'undone',
    via: 'history',
    inverse: [],
    results: [],
    notUndone: [],
    unrecorded: [],
    places: {},
  };
}

/**
 * Where `uuids` are after the undo: on the page now, or (`gone`) where the turn left them. Only the page is read,
 * and only when there is something to name.
 */
async function placesNow(changes: TurnChanges, uuids: string[], options: UndoOptions): Promise<ComponentPlaces> {
  if (uuids.length === 0) return {};
  let now: ComponentPlaces | undefined;
  try {
    if (options.getLayout) now = findPlaces((await options.getLayout()).layout, uuids);
  } catch {
    // A page that cannot be read now: the places the turn recorded.
  }
  const places = new Map<string, ComponentPlace>();
  for (const uuid of uuids) {
    const current = placeOf(now, uuid);
    const recorded = placeOf(changes.places, uuid);
    if (current) places.set(uuid, current);
    else if (recorded) places.set(uuid, now ? { ...recorded, gone: true } : recorded);
  }
  return Object.fromEntries(places);
}

/**
 * What the next turn's transcript tells the model about an undo (spec §17.4): a `user` message, since it is the
 * person's doing. Names what could not be taken back (by catalog id, uuid and place) and why, so the model does not
 * assume a page that is not there.
 */
export function undoNote(result: UndoResult): string {
  const what =
    result.reason === 'revert' ? 'I stopped your last turn and undid what it had changed' : 'I undid your last turn';
  if (result.status === 'undone' || result.status === 'nothing')
    return `(${what}: the page is back as it was before it.)`;
  const kept = result.notUndone.length + result.unrecorded.length;
  const details = [
    ...result.notUndone.map(({ output, result: rejected }) => {
      const names = namedForModel(output, result.places);
      // Its own full stop dropped: the details are joined with semicolons.
      const why = rejected.reason?.trim().replace(/\.$/, '') || 'the editor refused it';
      return names ? `${names}: ${why}` : why;
    }),
    ...result.unrecorded.map((output) => `${namedForModel(output, result.places) || output.type}: it has no undo`),
  ].slice(0, 3);
  const listed =
    details.length > 0
      ? `: ${details.join('; ')}${kept > details.length ? `; and ${kept - details.length} more` : ''}`
      : '';
  if (result.status === 'failed') {
    const tried =
      result.reason === 'revert'
        ? 'I stopped your last turn, but could not undo what it had changed'
        : 'I tried to undo your last turn, but could not';
    return `(${tried}: none of its changes could be taken back${listed}.)`;
  }
  return (
    `(${what}, except ${kept === 1 ? 'one change' : `${kept} changes`} that could not be taken back` +
    `${listed}. The page is otherwise as it was before it.)`
  );
}

/** The components an output is about, as the model knows them: catalog id, uuid and place. */
function namedForModel(output: ToolOutput, places: ComponentPlaces): string {
  if (output.type === 'set_page_value') return `the page ${output.field}`;
  const uuids = componentsOf(output);
  const names = uuids.slice(0, 3).map((uuid) => {
    const place = placeOf(places, uuid);
    if (!place) return `"${uuid}"`;
    const row = `row ${place.row} of ${place.region}`;
    const where = place.within ? `inside the ${place.within} of ${row}` : row;
    return `${place.component} "${uuid}" (${place.gone ? 'no longer on the page, was ' : ''}${where})`;
  });
  return `${names.join(', ')}${uuids.length > 3 ? ` and ${uuids.length - 3} more` : ''}`;
}

/**
 * What the next turn's transcript tells the model when the host's own history took the chat's last turn back
 * (`undone`) or applied it again (`redone`): a `user` message, the person's doing, as for an undo (spec §17.4).
 */
export function historyNote(change: 'undone' | 'redone'): string {
  return change === 'undone'
    ? "(I undid your last turn with the editor's own undo: what it changed is no longer on the page.)"
    : "(I redid your last turn with the editor's own redo: what it changed is back on the page.)";
}
