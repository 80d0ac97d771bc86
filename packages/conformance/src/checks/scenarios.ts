import { collectPlacedUuids } from '@canvas-ai/protocol/server';
import { PLACED_REF, resolvePlacedRefs } from '@canvas-ai/protocol/scenario';
import { decidedReplies, scenarioAnswer } from '@canvas-ai/protocol/scenario';
import type { ScenarioRun } from '@canvas-ai/protocol/scenario';
import type { Scenario } from '@canvas-ai/protocol/scenario';
import { TOOL_OUTPUT_TYPES } from '@canvas-ai/protocol';
import { answerResult, maxHopsMessage } from '@canvas-ai/protocol/server';
import { fail, pass, skip, type CheckVerdict, type ConformanceCheck } from '../check.js';
import type { CheckContext } from '../context.js';
import { scenarioOutcomes, type ScenarioOutcome } from '../scenario-runs.js';
import { answerProblems, applyProblems, finalOutputProblems, progressProblems, verdict } from './invariants.js';

/**
 * Level 2: every scenario of the fixtures played hop by hop with `driveScenario` (one check each), then the same
 * runs judged rule by rule, so a failure names the rule a server breaks.
 */
export function scenarioChecks(scenarios: readonly Scenario[]): ConformanceCheck[] {
  const each = scenarios.map(
    (scenario): ConformanceCheck => ({
      id: `scenario.${scenario.id}`,
      family: 'scenario.*',
      level: 2,
      title: `${scenario.title}: every hop answers what fixtures/scenarios/${scenario.id}.yaml expects.`,
      spec: {
        section: 'scenarios',
        must: 'A scripted-mode server replays the scenario: each hop answers the expected should_continue, outputs, progress, message and finish_reason.',
      },
      async run(context) {
        const outcome = (await scenarioOutcomes(context)).find((candidate) => candidate.scenario === scenario)!;
        if (outcome.error) return fail(outcome.error);
        const mismatches = outcome.run!.hops.flatMap((hop) => hop.mismatches);
        if (outcome.run!.passed) return pass(`${scenario.hops.length} hop(s) as expected`);
        if (mismatches.length === 0)
          return fail(`only ${outcome.run!.hops.length} of ${scenario.hops.length} hops were played`);
        return verdict(mismatches, '');
      },
    }),
  );
  return [...each, ...hopRuleChecks];
}

const rule = (
  check: Omit<ConformanceCheck, 'family' | 'level' | 'run'> & { judge: (outcomes: ScenarioOutcome[]) => CheckVerdict },
): ConformanceCheck => ({
  id: check.id,
  family: check.id,
  level: 2,
  title: check.title,
  spec: check.spec,
  run: async (context: CheckContext) => check.judge(await scenarioOutcomes(context)),
});

