import { defineCheck, fail, pass, skip, type ConformanceCheck } from '../check.js';
import { describeAnswer, errorCodeOf, errorFieldOf } from '../http-client.js';
import { newRequestId, scenarioHop } from '../requests.js';
import { answerHop, decisionAfterAnswer, exercisedAnswersRead, saidIn, waitCheck, waitProbe } from './waits.js';

/** Plans (revision 1.8, spec §20.4): the machinery of spec §20.1 with the wait kind `plan`. */
export const planWaitChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'waits.plan-undeclared-not-offered',
    level: 2,
    title:
      'A turn whose client declares the wait `question` but not `plan` (a 1.7 client) never waits for a plan: the plan scenario played so gets no `waiting`, and its hops answer 200.',
    spec: {
      section: 'waitingTurns',
      must: 'A server MUST NOT offer the model a tool that makes a turn wait for a kind the turn’s client did not declare.',
    },
    async run(context) {
      const probe = waitProbe(context, 'plan');
      if ('skip' in probe) return skip(probe.skip);
      const id = newRequestId('waits-plan-undeclared');
      try {
        for (let hop = 1; hop <= probe.waitsAt; hop += 1) {
          const request = scenarioHop(probe.scenario, probe.fixtures, id, hop);
          if (hop === 1) request.capabilities = { waits: ['question'] };
          const sent = await context.client.postHop(request);
          if (sent.status !== 200)
            return fail(`${probe.scenario.id} hop ${hop} declaring only questions answered ${describeAnswer(sent)}`);
          if ((sent.body as { waiting?: unknown }).waiting !== undefined)
            return fail(`${probe.scenario.id} hop ${hop} made a client that declared no plans wait for one`);
        }
        return pass(`${probe.scenario.id}: hops 1–${probe.waitsAt} declaring only questions never waited`);
      } finally {
        await context.client.cancel(id).catch(() => undefined);
      }
    },
  }),
  waitCheck(
    {
      id: 'waits.plan-waiting-hop',
      title:
        'The hop that executes propose_plan answers with `waiting.plan` (its narration unchanged) and calls no model: the next decision comes with the decision on the plan.',
      spec: { section: 'waitingTurns', must: 'A hop that executed such a call MUST NOT call the model.' },
    },
    async (context, probe, id, { response, waiting, before }) => {
      const problems: string[] = [];
      if (waiting.kind !== 'plan') problems.push(`the waiting hop waits for a ${waiting.kind}, not a plan`);
      if (response.progress !== before) problems.push('the waiting hop added model text to its progress');
      const next = await context.client.postHop(answerHop(probe, id, waiting));
      const decision = decisionAfterAnswer(probe);
      if (next.status !== 200) problems.push(`the decision hop answered ${describeAnswer(next)}`);
      else if (decision !== undefined && !saidIn(next.body).includes(decision))
        problems.push(
          `the decision hop does not say ${JSON.stringify(decision)}: the script's next decision was not made after it`,
        );
      return problems.length === 0
        ? pass(`${probe.scenario.id}: hop ${probe.waitsAt} waited for the plan without a decision`)
        : fail(problems.join('; '));
    },
    'plan',
  ),
  defineCheck({
    id: 'waits.plan-feedback-reaches-model',
    level: 2,
    title:
      'The decision on a plan becomes the plan’s result, worded as the spec says, the feedback of a revision included: the scenarios that exercise it narrate it back through {{answer}}.',
    spec: { section: 'plans', must: 'The result of the call is one line, which a server MUST word exactly so.' },
    run: (context) => exercisedAnswersRead(context, 'waits.plan-feedback-reaches-model'),
  }),
  waitCheck(
    {
      id: 'waits.plan-answer-checked',
      title:
        'A revision without feedback, an approval with feedback and a question’s answer to a plan get 400 invalid_request (answer.feedback, answer.feedback, answer.kind); nothing changed: the right decision is then served.',
      spec: {
        section: 'plans',
        must: 'A server MUST refuse (400 `invalid_request`, `field: "answer.feedback"`) a `revise` whose `feedback` is missing or blank, and an `approve` with a non-blank `feedback`.',
      },
    },
    async (context, probe, id, { waiting }) => {
      const wrong: Array<[Record<string, unknown>, string]> = [
        [{ decision: 'revise', feedback: '  ' }, 'answer.feedback'],
        [{ decision: 'approve', feedback: 'looks good' }, 'answer.feedback'],
      ];
      const problems: string[] = [];
      for (const [answer, field] of wrong) {
        const sent = await context.client.postHop(answerHop(probe, id, waiting, answer));
        if (sent.status !== 400 || errorCodeOf(sent.body) !== 'invalid_request' || errorFieldOf(sent.body) !== field)
          problems.push(`${JSON.stringify(answer)}: ${describeAnswer(sent)}, expected 400 invalid_request (${field})`);
      }
      const question = await context.client.postHop({
        ...answerHop(probe, id, waiting),
        answer: { kind: 'question', call_id: waiting.call_id, choices: [0] },
      });
      if (question.status !== 400 || errorFieldOf(question.body) !== 'answer.kind')
        problems.push(`a question's answer: ${describeAnswer(question)}, expected 400 invalid_request (answer.kind)`);
      const right = await context.client.postHop(answerHop(probe, id, waiting));
      if (right.status !== 200) problems.push(`the right decision after them: ${describeAnswer(right)}`);
      return problems.length === 0
        ? pass('the three refused with 400; the right decision was then served')
        : fail(problems.join('; '));
    },
    'plan',
  ),
];
