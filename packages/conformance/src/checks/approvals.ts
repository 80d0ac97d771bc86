import { scenarioAnswer, type Fixtures, type Scenario } from '@canvas-ai/protocol/scenario';
import { HopResponse } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, skip, type CheckVerdict, type ConformanceCheck } from '../check.js';
import type { CheckContext } from '../context.js';
import { describeAnswer, errorCodeOf, errorFieldOf, type Exchange } from '../http-client.js';
import { newRequestId, scenarioHop } from '../requests.js';
import { scenarioOutcomes } from '../scenario-runs.js';

/** A scenario whose hop `waitsAt` (1-based) proposes changes for approval. */
interface ApprovalProbe {
  scenario: Scenario;
  fixtures: Fixtures;
  waitsAt: number;
}

/** The first scenario (file order) that waits for an approval, or why there is none. */
function approvalProbe(context: CheckContext): ApprovalProbe | { skip: string } {
  const fixtures = context.requireFixtures();
  for (const scenario of fixtures.scenarios) {
    const index = scenario.hops.findIndex((hop) => hop.waiting?.kind === 'approval');
    if (index >= 0) return { scenario, fixtures, waitsAt: index + 1 };
  }
  return { skip: 'no scenario waits for an approval' };
}

/** Sends the probe's hops up to the one that executes the proposed calls, with `waits` declared on hop 1. */
async function untilProposed(
  context: CheckContext,
  probe: ApprovalProbe,
  id: string,
  waits?: string[],
): Promise<Exchange | CheckVerdict> {
  let last: Exchange | undefined;
  for (let hop = 1; hop <= probe.waitsAt; hop += 1) {
    const request = scenarioHop(probe.scenario, probe.fixtures, id, hop);
    if (hop === 1 && waits) request.capabilities = { outputs: probe.scenario.capabilities?.outputs ?? [], waits };
    last = await context.client.postHop(request);
    if (last.status !== 200) return fail(`${probe.scenario.id} hop ${hop} answered ${describeAnswer(last)}`);
  }
  return last!;
}

/** The types and call ids of what a proposal held back: the scenario's proposed changes. */
function proposedCalls(probe: ApprovalProbe): Set<string> {
  const waiting = probe.scenario.hops[probe.waitsAt - 1]!.waiting;
  return new Set(waiting?.kind === 'approval' ? waiting.approval.changes.map((change) => change.call_id) : []);
}

/** A check that plays the probe's turn up to its proposal, judges it, and cancels what it left. */
function atTheProposal(
  check: Omit<ConformanceCheck, 'family' | 'run' | 'level'>,
  judge: (context: CheckContext, probe: ApprovalProbe, id: string, proposed: Exchange) => Promise<CheckVerdict>,
  waits?: string[],
): ConformanceCheck {
  return defineCheck({
    ...check,
    level: 2,
    async run(context) {
      const probe = approvalProbe(context);
      if ('skip' in probe) return skip(probe.skip);
      const id = newRequestId(check.id.replace('.', '-'));
      try {
        const proposed = await untilProposed(context, probe, id, waits);
        return 'status' in proposed && 'why' in proposed
          ? proposed
          : await judge(context, probe, id, proposed as Exchange);
      } finally {
        await context.client.cancel(id).catch(() => undefined);
      }
    },
  });
}

/** Approval of destructive changes (revision 1.8, spec §20.5). */
export const approvalChecks: ConformanceCheck[] = [
  atTheProposal(
    {
      id: 'approvals.undeclared-not-sent',
      title:
        'A client that did not declare the wait `approval` never gets an output the agent’s rule marks: the proposal scenario played declaring only `question` sends none of its proposed outputs and does not wait.',
      spec: {
        section: 'approvals',
        must: 'To a client that did not declare `approval`, a server MUST NOT send an output that needs approval.',
      },
    },
    async (_context, probe, _id, proposed) => {
      const parsed = HopResponse.safeParse(proposed.body);
      if (!parsed.success) return fail(`${probe.scenario.id} hop ${probe.waitsAt} is not a HopResponse`);
      const held = proposedCalls(probe);
      const sent = parsed.data.outputs.filter((output) => held.has(output.call_id));
      if (sent.length > 0)
        return fail(`hop ${probe.waitsAt} sent ${sent.map((output) => output.type).join(', ')}, which needs approval`);
      if (parsed.data.should_continue && parsed.data.waiting)
        return fail(`hop ${probe.waitsAt} waits for a kind the client did not declare (${parsed.data.waiting.kind})`);
      return pass(`${probe.scenario.id}: hop ${probe.waitsAt} sent none of the marked outputs and did not wait`);
    },
    ['question'],
  ),
  atTheProposal(
    {
      id: 'approvals.answer-checked',
      title:
        'An approval naming a change that was not proposed gets 400 invalid_request (answer.approved.N); nothing changed: the scenario’s decision is then served.',
      spec: {
        section: 'approvals',
        must: 'A `call_id` that is not one of the changes gets 400 `invalid_request`.',
      },
    },
    async (context, probe, id, proposed) => {
      const parsed = HopResponse.safeParse(proposed.body);
      const waiting = parsed.success && parsed.data.should_continue ? parsed.data.waiting : undefined;
      if (waiting?.kind !== 'approval') return fail(`${probe.scenario.id} hop ${probe.waitsAt} proposes nothing`);
      const next = scenarioHop(probe.scenario, probe.fixtures, id, probe.waitsAt + 1);
      const stray = await context.client.postHop({
        ...next,
        answer: { kind: 'approval', call_id: waiting.call_id, approved: [`${waiting.call_id}-not-proposed`] },
      });
      const problems: string[] = [];
      if (
        stray.status !== 400 ||
        errorCodeOf(stray.body) !== 'invalid_request' ||
        errorFieldOf(stray.body) !== 'answer.approved.0'
      )
        problems.push(
          `approving a change not proposed: ${describeAnswer(stray)}, expected 400 invalid_request (answer.approved.0)`,
        );
      const scripted = scenarioAnswer(waiting, probe.scenario.hops[probe.waitsAt - 1]!.answer!);
      const right = await context.client.postHop({ ...next, answer: scripted });
      if (right.status !== 200) problems.push(`the scenario's decision after it: ${describeAnswer(right)}`);
      return problems.length === 0 ? pass('refused with 400; the decision was then served') : fail(problems.join('; '));
    },
  ),
  defineCheck({
    id: 'approvals.answer-reaches-model',
    level: 2,
    title:
      'The person’s decision becomes each proposed call’s result, worded as the spec says: the scenarios that exercise it narrate it back through {{answer}}.',
    spec: {
      section: 'approvals',
      must: 'A server MUST word them so.',
    },
    async run(context) {
      const id = 'approvals.answer-reaches-model';
      const outcomes = (await scenarioOutcomes(context)).filter(({ scenario }) => scenario.exercises.includes(id));
      if (outcomes.length === 0) return skip(`no scenario names ${id} in exercises`);
      const failing = outcomes.filter(({ run, error }) => error !== undefined || !run?.passed);
      if (failing.length === 0)
        return pass(`${outcomes.map(({ scenario }) => scenario.id).join(', ')}: the model read the decision`);
      return fail(
        failing
          .slice(0, 3)
          .map(
            ({ scenario, run, error }) =>
              `${scenario.id}: ${error ?? run?.hops.flatMap((hop) => hop.mismatches)[0] ?? 'failed'}`,
          )
          .join('; '),
      );
    },
  }),
];