const hopRuleChecks: ConformanceCheck[] = [
  rule({
    id: 'hop-rules.outputs-in-next-hop',
    title:
      'The outputs of the calls a reply decides come in the next hop (a proposed change: with the hop that brings the approval), never in the hop that decided them.',
    spec: {
      section: 'turn',
      must: 'Tool calls of a decision are parked, not executed; they execute at the start of the next hop, whose response carries their outputs.',
    },
    judge: (outcomes) =>
      judgeAll(outcomes, ({ scenario, responses, run }) => {
        const decided = decidedReplies(scenario, responses, (index) => rejectedAfter(run, index));
        return responses.flatMap((response, index) => {
          const previous = index === 0 ? undefined : decided[index - 1];
          const before = responses[index - 1];
          const proposed =
            before?.should_continue && before.waiting?.kind === 'approval'
              ? before.waiting.approval.changes.map((change) => change.call_id)
              : [];
          const allowed = new Set([
            ...(previous === undefined ? [] : scenario.replies[previous]!.tool_calls.map((call) => call.id)),
            // Held for the person's approval, sent with the hop that brings it (spec §20.5).
            ...proposed,
          ]);
          return response.outputs
            .filter((output) => !allowed.has(output.call_id))
            .map((output) => {
              const decidedBy = scenario.replies.findIndex((reply) =>
                reply.tool_calls.some((call) => call.id === output.call_id),
              );
              const when = decidedBy === -1 ? 'never decided by the model' : `decided by reply ${decidedBy + 1}`;
              return `${scenario.id} hop ${index + 1} returned ${output.call_id} (${when})`;
            });
        });
      }),
  }),
  rule({
    id: 'hop-rules.progress-accumulates',
    title:
      "Each continuing hop's progress is every narration so far, joined by a blank line, as the fixture spells it.",
    spec: {
      section: 'narration',
      must: '`progress` is every model text of this turn so far, each trimmed, empty ones skipped, joined with one blank line.',
    },
    judge: (outcomes) =>
      judgeAll(outcomes, ({ scenario, responses }) => [
        ...responses.flatMap((response, index) => {
          const expected = scenario.hops[index];
          if (!response.should_continue || !expected || response.progress === expected.progress) return [];
          return [
            `${scenario.id} hop ${index + 1}: progress ${JSON.stringify(response.progress)}, expected ${JSON.stringify(expected.progress)}`,
          ];
        }),
        ...progressProblems(responses).map((problem) => `${scenario.id}: ${problem}`),
      ]),
  }),
  rule({
    id: 'hop-rules.answer-stripped',
    title:
      'The last hop of a turn that ends with an answer carries it as message and strips it off the end of progress.',
    spec: {
      section: 'narration',
      must: 'On a hop that ends with finish_reason "answer", `message` is the last decision\'s text, trimmed, and that text is stripped off the end of `progress`.',
    },
    judge: (outcomes) => judgeFinal(outcomes, 'answer'),
  }),
  rule({
    id: 'hop-rules.max-hops',
    title:
      "A turn that uses its agent's max_hops decisions ends with finish_reason max_hops and the fixed message, in a hop without outputs.",
    spec: {
      section: 'turn',
      must: 'No decision is made once the turn used its max_hops decisions; the turn ends with should_continue false, finish_reason "max_hops", message "I stopped after N steps…", once the last outputs were reported.',
    },
    judge: (outcomes) => judgeFinal(outcomes, 'max_hops'),
  }),
  rule({
    id: 'hop-rules.final-no-outputs',
    title:
      'No scenario turn ends with outputs: the answer comes one hop after the last outputs, once they were reported.',
    spec: { section: 'reportedFirst', must: 'A response that ends the turn MUST NOT carry outputs.' },
    judge: (outcomes) =>
      judgeAll(outcomes, ({ scenario, responses }) =>
        finalOutputProblems(responses).map((problem) => `${scenario.id}: ${problem}`),
      ),
  }),
  rule({
    id: 'coediting.replaces',
    title:
      'Every edit_components and set_page_value output carries replaces: the values the tool read from the request.',
    spec: {
      section: 'replaces',
      must: 'A server MUST send `replaces` on every `edit_components` output (each prop as the tool read it, `null` when not set) and on every `set_page_value` output.',
    },
    judge(outcomes) {
      const carrying = outcomes.filter(({ responses }) =>
        responses.some((response) =>
          response.outputs.some((output) => output.type === 'edit_components' || output.type === 'set_page_value'),
        ),
      );
      if (carrying.length === 0) return skip('no scenario turn returned an edit_components or set_page_value output');
      return judgeAll(
        carrying,
        ({ scenario, run }) =>
          (run?.hops ?? []).flatMap((hop) =>
            hop.replacesProblems.map((problem) => `${scenario.id} hop ${hop.hop}: ${problem}`),
          ),
        `${carrying.length} scenario(s) send replaces equal to what the page held`,
      );
    },
  }),
  rule({
    id: 'hop-rules.uuid-chaining',
    title:
      'A placement or edit that names an earlier placement gets the uuid the server assigned to it; no uuid is assigned twice.',
    spec: {
      section: 'layout',
      must: 'The server assigns the uuid of every component it places and returns it to the model (so it can place relative to it next) and to the browser.',
    },
    judge(outcomes) {
      const chained = outcomes.filter(({ scenario }) =>
        scenario.hops.some((hop) =>
          hop.outputs.some((output) => new RegExp(PLACED_REF.source).test(JSON.stringify(output))),
        ),
      );
      if (chained.length === 0) return skip('no scenario names {{placed.N}} in an expected output');
      return judgeAll(chained, uuidChainProblems, `${chained.length} scenario(s) chain placements by uuid`);
    },
  }),
  rule({
    id: 'hop-rules.validation-error-recovery',
    title:
      'A call the tools refuse (invalid input, a second placement in one reply) yields no output, the hop still answers 200 and the turn goes on.',
    spec: {
      section: 'tools',
      must: 'A failed validation produces nothing: the model gets a readable error and the browser no output for that call. Such errors are not HTTP errors: the hop succeeds.',
    },
    judge(outcomes) {
      const refused = outcomes.flatMap((outcome) =>
        refusedCalls(outcome.scenario).map((call) => ({ ...call, outcome })),
      );
      if (refused.length === 0) return skip('no scenario has a call that its next hop returns no output for');
      const problems = refused.flatMap(({ outcome, hop, callId }) => {
        const driven = outcome.run?.hops[hop - 1];
        // A hop never played: the turn went another way earlier, which another check names.
        if (!driven) return [];
        const response = outcome.responses[hop - 1];
        if (!response)
          return [`${outcome.scenario.id} hop ${hop} (after refusing ${callId}) answered ${driven.status}, not 200`];
        const problems: string[] = [];
        if (response.outputs.some((output) => output.call_id === callId))
          problems.push(`${outcome.scenario.id} hop ${hop} returned an output for ${callId}`);
        // Whether the turn goes on is comparable only while the run followed the fixture up to this hop.
        const followed = outcome.run!.hops.slice(0, hop - 1).every((earlier) => earlier.mismatches.length === 0);
        if (followed && response.should_continue !== outcome.scenario.hops[hop - 1]!.should_continue) {
          problems.push(
            `${outcome.scenario.id} hop ${hop}: should_continue ${response.should_continue} after refusing ${callId}`,
          );
        }
        return problems;
      });
      return verdict(
        problems,
        `${refused.length} refused call(s) gave no output and their turns went on: ${refused.map((call) => call.callId).join(', ')}`,
      );
    },
  }),
];

