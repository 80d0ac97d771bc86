import { CancelResponse } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, skip, type ConformanceCheck } from '../check.js';
import { describeAnswer, errorCodeOf, errorFieldOf, type Exchange } from '../http-client.js';
import { newRequestId, scenarioHop } from '../requests.js';
import { jsonDifference } from '../json-diff.js';
import { firstDelayMs, multiHopScenario, slowFirstHopScenario } from './turn-probes.js';

/** The longest wait between two cancels sent while a hop runs: several land inside a slow decision. */
const CANCEL_RETRY_MAX_MS = 100;

/** Cancel (spec §8.5): idempotent, scoped, and a cancelled turn is gone. */
export const cancelChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'cancel.unknown-id-idempotent',
    level: 1,
    title: 'Cancelling a turn id the server never saw, twice, answers 200 with cancelled false both times.',
    spec: {
      section: 'cancel',
      must: 'Cancel is idempotent: `cancelled` is false when there was nothing to cancel (unknown, finished, or already cancelled).',
    },
    async run(context) {
      const id = newRequestId('cancel');
      for (const attempt of ['first', 'second']) {
        const problem = cancelProblem(await context.client.cancel(id), id, false);
        if (problem) return fail(`${attempt} cancel: ${problem}`);
      }
      return pass('both cancels answered 200 with cancelled false');
    },
  }),
  defineCheck({
    id: 'cancel.invalid-id-400',
    level: 1,
    title: 'Cancelling a request_id of 129 characters (over the limit) gets 400 invalid_request naming request_id.',
    spec: {
      section: 'cancel',
      must: 'An invalid request_id in the path gets 400 invalid_request with field "request_id".',
    },
    async run(context) {
      const sent = await context.client.cancel('a'.repeat(129));
      if (
        sent.status === 400 &&
        errorCodeOf(sent.body) === 'invalid_request' &&
        errorFieldOf(sent.body) === 'request_id'
      )
        return pass(`answered ${describeAnswer(sent)}`);
      return fail(`expected 400 invalid_request (field request_id), got ${describeAnswer(sent)}`);
    },
  }),
  defineCheck({
    id: 'cancel.running-turn',
    level: 2,
    title:
      'Cancelling a turn between hops answers cancelled true; its next hop gets 410; cancelling again answers cancelled false.',
    spec: {
      section: 'cancel',
      must: "Cancel drops the turn's state and its parked calls MUST NOT execute; a later hop of a cancelled turn gets 410 turn_not_found.",
    },
    async run(context) {
      const fixtures = context.requireFixtures();
      const scenario = multiHopScenario(fixtures.scenarios);
      if (!scenario) return skip('no scenario without attachments has two hops or more');
      const id = newRequestId('cancel-running');
      const hop1 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 1));
      if (hop1.status !== 200) return fail(`${scenario.id} hop 1 answered ${describeAnswer(hop1)}`);
      const first = cancelProblem(await context.client.cancel(id), id, true);
      if (first) return fail(`cancelling the running turn: ${first}`);
      const hop2 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 2));
      if (hop2.status !== 410 || errorCodeOf(hop2.body) !== 'turn_not_found') {
        return fail(`hop 2 of the cancelled turn answered ${describeAnswer(hop2)}, expected 410 turn_not_found`);
      }
      const again = cancelProblem(await context.client.cancel(id), id, false);
      if (again) return fail(`cancelling it again: ${again}`);
      return pass(`${scenario.id}: cancelled true, then hop 2 got 410, then cancelled false`);
    },
  }),
  defineCheck({
    id: 'cancel.restart-410',
    level: 2,
    title: 'Hop 1 of a cancelled turn, sent again, gets 410 turn_not_found: a cancelled turn does not start over.',
    spec: {
      section: 'turnState',
      must: 'If there is no turn and hop is not 1, or the turn was cancelled, answer 410 turn_not_found.',
    },
    async run(context) {
      const fixtures = context.requireFixtures();
      const scenario = multiHopScenario(fixtures.scenarios);
      if (!scenario) return skip('no scenario without attachments has two hops or more');
      const id = newRequestId('cancel-restart');
      const hop1 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 1));
      if (hop1.status !== 200) return fail(`${scenario.id} hop 1 answered ${describeAnswer(hop1)}`);
      const cancelled = cancelProblem(await context.client.cancel(id), id, true);
      if (cancelled) return fail(`cancelling the running turn: ${cancelled}`);
      const again = await context.client.postHop(scenarioHop(scenario, fixtures, id, 1));
      if (again.status === 410 && errorCodeOf(again.body) === 'turn_not_found')
        return pass(`${scenario.id}: hop 1 sent again after the cancel got 410 turn_not_found`);
      await context.client.cancel(id).catch(() => undefined);
      return fail(
        `hop 1 of the cancelled turn, sent again, answered ${describeAnswer(again)}, expected 410 turn_not_found: the cancelled turn started over`,
      );
    },
  }),
  defineCheck({
    id: 'cancel.during-hop',
    level: 2,
    title:
      'A cancel that lands while hop 1 waits for a slow decision wins: that hop answers 410 with progress "", and hop 2 gets 410.',
    spec: {
      section: 'cancel',
      must: 'The hop in flight MUST NOT deliver its result: it answers 410 turn_not_found (with progress ""), nothing of it is stored; the cancel answers cancelled: true.',
    },
    async run(context) {
      const fixtures = context.requireFixtures();
      const scenario = slowFirstHopScenario(fixtures.scenarios);
      if (!scenario) return skip('no scenario without attachments has two hops and a first reply with delay_ms');
      const delayMs = firstDelayMs(scenario);
      const id = newRequestId('cancel-during');
      await context.client.csrfHeaders(); // fetched first, so the cancels leave right behind the hop
      let settled = false;
      const sentAt = performance.now();
      let answeredAt = sentAt;
      const running = context.client.postHop(scenarioHop(scenario, fixtures, id, 1)).finally(() => {
        settled = true;
        answeredAt = performance.now();
      });
      // Cancels, backing off a little, until one finds the turn or the hop has answered: a cancel that arrives before
      // the hop began finds nothing and leaves nothing. The scripted decision takes delayMs, so one lands meanwhile.
      let landedAt: number | undefined;
      for (let wait = 10; !settled; wait = Math.min(wait * 2, CANCEL_RETRY_MAX_MS)) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        if (settled) break;
        const sent = await context.client.cancel(id);
        if (sent.status !== 200) return fail(`a cancel while hop 1 ran answered ${describeAnswer(sent)}`);
        if ((sent.body as { cancelled?: unknown }).cancelled === true) {
          landedAt = performance.now();
          break;
        }
      }
      const hop1 = await running;
      if (landedAt === undefined) {
        if (hop1.status === 200 && answeredAt - sentAt < delayMs)
          return fail(
            `${scenario.id} hop 1 answered in ${Math.round(answeredAt - sentAt)} ms, before its first reply's delay_ms of ${delayMs}: scripted mode must wait for it (spec/conformance.md §3), or no cancel can land while the hop runs`,
          );
        const problem = cancelProblem(await context.client.cancel(id), id, true);
        if (problem) return fail(`cancelling the turn after hop 1 answered ${describeAnswer(hop1)}: ${problem}`);
      }
      const hop2 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 2));
      if (hop2.status !== 410 || errorCodeOf(hop2.body) !== 'turn_not_found')
        return fail(
          `hop 2 after the cancel answered ${describeAnswer(hop2)}, expected 410 turn_not_found: the cancelled turn was kept`,
        );
      if (landedAt === undefined)
        return pass(
          'hop 1 answered before a cancel reached it (a slow server); the cancel then ended the turn: hop 2 got 410',
        );
      if (hop1.status === 200) {
        // The decision cannot have returned before delayMs after the hop was sent: a cancel answered sooner took
        // effect while the hop ran, and the 200 is the result it must not deliver.
        if (landedAt - sentAt < delayMs)
          return fail(
            `the cancel landed ${Math.round(landedAt - sentAt)} ms after hop 1 was sent, while its ${delayMs} ms decision ran, yet hop 1 then answered 200 with its result: the hop in flight delivered it`,
          );
        return pass('hop 1 had finished when the cancel took effect (200 on its way); hop 2 then got 410');
      }
      const progress = (hop1.body as { progress?: unknown }).progress;
      if (hop1.status !== 410 || errorCodeOf(hop1.body) !== 'turn_not_found')
        return fail(`hop 1, cancelled while it ran, answered ${describeAnswer(hop1)}, expected 410 turn_not_found`);
      if (progress !== '')
        return fail(`hop 1, cancelled while it ran, carried progress ${JSON.stringify(progress)}, expected ""`);
      return pass(
        `the cancel landed ${Math.round(landedAt - sentAt)} ms into hop 1's ${delayMs} ms decision: hop 1 got 410 with progress "", and hop 2 got 410`,
      );
    },
  }),
  defineCheck({
    id: 'cancel.finished-turn-stays',
    level: 2,
    title:
      'Cancelling a turn that has ended answers cancelled false, and its last hop sent again still gets its response.',
    spec: {
      section: 'whatIsLeft',
      must: 'Cancelling a finished turn answers `cancelled: false` and MUST leave it replayable.',
    },
    async run(context) {
      const fixtures = context.requireFixtures();
      const scenario = fixtures.scenarios.find(
        (candidate) => candidate.attachments.length === 0 && candidate.hops.length === 1,
      );
      if (!scenario) return skip('no scenario without attachments ends in one hop');
      const id = newRequestId('cancel-finished');
      const request = scenarioHop(scenario, fixtures, id, 1);
      const final = await context.client.postHop(request);
      if (final.status !== 200) return fail(`${scenario.id} hop 1 answered ${describeAnswer(final)}`);
      const problem = cancelProblem(await context.client.cancel(id), id, false);
      if (problem) return fail(`cancelling the ended turn: ${problem}`);
      const again = await context.client.postHop(request);
      if (again.status !== 200)
        return fail(`its last hop sent again then answered ${describeAnswer(again)}, expected its response`);
      const difference = jsonDifference(final.body, again.body);
      return difference
        ? fail(`its last hop sent again answered differently: ${difference}`)
        : pass(`${scenario.id}: cancelled false, then the final hop replayed identically`);
    },
  }),
];

function cancelProblem(sent: Exchange, requestId: string, cancelled: boolean): string | undefined {
  if (sent.status !== 200) return `answered ${describeAnswer(sent)}`;
  const parsed = CancelResponse.safeParse(sent.body);
  if (!parsed.success) return 'the body is not a CancelResponse';
  if (parsed.data.request_id !== requestId) return `it names request_id "${parsed.data.request_id}"`;
  if (parsed.data.cancelled !== cancelled) return `cancelled is ${parsed.data.cancelled}, expected ${cancelled}`;
  return undefined;
}
