import { applyOutputsWithResults, type CanvasDocument } from '@canvas-ai/protocol';
import type { HopResponse } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, type CheckVerdict, type ConformanceCheck } from '../check.js';
import type { CheckContext } from '../context.js';
import type { PromptTurn } from '../drive-turn.js';
import { EMPTY_DOCUMENT } from '../requests.js';
import { scenarioOutcomes } from '../scenario-runs.js';

/**
 * Level 1, the turn rules any server shows with any model: judged on whatever turn it runs for the prompt. The
 * narration, answer and apply rules (`progressProblems`, `answerProblems`, `applyProblems`) are shared with the
 * scenario checks of level 2.
 */
export const invariantChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'invariants.turn-completes',
    level: 1,
    title: 'The turn for the prompt ends with should_continue false, every hop answered 200 with a valid HopResponse.',
    spec: {
      section: 'turn',
      must: 'A turn has at most max_hops + 2 hops; while should_continue is true the client sends the next hop, and the last hop ends the turn.',
    },
    async run(context) {
      const turn = await context.promptTurn();
      if (turn.problem) return fail(turn.problem);
      const last = turn.hops.at(-1)!.response!;
      return pass(`${turn.hops.length} hop(s), finish_reason ${last.should_continue ? '?' : last.finish_reason}`);
    },
  }),
  defineCheck({
    id: 'invariants.echoes-request',
    level: 1,
    title: "Every response names the request's request_id and hop.",
    spec: {
      section: 'response',
      must: "`request_id` is the request's request_id and `hop` the request's hop, on every response.",
    },
    run: (context) => onResponses(context, (responses, turn) => echoProblems(responses, turn.requestId)),
  }),
  defineCheck({
    id: 'invariants.first-hop-no-outputs',
    level: 1,
    title: 'Hop 1 returns no outputs: tools decided in a hop execute at the start of the next.',
    spec: {
      section: 'turn',
      must: "Every hop's outputs come from the calls parked in the hop before it; hop 1's outputs are always empty.",
    },
    run: (context) => onResponses(context, (responses) => firstHopOutputProblems(responses)),
  }),
  defineCheck({
    id: 'invariants.final-no-outputs',
    level: 1,
    title: 'The response that ends the turn carries no outputs: the client reports on every output before the answer.',
    spec: {
      section: 'reportedFirst',
      must: 'A response that ends the turn MUST NOT carry outputs.',
    },
    run: (context) => onResponses(context, (responses) => finalOutputProblems(responses)),
  }),
  defineCheck({
    id: 'invariants.final-fields-last-hop-only',
    level: 1,
    title: '`message` and `finish_reason` appear on the last hop only, and there always.',
    spec: {
      section: 'response',
      must: '`message` and `finish_reason`: only when should_continue is false, and then always.',
    },
    async run(context) {
      const turn = await context.promptTurn();
      const problems = turn.hops.flatMap(({ hop, first }) => finalFieldProblems(hop, first.body));
      if (turn.hops.length === 0) return fail(turn.problem ?? 'no hop was answered');
      return verdict(problems, `checked ${turn.hops.length} hop(s)`);
    },
  }),
  defineCheck({
    id: 'invariants.progress-never-shrinks',
    level: 1,
    title: "Each hop's progress starts with the previous hop's progress: the narration accumulates.",
    spec: {
      section: 'narration',
      must: '`progress` is every model text of this turn so far, sent whole in every response.',
    },
    run: (context) => onResponses(context, (responses) => progressProblems(responses)),
  }),
  defineCheck({
    id: 'invariants.answer-not-in-progress',
    level: 1,
    title: 'The final answer is stripped off the end of progress, so it is not shown twice.',
    spec: {
      section: 'narration',
      must: 'On a hop that ends with finish_reason "answer", the answer is stripped off the end of `progress`.',
    },
    run: (context) => onResponses(context, (responses) => answerProblems(responses)),
  }),
  defineCheck({
    id: 'invariants.outputs-apply',
    level: 1,
    title: "Every output applies to the client's document with the shared reducer (known targets, new uuids).",
    spec: {
      section: 'layout',
      must: 'The server assigns the uuid of every component it places; a component uuid is unique within the whole layout.',
    },
    async run(context) {
      const prompt = await onResponses(context, (responses) => applyProblems(EMPTY_DOCUMENT, responses));
      if (prompt.status === 'fail' || context.level < 2) return prompt;
      // At level 2 every scenario's outputs too, applied to its own layout: the prompt's turn may place nothing, and
      // only the scenarios edit, remove and move what a layout holds.
      const refused = (await scenarioOutcomes(context)).flatMap(({ scenario, run }) =>
        (run?.hops ?? []).flatMap((hop) =>
          hop.mismatches
            // A conflict with the person's edit is co-editing's rule (spec §16.2), judged by the scenario checks.
            .filter(
              (mismatch) =>
                mismatch.includes('could not be applied') && !mismatch.includes("the person's edit is kept"),
            )
            .map((mismatch) => `${scenario.id} ${mismatch}`),
        ),
      );
      return refused.length === 0
        ? pass(`${prompt.why}; every output of every scenario applied`)
        : verdict(refused, '');
    },
  }),
  defineCheck({
    id: 'invariants.usage-sums',
    level: 1,
    title: "When a response carries usage, its turn counts are the sums of the turn's hop counts so far.",
    spec: {
      section: 'usage',
      must: 'The `turn` counts of a response MUST be the sums of the `hop` counts of this response and of every earlier response of the turn (0 for a response without `usage`), so they never decrease within a turn.',
    },
    // The counts themselves (integers ≥ 0, cached at most input) are the HopResponse schema's, which every hop of
    // the turn is read with: a malformed `usage` ends the turn before this check as a problem of the turn.
    run: (context) =>
      onResponses(
        context,
        (responses) => usageProblems(responses),
        (responses) => usagePassWhy(responses),
      ),
  }),
];