/** Judges every played scenario; a scenario that could not be played at all is a problem of its own. */
function judgeAll(
  outcomes: ScenarioOutcome[],
  problemsOf: (outcome: ScenarioOutcome) => string[],
  passWhy?: string,
): CheckVerdict {
  const problems = outcomes.flatMap((outcome) => {
    if (outcome.error) return [`${outcome.scenario.id}: ${outcome.error}`];
    if (outcome.responses.length === 0)
      return [`${outcome.scenario.id}: hop 1 was not answered with a valid 200 response`];
    return problemsOf(outcome);
  });
  return verdict(problems, passWhy ?? `${outcomes.length} scenario(s) follow the rule`);
}

/**
 * The last hop of the scenarios that end with `reason`: its finish_reason, its message (the text of the reply the
 * turn really decided last, or the fixed max_hops text) and a progress the ending added nothing to. Only the runs that
 * reached an end are judged: a run that went another way earlier broke another rule, which another check names.
 */
function judgeFinal(outcomes: ScenarioOutcome[], reason: 'answer' | 'max_hops'): CheckVerdict {
  const ending = outcomes.filter(({ scenario }) => scenario.hops.at(-1)!.finish_reason === reason);
  if (ending.length === 0) return skip(`no scenario ends with finish_reason ${reason}`);
  const ended = ending.filter(({ responses }) => responses.at(-1)?.should_continue === false);
  if (ended.length === 0) return fail(`no scenario that ends with ${reason} reached a hop that ends the turn`);
  return judgeAll(
    ended,
    ({ scenario, responses, run }) => {
      const last = responses.at(-1)!;
      if (last.should_continue) return [];
      const problems: string[] = [];
      if (last.finish_reason !== reason)
        problems.push(`${scenario.id}: finish_reason ${last.finish_reason}, expected ${reason}`);
      const message = expectedMessage(scenario, responses, run, reason);
      if (message !== undefined && last.message !== message)
        problems.push(`${scenario.id}: message ${JSON.stringify(last.message)}, expected ${JSON.stringify(message)}`);
      // The ending adds nothing to the narration (an answer is stripped, max_hops has no text): how the narration
      // accumulated before is hop-rules.progress-accumulates' to judge.
      const before = responses.at(-2)?.progress ?? '';
      if (last.progress !== before)
        problems.push(
          `${scenario.id}: the last hop's progress ${JSON.stringify(last.progress)} is not the narration before it, ${JSON.stringify(before)}`,
        );
      if (reason === 'answer')
        problems.push(...answerProblems(responses).map((problem) => `${scenario.id}: ${problem}`));
      return problems;
    },
    `${ended.length} scenario(s) end with ${reason} as expected`,
  );
}

/** The message a turn's last hop must carry: the trimmed text of the reply it decided last, or the max_hops text. */
function expectedMessage(
  scenario: Scenario,
  responses: readonly { outputs: unknown[] }[],
  run: ScenarioRun | undefined,
  reason: 'answer' | 'max_hops',
): string | undefined {
  if (reason === 'max_hops')
    return scenario.max_hops === undefined ? scenario.hops.at(-1)!.message : maxHopsMessage(scenario.max_hops);
  const decided = decidedReplies(scenario, responses as never, (index) => rejectedAfter(run, index));
  const last = decided.filter((reply) => reply !== undefined).at(-1);
  return last === undefined ? undefined : withAnswer(scenario, scenario.replies[last]!.text).trim();
}

