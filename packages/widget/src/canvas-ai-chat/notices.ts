import type { ApplyResult, Conflict } from '@canvas-ai/protocol';
import type { ToolOutput } from '@canvas-ai/protocol';
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
        return strings.editKept(keptList(result.conflicts, strings, 'place'));
      const what = output ? strings.change(output, false) : strings.unknownChange;
      return strings.notApplied(what, result.reason?.trim() ?? '');
    });
}

/**
 * What the person reads about an undo (spec §17.2): one sentence for the whole, then one per change that stayed: a
 * conflict says their later edit was kept, any other refusal gives the editor's reason. Plain text.
 */
export function undoNotices(result: UndoResult, strings: ChatStrings): { summary: string; notices: string[] } {
  const notices = [
    ...result.notUndone.map(({ output, result: rejected }) =>
      rejected.conflicts && rejected.conflicts.length > 0
        ? strings.undoKept(strings.change(output, true), keptList(rejected.conflicts.slice(0, 3), strings, 'moved'))
        : strings.undoRefused(strings.change(output, true), rejected.reason?.trim() ?? ''),
    ),
    ...result.unrecorded.map((output) => strings.noInverse(strings.change(output, false))),
  ];
  const status = result.status === 'nothing' ? 'nothing' : notices.length === 0 ? 'undone' : 'partial';
  return { summary: strings.undoSummary(result.reason, status), notices };
}

/** Each conflict's kept value, named; a target conflict as `place` (where it is) or `moved` (where they moved it). */
function keptList(conflicts: readonly Conflict[], strings: ChatStrings, target: 'place' | 'moved'): string[] {
  return conflicts.map((conflict) => {
    if ('field' in conflict) return strings.keptValue('page', conflict.field, quoteValue(conflict.actual, strings));
    if ('prop' in conflict) return strings.keptValue('prop', conflict.prop, quoteValue(conflict.actual, strings));
    if ('slot' in conflict) return strings.keptValue('slot', conflict.slot, '');
    return strings.keptValue(target, conflict.actual_target, '');
  });
}
