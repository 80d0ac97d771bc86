import { decidedReplies, type Fixtures, type Scenario, scenarioAnswer } from '@canvas-ai/protocol/scenario';
import { answerResult } from '@canvas-ai/protocol/server';
import { HopResponse, TurnStatusResponse, type WaitKind, type Waiting } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, skip, type CheckVerdict, type ConformanceCheck } from '../check.js';
import type { CheckContext } from '../context.js';
import { describeAnswer, errorCodeOf, errorFieldOf, type Exchange } from '../http-client.js';
import { jsonDifference } from '../json-diff.js';
import { doorProbe, newRequestId, scenarioHop } from '../requests.js';
import { scenarioOutcomes } from '../scenario-runs.js';

/** The longest wait the expiry check sits out; a server that waits longer is asked to wait less for the kit. */
const MAX_WAIT_TO_SIT_OUT_MS = 60_000;

/** A scenario whose hop `waitsAt` (1-based) waits, and the answer it sends. */
export interface WaitProbe {
  scenario: Scenario;
  fixtures: Fixtures;
  waitsAt: number;
}

/**
 * The first scenario (file order) without attachments whose turn first waits for a wait of `kind`, or why there is
 * none.
 */
export function waitProbe(context: CheckContext, kind: WaitKind = 'question'): WaitProbe | { skip: string } {
  const fixtures = context.requireFixtures();
  for (const scenario of fixtures.scenarios) {
    const index = scenario.hops.findIndex((hop) => hop.waiting !== undefined);
    if (index >= 0 && scenario.hops[index]!.waiting!.kind === kind && scenario.attachments.length === 0)
      return { scenario, fixtures, waitsAt: index + 1 };
  }
  return { skip: `no scenario without attachments waits for an answer of kind ${kind}` };
}

/** Sends the probe's hops up to the waiting one; its response and the `waiting` it carries, or the failing verdict. */
async function untilWaiting(context: CheckContext, probe: WaitProbe, id: string): Promise<Waited | CheckVerdict> {
  let last: Exchange | undefined;
  let before = '';
  for (let hop = 1; hop <= probe.waitsAt; hop += 1) {
    before = String((last?.body as { progress?: unknown } | undefined)?.progress ?? '');
    last = await context.client.postHop(scenarioHop(probe.scenario, probe.fixtures, id, hop));
    if (last.status !== 200) return fail(`${probe.scenario.id} hop ${hop} answered ${describeAnswer(last)}`);
  }
  const parsed = HopResponse.safeParse(last!.body);
  if (!parsed.success) return fail(`${probe.scenario.id} hop ${probe.waitsAt} is not a HopResponse`);
  const waiting = parsed.data.should_continue ? parsed.data.waiting : undefined;
  if (!waiting)
    return fail(`${probe.scenario.id} hop ${probe.waitsAt}, which executes the call that asks, carries no \`waiting\``);
  return { exchange: last!, response: parsed.data, waiting, before };
}

/** The probe's turn at its wait: the waiting hop's answer, and the narration of the hop before it. */
export interface Waited {
  exchange: Exchange;
  response: HopResponse;
  waiting: Waiting;
  before: string;
}

/**
 * The text of the decision the script makes once the answer came (`{{answer}}` resolved as the spec words the
 * result, spec §15, §20.2): the hop that brings the answer narrates it, or ends the turn with it.
 */
export function decisionAfterAnswer(probe: WaitProbe): string | undefined {
  const decided = decidedReplies(probe.scenario, probe.scenario.hops, () => false);
  const reply = decided.slice(probe.waitsAt).find((index) => index !== undefined);
  const asked = probe.scenario.hops[probe.waitsAt - 1];
  if (reply === undefined || !asked?.waiting || !asked.answer) return undefined;
  const result = answerResult(asked.waiting, scenarioAnswer(asked.waiting, asked.answer));
  return probe.scenario.replies[reply]!.text.replaceAll('{{answer}}', result).trim();
}

/** What a hop's answer says, narration and final message together. */
export function saidIn(body: unknown): string {
  const { progress, message } = (body ?? {}) as { progress?: unknown; message?: unknown };
  return `${String(progress ?? '')}\n${String(message ?? '')}`;
}