/**
 * A reply's text with `{{answer}}` as the scripted model resolves it (spec §15): the result of the turn's latest
 * question, worded from the answer the scenario sends (spec §20.2).
 */
function withAnswer(scenario: Scenario, text: string): string {
  const asked = scenario.hops.findLast((hop) => hop.waiting !== undefined && hop.answer !== undefined);
  if (!text.includes('{{answer}}') || !asked?.waiting || !asked.answer) return text;
  const result = answerResult(asked.waiting, scenarioAnswer(asked.waiting, asked.answer));
  return text.replaceAll('{{answer}}', result);
}

/** Expected outputs that name `{{placed.N}}`, against the uuids the server really assigned; duplicates; the reducer. */
function uuidChainProblems({ scenario, responses, start, catalog }: ScenarioOutcome): string[] {
  const problems: string[] = [];
  const placed: string[] = [];
  responses.forEach((response, index) => {
    placed.push(...collectPlacedUuids(response.outputs, catalog));
    for (const want of scenario.hops[index]?.outputs ?? []) {
      const got = response.outputs.find((output) => output.call_id === want.call_id);
      if (!got) {
        // An output that names an earlier placement and never came: its call found no component under that uuid.
        if (new RegExp(PLACED_REF.source).test(JSON.stringify(want)))
          problems.push(
            `${scenario.id} hop ${index + 1}: no output ${want.call_id}, which names {{placed.N}}: the uuid its call was given names no component of that placement`,
          );
        continue;
      }
      const named = (text: string): string | undefined => {
        try {
          return resolvePlacedRefs(text, placed, scenario.selected_component);
        } catch {
          return undefined;
        }
      };
      want.operations?.forEach((operation, at) => {
        const reference = operation.reference_uuid;
        if (reference === undefined || !reference.includes('{{')) return;
        const actual = got.type === 'place_components' ? got.operations[at]?.reference_uuid : undefined;
        const expected = named(reference);
        if (actual !== expected)
          problems.push(
            `${scenario.id} hop ${index + 1}: ${want.call_id} places next to ${actual ?? 'nothing'}, expected ${reference} = ${expected ?? 'not placed'}`,
          );
      });
      for (const key of Object.keys(want.component_updates ?? {})) {
        if (!key.includes('{{')) continue;
        const expected = named(key);
        const edits = got.type === 'edit_components' ? Object.keys(got.component_updates) : [];
        if (expected === undefined || !edits.includes(expected))
          problems.push(
            `${scenario.id} hop ${index + 1}: ${want.call_id} edits [${edits.join(', ')}], expected ${key} = ${expected ?? 'not placed'}`,
          );
      }
    }
  });
  const duplicates = placed.filter((uuid, index) => placed.indexOf(uuid) !== index);
  if (duplicates.length > 0) problems.push(`${scenario.id}: uuid ${duplicates[0]} was assigned twice`);
  problems.push(...applyProblems(start, responses).map((problem) => `${scenario.id} ${problem}`));
  return problems;
}

/** Whether the client reported an output of hop `index` (0-based) rejected, in a played scenario. */
function rejectedAfter(run: ScenarioRun | undefined, index: number): boolean {
  return run?.hops[index]?.applyResults.some((result) => result.status === 'rejected') ?? false;
}

/** Page-changing calls a reply decides that the fixture expects no output for in the next hop: refused by the tools. */
function refusedCalls(scenario: Scenario): Array<{ hop: number; callId: string }> {
  const refused: Array<{ hop: number; callId: string }> = [];
  const decided = decidedReplies(scenario, scenario.hops, (index) =>
    (scenario.hops[index]?.apply_results ?? []).some((result) => result.status === 'rejected'),
  );
  scenario.hops.forEach((hop, index) => {
    const previous = index === 0 ? undefined : decided[index - 1];
    if (previous === undefined) return;
    const returned = new Set(hop.outputs.map((output) => output.call_id));
    for (const call of scenario.replies[previous]!.tool_calls) {
      // Only page-changing tools return outputs (get_component_details never does).
      if ((TOOL_OUTPUT_TYPES as readonly string[]).includes(call.name) && !returned.has(call.id))
        refused.push({ hop: index + 1, callId: call.id });
    }
  });
  return refused;
}
