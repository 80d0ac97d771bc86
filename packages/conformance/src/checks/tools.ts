import { checkOutputs } from '@canvas-ai/protocol/scenario';
import { collectPlacedUuids } from '@canvas-ai/protocol/server';
import { pass, skip, type ConformanceCheck } from '../check.js';
import { scenarioOutcomes } from '../scenario-runs.js';
import type { SpecRef } from '../spec-refs.js';
import { verdict } from './invariants.js';

/**
 * A rule of the built-in tools, judged on the scenarios that name it in `exercises` (spec §15): each such scenario
 * exists to exercise this rule alone, so any difference between the outputs it expects and the ones a hop returns
 * is this rule broken.
 */
function toolRule(id: string, title: string, spec: SpecRef, judged: { replaces?: boolean } = {}): ConformanceCheck {
  return {
    id,
    family: id,
    level: 2,
    title,
    spec,
    async run(context) {
      const outcomes = (await scenarioOutcomes(context)).filter(({ scenario }) => scenario.exercises.includes(id));
      if (outcomes.length === 0) return skip(`no scenario names ${id} in exercises`);
      // The outputs alone: a scenario's narration and where it ends are the rules of other checks.
      const problems = outcomes.flatMap(({ scenario, responses, error, catalog, run }) => {
        if (error) return [`${scenario.id}: ${error}`];
        const placed: string[] = [];
        return scenario.hops.flatMap((expected, index) => {
          const response = responses[index];
          if (!response)
            return expected.outputs.length > 0
              ? [`${scenario.id} hop ${index + 1}, which expects outputs, was not played`]
              : [];
          const problems = checkOutputs(expected, response, placed, scenario.selected_component, catalog);
          // A rule about `replaces` judges them too: what the page held when the tool ran (spec §16.2).
          if (judged.replaces) problems.push(...(run?.hops[index]?.replacesProblems ?? []));
          placed.push(...collectPlacedUuids(response.outputs, catalog));
          return problems.map((problem) => `${scenario.id} ${problem}`);
        });
      });
      const names = outcomes.map(({ scenario }) => scenario.id).join(', ');
      return problems.length === 0 ? pass(`${names}: every hop as expected`) : verdict(problems, '');
    },
  };
}

/** Level 2, the rules of the built-in tools (spec §12), each judged on the scenarios made for it. */
export const toolChecks: ConformanceCheck[] = [
  toolRule(
    'tools.one-call-at-a-time',
    'Only the first call of a no-parallel tool in one reply executes, whether it succeeds or not.',
    {
      section: 'tools',
      must: 'A server MUST give every later call of that tool in the same reply the message and no output, even when the first call failed.',
    },
  ),
  toolRule(
    'tools.yaml-1-2',
    'YAML in tool inputs is read as YAML 1.2 with the core schema; a key written twice is refused.',
    {
      section: 'yaml',
      must: 'A server MUST read the YAML strings of tool inputs as YAML 1.2 with the core schema; a map MUST NOT hold one key twice.',
    },
  ),
  toolRule(
    'tools.prop-types',
    'Prop values are accepted exactly as the table of prop types says (image alt, url schemes, null, integers).',
    {
      section: 'propTypes',
      must: 'A server MUST accept a prop value exactly when the table of prop types does.',
    },
  ),
  toolRule(
    'tools.placed-props',
    'A placed component carries the catalog default of every optional prop the model left out.',
    {
      section: 'toolOutputs',
      must: 'A server MUST send each placed node with every prop as the page will show it, catalog defaults included.',
    },
  ),
  toolRule(
    'tools.placement-rules',
    '`inside` carries no reference_uuid in the output, of a placement or a move, and is refused on a target that is not empty.',
    {
      section: 'toolOutputs',
      must: 'An operation with placement `inside` MUST NOT carry `reference_uuid`; `inside` on a target that is not empty is refused.',
    },
  ),
  toolRule(
    'tools.edit-changed-props-only',
    'An edit output carries only the props whose value changes; an edit that changes nothing has no output.',
    {
      section: 'toolOutputs',
      must: 'A server MUST leave out of `component_updates` every prop whose value the component already holds, and a uuid left with no prop.',
    },
  ),
  toolRule(
    'tools.remove-listed-twice',
    'A uuid listed twice in one removal is removed once: the output names it once.',
    {
      section: 'tools',
      must: 'A server MUST NOT send a `remove_components` output that names a uuid twice or names a component inside another it names.',
    },
  ),
  toolRule(
    'tools.move-listed-twice',
    'A move that lists a uuid twice in one operation is refused as a whole: no output, its valid operations included.',
    {
      section: 'tools',
      must: 'A uuid listed twice in the `uuids` of one operation MUST refuse the whole call, like every problem of a move.',
    },
  ),
  toolRule(
    'tools.move-replaces-before-the-call',
    'A component that two operations of one move call move is replaced from where it was before the call, not from where the first operation put it.',
    {
      section: 'tools',
      must: 'For a component that several operations of one call move, `replaces` MUST give where it was before the call.',
    },
    { replaces: true },
  ),
  toolRule(
    'tools.derived-props-never-set',
    'A tool call that gives a derived prop a value (the node lists it, or the catalog marks it) has no output.',
    {
      section: 'derivedProps',
      must: 'A server MUST refuse a `place_components` that gives a derived prop a value and an `edit_components` that names a derived prop.',
    },
  ),
  toolRule(
    'tools.derived-props-listed',
    'A placed node lists the props its catalog component marks derived, in `derived`.',
    {
      section: 'derivedProps',
      must: 'A server MUST send every node it places with `derived` listing the props its catalog component marks derived.',
    },
  ),
];

/** Every check id a scenario may name in `exercises`: the tool rules, and the one wait rule judged on scenarios. */
export const EXERCISABLE_CHECKS: readonly string[] = [
  ...toolChecks.map((check) => check.id),
  'waits.answer-reaches-model',
  'screenshots.answer-reaches-model',
  'waits.plan-feedback-reaches-model',
  'approvals.answer-reaches-model',
];