async function onResponses(
  context: CheckContext,
  judge: (responses: HopResponse[], turn: PromptTurn) => string[],
  passWhy: (responses: HopResponse[]) => string = (responses) => `checked ${responses.length} hop(s)`,
): Promise<CheckVerdict> {
  const turn = await context.promptTurn();
  const responses = turn.hops.flatMap((hop) => (hop.response ? [hop.response] : []));
  if (responses.length === 0) return fail(`no valid hop response to judge: ${turn.problem ?? 'nothing was answered'}`);
  return verdict(judge(responses, turn), passWhy(responses));
}

const TOKEN_FIELDS = ['input_tokens', 'output_tokens', 'cached_input_tokens'] as const;

/** Responses whose `usage.turn` is not the sum of the turn's `usage.hop` counts so far (spec §6.2). */
function usageProblems(responses: readonly HopResponse[]): string[] {
  const problems: string[] = [];
  const sums = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
  for (const response of responses) {
    const usage = response.usage;
    if (!usage) continue;
    for (const field of TOKEN_FIELDS) {
      sums[field] += usage.hop[field];
      if (usage.turn[field] !== sums[field])
        problems.push(
          `hop ${response.hop}: usage.turn.${field} is ${usage.turn[field]}, but the hops' ${field} so far sum to ${sums[field]}`,
        );
    }
  }
  return problems;
}

/** What the usage check saw when it passed: no usage at all is a pass too (the field is optional). */
function usagePassWhy(responses: readonly HopResponse[]): string {
  const carrying = responses.filter((response) => response.usage).length;
  if (carrying === 0) return `no response of the ${responses.length} hop(s) carries usage (optional, spec §6.2)`;
  return `${carrying} of ${responses.length} hop(s) carry usage, each turn count the sum of the hops'`;
}

/** The last response, when it ends the turn with outputs (spec §16.3). */
export function finalOutputProblems(responses: readonly HopResponse[]): string[] {
  const last = responses.at(-1);
  if (!last || last.should_continue || last.outputs.length === 0) return [];
  return [
    `hop ${last.hop} ends the turn with ${last.outputs.length} output(s) (${last.outputs.map((o) => o.call_id).join(', ')}): the host cannot report on them before the answer`,
  ];
}

/** Pass when there is no problem; else fail with the first few. */
export function verdict(problems: readonly string[], passWhy: string): CheckVerdict {
  if (problems.length === 0) return pass(passWhy);
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
  return fail(problems.slice(0, 3).join('; ') + more);
}

/** Responses that do not name their turn and hop (hops numbered from 1). */
function echoProblems(responses: readonly HopResponse[], requestId: string): string[] {
  return responses.flatMap((response, index) => {
    const problems: string[] = [];
    if (response.request_id !== requestId) problems.push(`hop ${index + 1} names request_id "${response.request_id}"`);
    if (response.hop !== index + 1) problems.push(`hop ${index + 1} names hop ${response.hop}`);
    return problems;
  });
}

/** Outputs on hop 1. */
function firstHopOutputProblems(responses: readonly HopResponse[]): string[] {
  const first = responses[0];
  if (!first || first.outputs.length === 0) return [];
  return [
    `hop 1 returned ${first.outputs.map((output) => `${output.type} ${output.call_id}`).join(', ')}: a call decided in hop 1 executes in hop 2`,
  ];
}

/** `message`/`finish_reason` on a continuing hop, read from the raw body (a schema parse would drop them). */
function finalFieldProblems(hop: number, body: unknown): string[] {
  if (body === null || typeof body !== 'object' || (body as { status?: unknown }).status !== true) return [];
  const raw = body as Record<string, unknown>;
  if (raw.should_continue !== true) return [];
  return ['message', 'finish_reason']
    .filter((field) => field in raw)
    .map((field) => `hop ${hop} continues but carries ${field}`);
}

/** Hops whose progress does not extend the previous hop's. */
export function progressProblems(responses: readonly HopResponse[]): string[] {
  const problems: string[] = [];
  for (let index = 1; index < responses.length; index += 1) {
    const before = responses[index - 1]!.progress;
    const now = responses[index]!.progress;
    if (!now.startsWith(before))
      problems.push(`hop ${index + 1}'s progress ${quote(now)} does not start with hop ${index}'s ${quote(before)}`);
  }
  return problems;
}

/** A final answer left at the end of progress (unless the narration before it already ended that way). */
export function answerProblems(responses: readonly HopResponse[]): string[] {
  const last = responses.at(-1);
  if (!last || last.should_continue || last.finish_reason !== 'answer') return [];
  const answer = last.message.trim();
  const before = responses.at(-2)?.progress ?? '';
  if (answer.length > 0 && last.progress.endsWith(answer) && last.progress !== before) {
    return [
      `hop ${responses.length}'s progress ends with the final answer ${quote(answer)}, which is also its message`,
    ];
  }
  return [];
}

/** Outputs the shared reducer refuses, applied hop after hop from `start` as a host would. */
export function applyProblems(start: CanvasDocument, responses: readonly HopResponse[]): string[] {
  let document = start;
  const problems: string[] = [];
  responses.forEach((response, index) => {
    const applied = applyOutputsWithResults(document, response.outputs);
    document = applied.document;
    for (const result of applied.results) {
      if (result.status === 'rejected')
        problems.push(`hop ${index + 1}: output ${result.call_id} cannot be applied (${result.reason})`);
    }
  });
  return problems;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}
