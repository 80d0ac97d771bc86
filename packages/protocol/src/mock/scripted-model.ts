import type { ToolCall } from '../tools/execute-tool-calls.js';
import { collectPlacedUuids } from '../layout/placed-uuids.js';
import { resolvePlacedRefs } from '../scenario/placed-refs.js';
import type { Scenario } from '../scenario/scenario.js';
import { HopError } from '../wire/errors.js';
import type { ToolOutput } from '../wire/outputs.js';

/** One model decision: its narration text and the tool calls it parks (none: the turn is answered). */
export interface ScriptedDecision {
  text: string;
  calls: ToolCall[];
}

/**
 * The scripted model: decision number `index` (0-based) of the scenario, with every `{{placed.N}}` of its call
 * arguments resolved against the uuids the turn's outputs placed so far, as a real model reads them from results,
 * and `{{selected}}` against this request's selected component.
 * A decision that cannot be replayed (no reply left, a `{{placed.N}}` naming a component not placed yet,
 * `{{selected}}` with nothing selected) is a failure of the model: 502 `provider_error`, as scripted mode requires
 * (spec/conformance.md §3, point 5).
 */
export function scriptedDecision(
  scenario: Scenario,
  index: number,
  outputs: readonly ToolOutput[],
  selected: string | null,
): ScriptedDecision {
  const reply = scenario.replies[index];
  if (reply === undefined) {
    throw new HopError(
      'provider_error',
      `Scenario "${scenario.id}" has no reply ${index + 1} (it has ${scenario.replies.length}), yet the turn goes on. Add the reply to the fixture.`,
    );
  }
  const placed = collectPlacedUuids(outputs);
  const calls = reply.tool_calls.map((call) => {
    try {
      return { id: call.id, name: call.name, arguments: resolvePlacedRefs(call.arguments, placed, selected) };
    } catch (error) {
      throw new HopError(
        'provider_error',
        `Scenario "${scenario.id}", reply ${index + 1}, call ${call.id}: ${(error as Error).message}.`,
      );
    }
  });
  return { text: reply.text, calls };
}
