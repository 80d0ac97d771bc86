import type { Scenario } from './scenario.js';

/** A hop as far as deciding goes: the outputs it carried, and what it waits for when it asked the person. */
interface HopOutputs {
  outputs: ReadonlyArray<{ call_id: string }>;
  waiting?: unknown;
}

/**
 * Which scripted reply each hop of a turn decided (its index in `scenario.replies`), or `undefined` for a hop that
 * made no decision (spec §2): a hop decides the next reply unless the turn used its `max_hops` decisions, or the
 * previous hop held the turn's ending back because it carried outputs, in which case this hop ends the turn
 * without a decision, unless the host rejected one of those outputs after an answer (then the model decides
 * again); a hop that waits for the person decides nothing either. `rejectedAfter(index)` says whether the host reported an output of hop `index` (0-based) rejected.
 */
export function decidedReplies(
  scenario: Pick<Scenario, 'replies' | 'max_hops'>,
  hops: readonly HopOutputs[],
  rejectedAfter: (index: number) => boolean,
): Array<number | undefined> {
  const maxHops = scenario.max_hops ?? Number.POSITIVE_INFINITY;
  const decided: Array<number | undefined> = [];
  let decisions = 0;
  let held: 'answer' | 'max_hops' | undefined;
  hops.forEach((hop, index) => {
    // A hop that executed a question waits for the person: it decides nothing (spec §20.1).
    if (hop.waiting !== undefined) {
      decided.push(undefined);
      return;
    }
    const retry = held === 'answer' && index > 0 && rejectedAfter(index - 1);
    if (held && !retry) {
      held = undefined;
      decided.push(undefined);
      return;
    }
    held = undefined;
    if (decisions >= maxHops || decisions >= scenario.replies.length) {
      if (hop.outputs.length > 0) held = 'max_hops';
      decided.push(undefined);
      return;
    }
    const reply = scenario.replies[decisions]!;
    decided.push(decisions);
    decisions += 1;
    if (reply.tool_calls.length === 0 && hop.outputs.length > 0) held = 'answer';
  });
  return decided;
}
