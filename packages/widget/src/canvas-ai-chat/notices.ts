import type { ApplyResult, Conflict, JsonValue, ToolOutput } from '@canvas-ai/protocol';
import type { UndoResult } from '../undo.js';

/** A value quoted in a notice is cut here. */
const QUOTE_CHARS = 80;

/**
 * What the person reads about the outputs of one hop the editor did not apply (spec §16.3), one sentence each:
 * a conflict says their edit was kept; any other rejection gives the editor's reason. Plain text, escaped where shown.
 */
export function rejectionNotices(
  results: readonly ApplyResult[] | undefined,
  outputs: readonly ToolOutput[],
): string[] {
  return (results ?? [])
    .filter((result) => result.status === 'rejected')
    .map((result) => {
      const output = outputs.find((candidate) => candidate.call_id === result.call_id);
      if (result.conflicts && result.conflicts.length > 0) return conflictNotice(result.conflicts);
      const what = output ? changeName(output) : 'A change';
      return `${what} could not be applied: ${result.reason?.trim() || 'the editor refused it'}`;
    });
}

function conflictNotice(conflicts: readonly Conflict[]): string {
  const kept = conflicts.map((conflict) => {
    if ('field' in conflict) return `the page ${conflict.field} (${quote(conflict.actual)})`;
    if ('prop' in conflict) return `the ${conflict.prop} (${quote(conflict.actual)})`;
    if ('slot' in conflict) return `what its ${conflict.slot} holds`;
    return `where it is (${conflict.actual_target})`;
  });
  return `Your edit was kept: you changed ${kept.join(', ')} while the agent worked, so its change there was not applied.`;
}

function changeName(output: ToolOutput): string {
  switch (output.type) {
    case 'place_components':
      return 'A new section';
    case 'edit_components':
      return 'An edit';
    case 'set_page_value':
      return `The page ${output.field}`;
    case 'remove_components':
      return 'A removal';
    case 'move_components':
      return 'A move';
  }
}

function quote(value: JsonValue): string {
  if (value === null) return 'cleared';
  const text = typeof value === 'string' ? `“${value}”` : JSON.stringify(value);
  return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS - 1)}…` : text;
}

/**
 * What the person reads about an undo (spec §17.2): one sentence for the whole, then one per change that stayed: a
 * conflict says their later edit was kept, any other refusal gives the editor's reason. Plain text.
 */
export function undoNotices(result: UndoResult): { summary: string; notices: string[] } {
  const what = result.reason === 'revert' ? 'Stopped and reverted' : 'Undone';
  const notices = [
    ...result.notUndone.map(({ output, result: rejected }) =>
      rejected.conflicts && rejected.conflicts.length > 0
        ? `Kept your later edit: ${keptList(rejected.conflicts)}, so ${undoneName(output).toLowerCase()} was not undone.`
        : `${undoneName(output)} could not be undone: ${rejected.reason?.trim() || 'the editor refused it'}`,
    ),
    ...result.unrecorded.map((output) => `${changeName(output)} of the agent's could not be undone: it has no undo.`),
  ];
  const summary =
    result.status === 'nothing'
      ? `${what}: the agent had not changed the page.`
      : notices.length === 0
        ? `${what}: the page is back as it was before the agent's turn.`
        : `${what}, except what is listed below.`;
  return { summary, notices };
}

/** The change an inverse output takes back, named as the person saw it happen. */
function undoneName(inverse: ToolOutput): string {
  switch (inverse.type) {
    case 'remove_components':
      return 'The new section';
    case 'place_components':
      return 'The removed section';
    case 'edit_components':
      return 'The edit';
    case 'set_page_value':
      return `The page ${inverse.field}`;
    case 'move_components':
      return 'The move';
  }
}

function keptList(conflicts: readonly Conflict[]): string {
  return conflicts
    .slice(0, 3)
    .map((conflict) => {
      if ('field' in conflict) return `the page ${conflict.field} (${quote(conflict.actual)})`;
      if ('prop' in conflict) return `the ${conflict.prop} (${quote(conflict.actual)})`;
      if ('slot' in conflict) return `what its ${conflict.slot} holds`;
      return `where you moved it (${conflict.actual_target})`;
    })
    .join(', ');
}
