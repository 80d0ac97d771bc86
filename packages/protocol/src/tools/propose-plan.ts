import type { ErrorIssue } from '../wire/errors.js';
import type { Plan, PlanAnswer } from '../wire/waits.js';
import { catalogIndex } from './component-spec.js';
import { didYouMean } from './suggest.js';
import { type ToolDefinition, ToolInputError } from './tool-definition.js';
import { ProposePlanInput } from './tool-inputs.js';

/** Stands in the transcript for the result of a plan until the person's decision replaces it (spec §20.1). */
export const PLAN_PENDING_RESULT = 'The plan is shown to the person; their decision follows.';

/** What the model is told when the person approved the plan (spec §20.4, worded exactly so). */
export const PLAN_APPROVED_RESULT = 'The person approved the plan. Build it now, row by row, in the planned order.';

/** What the model is told, before the feedback, when the person asked for another plan (spec §20.4). */
export const PLAN_REVISE_RESULT =
  'The person asked to revise the plan. Propose it again with propose_plan, changed as they ask, before you build ' +
  'anything. Their feedback: ';

/**
 * `propose_plan` (revision 1.8, spec §20.4): the rows the agent will place, in order, each with a title and its
 * catalog components, for the person to approve or revise before anything is built. It changes nothing and has no
 * output: its hop answers with `waiting` and no model decision, and the decision becomes its result. Offered only to
 * a turn whose client declared the wait `plan`, and only to an agent with `plan_first` (spec §12.4, §20.1).
 */
export const proposePlanTool: ToolDefinition<ProposePlanInput> = {
  name: 'propose_plan',
  description:
    'Propose the rows you will build, before you place any, when the request builds more than two rows: each row ' +
    'with a short title and the catalog components it is made of, in the order you will place them. The turn ' +
    'pauses until the person approves (then build exactly that, one row per place_components call) or asks for ' +
    'changes (then propose again).',
  input: ProposePlanInput,
  allowParallel: false,
  waitKind: 'plan',
  execute(input, context) {
    const byId = catalogIndex(context.catalog);
    const known = [...byId.keys()];
    const problems: string[] = [];
    input.rows.forEach((row, index) => {
      for (const id of row.components) {
        if (!byId.has(id))
          problems.push(`rows[${index}] ("${row.title.trim()}"): unknown component \`${id}\`${didYouMean(id, known)}`);
      }
    });
    if (problems.length > 0)
      throw new ToolInputError(
        `The plan names components the catalog does not have; propose it again with catalog ids only.\n${problems.join('\n')}`,
      );
    const plan: Plan = { rows: input.rows.map((row) => ({ title: row.title.trim(), components: row.components })) };
    return { result: PLAN_PENDING_RESULT, wait: { kind: 'plan', plan } };
  },
};

/** What the model is told for an accepted decision on a plan (spec §20.4). */
export function planAnswerResult(answer: PlanAnswer): string {
  return answer.decision === 'approve'
    ? PLAN_APPROVED_RESULT
    : `${PLAN_REVISE_RESULT}${(answer.feedback ?? '').trim()}`;
}

/** Why a decision on a plan does not fit (spec §20.4): feedback with `revise` only, and never blank there. */
export function planAnswerProblems(answer: PlanAnswer): ErrorIssue[] {
  const feedback = answer.feedback?.trim() ?? '';
  if (answer.decision === 'revise' && feedback === '')
    return [{ path: 'answer.feedback', message: 'A revision needs feedback: say what should change in the plan.' }];
  if (answer.decision === 'approve' && feedback !== '')
    return [
      {
        path: 'answer.feedback',
        message: 'An approval carries no feedback: send decision "revise" to have the plan changed.',
      },
    ];
  return [];
}
