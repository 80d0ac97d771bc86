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
function toolRule(id: string, title: string, spec: SpecRef): ConformanceCheck {
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
      const problems = outcomes.flatMap(({ scenario, responses, error, catalog }) => {
        if (error) return [`${scenario.id}: ${error}`];
        const placed: string[] = [];
        return scenario.hops.flatMap((expected, index) => {
          const response = responses[index];
          if (!response)
            return expected.outputs.length > 0
              ? [`${scenario.id} hop ${index + 1}, which expects outputs, was not played`]
              : [];
          const problems = checkOutputs(expected, response, placed, scenario.selected_component, catalog);
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
    '`inside` carries no reference_uuid in the output, and is refused on a target that is not empty.',
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

/** Every check id a scenario may name in `exercises`. */
export const EXERCISABLE_CHECKS: readonly string[] = toolChecks.map((check) => check.id);
