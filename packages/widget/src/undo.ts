/**
 * Taking a turn back (spec §17): its inverse outputs, applied through the host's own `applyOutputs`, which refuses
 * each one whose replaced values the person changed since, so their later edits stay (spec §17.2). Framework-free.
 */
import type { ApplyResult, ToolOutput } from '@canvas-ai/protocol';
import type { ApplyOutputsHook } from './hop-loop.js';
import type { TurnChanges } from './turn-changes.js';

/** Why a turn is undone: the person asked after it ended, or stopped it and asked to revert what it did. */
export type UndoReason = 'undo' | 'revert';

/** What an undo did. */
export interface UndoResult {
  requestId: string;
  reason: UndoReason;
  /** `undone`: every change taken back; `partial`: some were not (see `notUndone`); `nothing`: there was none. */
  status: 'undone' | 'partial' | 'nothing';
  /** The inverse outputs that were applied to the host. */
  inverse: ToolOutput[];
  /** What the host reported for each of them. */
  results: ApplyResult[];
  /** Each inverse the host refused, with its result (a conflict: the person changed it since; or a reason). */
  notUndone: Array<{ output: ToolOutput; result: ApplyResult }>;
  /** Changes the host applied that had no inverse, so they stay. */
  unrecorded: ToolOutput[];
}

/**
 * Undoes a turn: applies `changes.inverse` through `applyOutputs` (with `response` undefined and `info.kind` `undo`)
 * and reports what could not be taken back. A host that returns nothing applied everything.
 */
export async function undoTurn(
  changes: TurnChanges,
  applyOutputs: ApplyOutputsHook,
  reason: UndoReason = 'undo',
): Promise<UndoResult> {
  const base = { requestId: changes.requestId, reason, inverse: changes.inverse, unrecorded: changes.unrecorded };
  if (changes.inverse.length === 0)
    return { ...base, status: changes.unrecorded.length > 0 ? 'partial' : 'nothing', results: [], notUndone: [] };
  const returned = await applyOutputs([...changes.inverse], undefined, { requestId: changes.requestId, kind: 'undo' });
  const results = Array.isArray(returned)
    ? returned
    : changes.inverse.map((output): ApplyResult => ({ call_id: output.call_id, status: 'applied' }));
  const notUndone = results
    .filter((result) => result.status === 'rejected')
    .map((result) => ({ output: changes.inverse.find((output) => output.call_id === result.call_id)!, result }))
    .filter((entry) => entry.output !== undefined);
  const status = notUndone.length > 0 || changes.unrecorded.length > 0 ? 'partial' : 'undone';
  return { ...base, status, results, notUndone };
}

/**
 * What the next turn's transcript tells the model about an undo (spec §17.4): a `user` message, since it is the
 * person's doing. Names how much could not be taken back, so the model does not assume a page that is not there.
 */
export function undoNote(result: UndoResult): string {
  const what =
    result.reason === 'revert' ? 'I stopped your last turn and undid what it had changed' : 'I undid your last turn';
  if (result.status !== 'partial') return `(${what}: the page is back as it was before it.)`;
  const kept = result.notUndone.length + result.unrecorded.length;
  const reasons = result.notUndone
    .map(({ result: rejected }) => rejected.reason?.trim())
    .filter((reason): reason is string => Boolean(reason))
    .slice(0, 3);
  return (
    `(${what}, except ${kept === 1 ? 'one change' : `${kept} changes`} that could not be taken back` +
    `${reasons.length > 0 ? `: ${reasons.join(' ')}` : ''}. The page is otherwise as it was before it.)`
  );
}
