import type { ApplyResult, Conflict, JsonValue, ToolOutput } from '@canvas-ai/protocol';

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