/** The hop after the waiting one, with the scenario's answer (or `answer` instead, or none with `null`). */
export function answerHop(probe: WaitProbe, id: string, waiting: Waiting, answer?: Record<string, unknown> | null) {
  const request = scenarioHop(probe.scenario, probe.fixtures, id, probe.waitsAt + 1);
  if (answer === null) return request;
  const scripted = probe.scenario.hops[probe.waitsAt - 1]?.answer ?? {};
  return { ...request, answer: { kind: waiting.kind, call_id: waiting.call_id, ...(answer ?? scripted) } };
}

/**
 * The verdict of a check that scenarios exercise by naming it: in each, the hop after the first wait narrates the
 * result of the answer back through {{answer}}, worded as the spec says (spec §15, §20.2, §20.3).
 */
export async function exercisedAnswersRead(context: CheckContext, id: string): Promise<CheckVerdict> {
  const outcomes = (await scenarioOutcomes(context)).filter(({ scenario }) => scenario.exercises.includes(id));
  if (outcomes.length === 0) return skip(`no scenario names ${id} in exercises`);
  const problems = outcomes.flatMap(({ scenario, run, error }) => {
    if (error) return [`${scenario.id}: ${error}`];
    const waitsAt = scenario.hops.findIndex((hop) => hop.waiting !== undefined) + 1;
    const probe = { scenario, fixtures: context.requireFixtures(), waitsAt };
    const decision = decisionAfterAnswer(probe);
    const answered = run?.hops[waitsAt];
    if (waitsAt === 0 || decision === undefined) return [`${scenario.id} waits for no answer the script reads back`];
    if (answered?.status !== 200)
      return [`${scenario.id} hop ${waitsAt + 1}, which brings the answer, answered ${answered?.status ?? 'nothing'}`];
    return saidIn(answered.body).includes(decision)
      ? []
      : [
          `${scenario.id} hop ${waitsAt + 1} does not say ${JSON.stringify(decision)}: the model did not read the answer`,
        ];
  });
  const names = outcomes.map(({ scenario }) => scenario.id).join(', ');
  return problems.length === 0 ? pass(`${names}: the model read the answer`) : fail(problems.slice(0, 3).join('; '));
}

/** A check that drives the turn of the probe of `kind` to its wait, judges it, and cancels what it left. */
export function waitCheck(
  check: Omit<ConformanceCheck, 'family' | 'run' | 'level'>,
  judge: (context: CheckContext, probe: WaitProbe, id: string, waited: Waited) => Promise<CheckVerdict>,
  kind: WaitKind = 'question',
): ConformanceCheck {
  return defineCheck({
    ...check,
    level: 2,
    async run(context) {
      const probe = waitProbe(context, kind);
      if ('skip' in probe) return skip(probe.skip);
      const id = newRequestId(check.id.replace('.', '-'));
      try {
        const waited = await untilWaiting(context, probe, id);
        return 'status' in waited ? waited : await judge(context, probe, id, waited);
      } finally {
        await context.client.cancel(id).catch(() => undefined);
      }
    },
  });
}

/** Waiting turns and questions (revision 1.7, spec §20). */
export const waitChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'waits.undeclared-not-offered',
    level: 2,
    title:
      'A turn whose client declares no wait never waits: the question scenario played without capabilities gets no `waiting`, and its hops answer 200.',
    spec: {
      section: 'waitingTurns',
      must: 'A server MUST NOT offer the model a tool that makes a turn wait for a kind the turn’s client did not declare.',
    },
    async run(context) {
      const probe = waitProbe(context);
      if ('skip' in probe) return skip(probe.skip);
      const id = newRequestId('waits-undeclared');
      try {
        for (let hop = 1; hop <= probe.waitsAt; hop += 1) {
          const request = scenarioHop(probe.scenario, probe.fixtures, id, hop, { undeclared: true });
          const sent = await context.client.postHop(request);
          if (sent.status !== 200)
            return fail(`${probe.scenario.id} hop ${hop} without capabilities answered ${describeAnswer(sent)}`);
          if ((sent.body as { waiting?: unknown }).waiting !== undefined)
            return fail(`${probe.scenario.id} hop ${hop} made a client that declared no wait wait for an answer`);
        }
        return pass(`${probe.scenario.id}: hops 1–${probe.waitsAt} without capabilities answered 200 and never waited`);
      } finally {
        await context.client.cancel(id).catch(() => undefined);
      }
    },
  }),
  waitCheck(
    {
      id: 'waits.waiting-hop',
      title:
        'The hop that executes a question answers with `waiting` (should_continue true, its narration unchanged) and calls no model: the next decision comes with the answer.',
      spec: {
        section: 'waitingTurns',
        must: 'A hop that executed such a call MUST NOT call the model.',
      },
    },
    async (context, probe, id, { response, waiting, before }) => {
      const problems: string[] = [];
      if (response.progress !== before)
        problems.push(
          `the waiting hop's progress is ${JSON.stringify(response.progress)}, the hop before it had ${JSON.stringify(before)}: it added model text`,
        );
      if (Number.isNaN(Date.parse(waiting.expires_at))) problems.push('`expires_at` is not a date-time');
      const next = await context.client.postHop(answerHop(probe, id, waiting));
      const decision = decisionAfterAnswer(probe);
      if (next.status !== 200) problems.push(`the answer hop answered ${describeAnswer(next)}`);
      else if (decision !== undefined && !saidIn(next.body).includes(decision))
        problems.push(
          `the answer hop does not say ${JSON.stringify(decision)}: the script's next decision was not the one made after the answer`,
        );
      return problems.length === 0
        ? pass(
            `${probe.scenario.id}: hop ${probe.waitsAt} waited without a decision; the next one came with the answer`,
          )
        : fail(problems.join('; '));
    },
  ),
  defineCheck({
    id: 'waits.answer-reaches-model',
    level: 2,
    title:
      'The answer (or the dismissal) becomes the question’s result, worded as the spec says: the scenarios that exercise it narrate it back through {{answer}}.',
    spec: {
      section: 'questions',
      must: 'The result of the call is one line, which a server MUST word exactly so.',
    },
    run: (context) => exercisedAnswersRead(context, 'waits.answer-reaches-model'),
  }),
  waitCheck(
    {
      id: 'waits.status',
      title:
        'The status of a waiting turn is active at the waiting hop with the same `waiting`; a repeat of the waiting hop gets its response again.',
      spec: {
        section: 'waitingTurns',
        must: 'The status of a waiting turn is active, at the waiting hop, and MUST carry the same `waiting` as that hop’s response.',
      },
    },
    async (context, probe, id, { exchange, waiting }) => {
      const answer = await context.client.status(id);
      const parsed = TurnStatusResponse.safeParse(answer.body);
      if (answer.status !== 200 || !parsed.success)
        return fail(`the status of the waiting turn answered ${describeAnswer(answer)}`);
      const status = parsed.data;
      if (status.state !== 'active') return fail(`the waiting turn's status is ${status.state}, expected active`);
      if (status.hop !== probe.waitsAt)
        return fail(`the status names hop ${status.hop}, the turn waits at hop ${probe.waitsAt}`);
      const difference = jsonDifference(waiting, status.waiting);
      if (difference) return fail(`the status's \`waiting\` is not the waiting hop's: ${difference}`);
      const repeat = await context.client.postHop(scenarioHop(probe.scenario, probe.fixtures, id, probe.waitsAt));
      const replayed = jsonDifference(exchange.body, repeat.body);
      if (repeat.status !== 200 || replayed)
        return fail(`the waiting hop sent again got ${describeAnswer(repeat)}${replayed ? `: ${replayed}` : ''}`);
      return pass(`active at hop ${status.hop} with the same question; the repeat got the same response`);
    },
  ),
  waitCheck(
    {
      id: 'waits.answer-checked',
      title:
        'The hop after a waiting one without `answer` gets 400 missing_field, one answering another call 400 invalid_request (answer.call_id); nothing changed: the right answer is then served.',
      spec: {
        section: 'waitingTurns',
        must: 'A server MUST refuse with 400, changing nothing, the next hop of a waiting turn that carries no `answer`.',
      },
    },
    async (context, probe, id, { waiting }) => {
      const problems: string[] = [];
      const missing = await context.client.postHop(answerHop(probe, id, waiting, null));
      if (
        missing.status !== 400 ||
        errorCodeOf(missing.body) !== 'missing_field' ||
        errorFieldOf(missing.body) !== 'answer'
      )
        problems.push(`without \`answer\`: ${describeAnswer(missing)}, expected 400 missing_field (answer)`);
      const scripted = probe.scenario.hops[probe.waitsAt - 1]?.answer ?? {};
      const other = await context.client.postHop({
        ...answerHop(probe, id, waiting),
        answer: { ...scripted, kind: waiting.kind, call_id: `${waiting.call_id}-other` },
      });
      if (other.status !== 400 || errorFieldOf(other.body) !== 'answer.call_id')
        problems.push(
          `answering another call: ${describeAnswer(other)}, expected 400 invalid_request (answer.call_id)`,
        );
      const right = await context.client.postHop(answerHop(probe, id, waiting));
      if (right.status !== 200) problems.push(`the right answer after them: ${describeAnswer(right)}`);
      return problems.length === 0
        ? pass('both refused with 400; the right answer was then served')
        : fail(problems.join('; '));
    },
  ),
  defineCheck({
    id: 'waits.stray-answer',
    level: 1,
    title: 'A hop 1 that carries `answer` (its turn waits for nothing) gets 400 invalid_request with field answer.',
    spec: {
      section: 'waitingTurns',
      must: 'A hop of a turn that waits for nothing that carries an `answer` MUST get 400 `invalid_request` with `field: "answer"`.',
    },
    async run(context) {
      const probe = doorProbe('waits-stray', { answer: { kind: 'question', call_id: 'call_1', choices: [0] } });
      delete probe.agent;
      const sent = await context.client.postHop(probe);
      try {
        if (sent.status === 400 && errorCodeOf(sent.body) === 'invalid_request' && errorFieldOf(sent.body) === 'answer')
          return pass(`answered ${describeAnswer(sent)}`);
        return fail(`expected 400 invalid_request (answer), got ${describeAnswer(sent)}`);
      } finally {
        await context.client.cancel(String(probe.request_id)).catch(() => undefined);
      }
    },
  }),
  waitCheck(
    {
      id: 'waits.cancel',
      title: 'A waiting turn is cancelled like any other: DELETE answers cancelled true, and the answer then gets 410.',
      spec: {
        section: 'waitingTurns',
        must: '`DELETE /api/hop/{request_id}` MUST cancel a waiting turn as any other.',
      },
    },
    async (context, probe, id, { waiting }) => {
      const cancelled = await context.client.cancel(id);
      if (cancelled.status !== 200 || (cancelled.body as { cancelled?: unknown }).cancelled !== true)
        return fail(`the cancel of the waiting turn answered ${describeAnswer(cancelled)}, expected cancelled: true`);
      const late = await context.client.postHop(answerHop(probe, id, waiting));
      if (late.status !== 410 || errorCodeOf(late.body) !== 'turn_not_found')
        return fail(`the answer after the cancel got ${describeAnswer(late)}, expected 410 turn_not_found`);
      return pass('cancelled: true, and the answer then got 410 turn_not_found');
    },
  ),
  waitCheck(
    {
      id: 'waits.expiry',
      title:
        'Once `expires_at` has passed, the answer gets 410 wait_expired (sat out when the server waits at most 60 s; the reference server: --wait-ttl).',
      spec: {
        section: 'waitingTurns',
        must: 'Once it has passed, the turn is over: a server MUST NOT run the turn on, and answers its next hop with 410 `wait_expired`.',
      },
    },
    async (context, probe, id, { exchange, waiting }) => {
      // Measured against the server's own clock (its Date header, to the second), not the kit's.
      const serverNow = Date.parse(exchange.headers.get('date') ?? '') || Date.now();
      const waitMs = Date.parse(waiting.expires_at) - serverNow;
      if (!(waitMs <= MAX_WAIT_TO_SIT_OUT_MS))
        return skip(
          `the server waits ${Math.round(waitMs / 1000)} s for an answer; start it with a wait of at most ${MAX_WAIT_TO_SIT_OUT_MS / 1000} s to check expiry`,
        );
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, waitMs) + 1_500));
      const late = await context.client.postHop(answerHop(probe, id, waiting));
      if (late.status !== 410 || errorCodeOf(late.body) !== 'wait_expired')
        return fail(`the answer after expires_at got ${describeAnswer(late)}, expected 410 wait_expired`);
      return pass(`the answer ${Math.round(waitMs / 1000) + 1} s later got 410 wait_expired`);
    },
  ),
];
