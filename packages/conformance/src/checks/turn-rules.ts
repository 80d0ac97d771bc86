import { HopResponse } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, skip, type CheckVerdict, type ConformanceCheck } from '../check.js';
import type { CheckContext } from '../context.js';
import { describeAnswer, errorCodeOf, type Exchange } from '../http-client.js';
import { jsonDifference } from '../json-diff.js';
import { EMPTY_DOCUMENT, newRequestId, promptHop, scenarioHop } from '../requests.js';
import {
  isQuick,
  agentScenario,
  earlierHopProbe,
  failureProbe,
  firstHopRefused,
  multiHopScenario,
  secondSessionTurn,
} from './turn-probes.js';

/** The turn rules of spec §8: unknown and ended turns, concurrent and out-of-order hops, sessions, failed turns. */
export const turnRuleChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'turn-rules.unknown-turn-410',
    level: 1,
    title: 'Hop 2 of a turn the server never saw gets 410 turn_not_found.',
    spec: { section: 'unknownTurns', must: 'A hop ≥ 2 whose turn the server does not hold gets 410 turn_not_found.' },
    async run(context) {
      return expectCode(
        await context.client.postHop(promptHop(newRequestId('unknown'), 2, context.prompt)),
        410,
        'turn_not_found',
      );
    },
  }),
  defineCheck({
    id: 'turn-rules.ended-turn-410',
    level: 1,
    title: 'The hop after the last hop of an ended turn gets 410 turn_not_found.',
    spec: {
      section: 'turnState',
      must: 'If the turn has ended and hop is past its last hop, answer 410 turn_not_found.',
    },
    async run(context) {
      const turn = await context.promptTurn();
      if (turn.problem) return fail(`the prompt turn did not end: ${turn.problem}`);
      const after = turn.hops.length + 1;
      return expectCode(
        await context.client.postHop(promptHop(turn.requestId, after, context.prompt, EMPTY_DOCUMENT)),
        410,
        'turn_not_found',
      );
    },
  }),
  defineCheck({
    id: 'turn-rules.concurrent-hop-409',
    level: 1,
    title:
      'Copies of one hop sent at once get 409 hop_in_progress while it runs, or its stored response after: it executes once.',
    spec: {
      section: 'concurrent',
      must: 'A hop of a turn whose previous hop is still executing gets 409 hop_in_progress and changes nothing (a per-turn lock).',
    },
    run: concurrentHops,
  }),
  defineCheck({
    id: 'turn-rules.concurrent-later-hop',
    level: 2,
    title:
      'Copies of a hop that executes a placement, sent at once, get one response (the same uuids) or 409: it executes once.',
    spec: {
      section: 'concurrent',
      must: 'A hop of a turn whose previous hop is still executing gets 409 hop_in_progress and changes nothing (a per-turn lock held from the first rule to the last).',
    },
    async run(context) {
      const fixtures = context.requireFixtures();
      const scenario = fixtures.scenarios.find(
        (candidate) =>
          isQuick(candidate) &&
          candidate.attachments.length === 0 &&
          candidate.hops.length >= 3 &&
          candidate.hops[1]!.outputs.some((output) => output.type === 'place_components'),
      );
      if (!scenario) return skip('no scenario without attachments places a component in hop 2');
      const id = newRequestId('concurrent-later');
      const hop1 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 1));
      if (hop1.status !== 200) return fail(`${scenario.id} hop 1 answered ${describeAnswer(hop1)}`);
      const request = scenarioHop(scenario, fixtures, id, 2);
      const answers = await Promise.all(Array.from({ length: context.burst }, () => context.client.postHop(request)));
      await context.client.cancel(id).catch(() => undefined);
      return judgeBurst(context.burst, answers, `${scenario.id} hop 2`);
    },
  }),
  defineCheck({
    id: 'turn-rules.out-of-order-409',
    level: 2,
    title: 'Hop 3 right after hop 1 gets 409 hop_out_of_order, and hop 2 is then served: the refusal changed nothing.',
    spec: {
      section: 'outOfOrder',
      must: 'A hop that is neither the next one nor a repeat of the latest one gets 409 hop_out_of_order; a request refused at the door MUST change nothing.',
    },
    async run(context) {
      const fixtures = context.requireFixtures();
      const scenario = multiHopScenario(fixtures.scenarios);
      if (!scenario) return skip('no scenario without attachments has two hops or more');
      const id = newRequestId('order');
      const hop1 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 1));
      if (hop1.status !== 200) return fail(`${scenario.id} hop 1 answered ${describeAnswer(hop1)}`);
      const skipped = await context.client.postHop(scenarioHop(scenario, fixtures, id, 3));
      const hop2 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 2));
      await context.client.cancel(id);
      if (skipped.status !== 409 || errorCodeOf(skipped.body) !== 'hop_out_of_order') {
        return fail(`hop 3 after hop 1 answered ${describeAnswer(skipped)}, expected 409 hop_out_of_order`);
      }
      if (hop2.status !== 200)
        return fail(`hop 2 after the refused hop 3 answered ${describeAnswer(hop2)}: the refusal changed the turn`);
      return pass(`${scenario.id}: hop 3 got 409 hop_out_of_order, then hop 2 got 200`);
    },
  }),
  defineCheck({
    id: 'turn-rules.agent-changed-409',
    level: 2,
    title:
      "Hop 2 naming another agent than hop 1 gets 409 agent_changed, and hop 2 with the turn's agent is then served.",
    spec: {
      section: 'turnState',
      must: "If the request's agent (absent = the main agent) is not the turn's agent, answer 409 agent_changed (rule 3); a request refused at the door MUST change nothing.",
    },
    async run(context) {
      const fixtures = context.requireFixtures();
      const scenario = agentScenario(
        fixtures.scenarios.filter((candidate) => candidate.agent !== fixtures.agents.main_agent),
      );
      if (!scenario) return skip('no scenario without attachments has two hops and an agent other than the main one');
      const id = newRequestId('agent');
      const hop1 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 1));
      if (hop1.status !== 200) return fail(`${scenario.id} hop 1 answered ${describeAnswer(hop1)}`);
      const { agent: _, ...withoutAgent } = scenarioHop(scenario, fixtures, id, 2);
      const changed = await context.client.postHop(withoutAgent);
      const hop2 = await context.client.postHop(scenarioHop(scenario, fixtures, id, 2));
      await context.client.cancel(id).catch(() => undefined);
      if (changed.status !== 409 || errorCodeOf(changed.body) !== 'agent_changed')
        return fail(
          `hop 2 naming the main agent in a turn of ${scenario.agent} answered ${describeAnswer(changed)}, expected 409 agent_changed`,
        );
      if (hop2.status !== 200)
        return fail(`hop 2 with the turn's agent then answered ${describeAnswer(hop2)}: the refusal changed the turn`);
      return pass(`${scenario.id}: the main agent on hop 2 got 409 agent_changed, then ${scenario.agent} got 200`);
    },
  }),
  defineCheck({
    id: 'turn-rules.earlier-hop-409',
    level: 2,
    title:
      'Hop 1 sent again after hop 2 gets 409 hop_out_of_order (only the latest hop is replayable), and hop 3 is then served.',
    spec: {
      section: 'replay',
      must: "Only the turn's latest hop is replayable; an earlier hop gets 409 hop_out_of_order, and changes nothing.",
    },
    async run(context) {
      const probe = await earlierHopProbe(context);
      if ('skip' in probe) return skip(probe.skip);
      if ('problem' in probe) return fail(probe.problem);
      if (probe.earlier.status !== 409 || errorCodeOf(probe.earlier.body) !== 'hop_out_of_order')
        return fail(
          `${probe.scenario}: hop 1 sent again after hop 2 answered ${describeAnswer(probe.earlier)}, expected 409 hop_out_of_order`,
        );
      if (probe.next.status !== 200)
        return fail(
          `${probe.scenario}: hop 3 then answered ${describeAnswer(probe.next)}: the refusal changed the turn`,
        );
      return pass(`${probe.scenario}: hop 1 after hop 2 got 409 hop_out_of_order, then hop 3 got 200`);
    },
  }),
  defineCheck({
    id: 'turn-rules.refusal-carries-no-narration',
    level: 2,
    title: 'A refusal by the turn rules carries progress "", even when the turn it names has narration.',
    spec: {
      section: 'errors',
      must: 'A server MUST send `progress: ""` on every error except a failure while the hop executes, even when the request names a live turn that has some.',
    },
    async run(context) {
      const probe = await earlierHopProbe(context);
      if ('skip' in probe) return skip(probe.skip);
      if ('problem' in probe) return fail(probe.problem);
      if (probe.earlier.status < 400)
        return fail(`${probe.scenario}: hop 1 sent again was not refused (${describeAnswer(probe.earlier)})`);
      const progress = (probe.earlier.body as { progress?: unknown }).progress;
      return progress === ''
        ? pass(
            `${probe.scenario}: the ${describeAnswer(probe.earlier)} refusal carried progress "" (the turn had narration)`,
          )
        : fail(
            `${probe.scenario}: the ${describeAnswer(probe.earlier)} refusal carried progress ${JSON.stringify(progress)}, expected ""`,
          );
    },
  }),
  defineCheck({
    id: 'turn-rules.other-session-410',
    level: 2,
    title: "Hop 2 of a turn sent from another session gets 410 turn_not_found, and the turn's own session carries on.",
    spec: {
      section: 'csrf',
      must: 'Every key the server stores a turn under MUST include the session: a request_id of another session is, for this session, a turn that does not exist.',
    },
    async run(context) {
      const turn = secondSessionTurn(context, 'session');
      if ('skip' in turn) return skip(turn.skip);
      const refused = await firstHopRefused(context, turn);
      if (refused) return refused;
      const { scenario, fixtures, id } = turn;
      const stranger = await context.client.fork().postHop(scenarioHop(scenario, fixtures, id, 2));
      const own = await context.client.postHop(scenarioHop(scenario, fixtures, id, 2));
      await context.client.cancel(id);
      if (stranger.status !== 410 || errorCodeOf(stranger.body) !== 'turn_not_found') {
        return fail(`hop 2 from another session answered ${describeAnswer(stranger)}, expected 410 turn_not_found`);
      }
      if (own.status !== 200) return fail(`hop 2 from the turn's own session then answered ${describeAnswer(own)}`);
      return pass('the other session got 410 turn_not_found, the own session 200');
    },
  }),
  defineCheck({
    id: 'turn-rules.failed-turn-gone',
    level: 2,
    title:
      'After a hop fails while it executes (5xx), the same hop sent again gets 410 turn_not_found: the state was deleted.',
    spec: {
      section: 'errors',
      must: "A failure while the hop executes (provider_error, internal_error) MUST delete the turn's state; a later hop of that turn gets 410 turn_not_found.",
    },
    async run(context) {
      const probe = await failureProbe(context);
      if ('skip' in probe) return skip(probe.skip);
      if ('problem' in probe) return fail(probe.problem);
      const { retry, failedHop, scenario } = probe;
      if (retry.status === 410 && errorCodeOf(retry.body) === 'turn_not_found') {
        return pass(
          `${scenario} hop ${failedHop} failed with ${describeAnswer(probe.failure)}; sent again it got 410 turn_not_found`,
        );
      }
      return fail(
        `${scenario} hop ${failedHop} failed with ${describeAnswer(probe.failure)}, but sent again it answered ${describeAnswer(retry)}: the failed turn was kept`,
      );
    },
  }),
  defineCheck({
    id: 'turn-rules.failed-hop-keeps-narration',
    level: 2,
    title: "The error body of a hop that fails while it executes carries the turn's narration so far.",
    spec: {
      section: 'errors',
      must: 'A failure while the hop executes … The error body then carries the narration produced so far (`progress`, which a client keeps showing).',
    },
    async run(context) {
      const probe = await failureProbe(context);
      if ('skip' in probe) return skip(probe.skip);
      if ('problem' in probe) return fail(probe.problem);
      const progress = (probe.failure.body as { progress?: unknown }).progress;
      if (progress === probe.progressBefore)
        return pass(
          `the error body's progress is the narration of ${probe.failedHop === 2 ? 'hop 1' : `hops 1–${probe.failedHop - 1}`}`,
        );
      return fail(
        `the error body's progress is ${JSON.stringify(progress)}, expected the narration so far ${JSON.stringify(probe.progressBefore)}`,
      );
    },
  }),
];

async function concurrentHops(context: CheckContext): Promise<CheckVerdict> {
  const id = newRequestId('concurrent');
  const request = promptHop(id, 1, context.prompt);
  await context.client.csrfHeaders(); // fetched before the burst, so the copies leave together
  const answers = await Promise.all(Array.from({ length: context.burst }, () => context.client.postHop(request)));
  await context.client.cancel(id).catch(() => undefined);
  return judgeBurst(context.burst, answers, 'hop 1');
}

/** Copies of one hop sent at once: each answered 200 or 409 hop_in_progress, every 200 the same response. */
function judgeBurst(burst: number, answers: readonly Exchange[], what: string): CheckVerdict {
  const served = answers.filter((answer) => answer.status === 200);
  const busy = answers.filter((answer) => answer.status === 409 && errorCodeOf(answer.body) === 'hop_in_progress');
  const other = answers.filter((answer) => !served.includes(answer) && !busy.includes(answer));
  if (other.length > 0)
    return fail(
      `${burst} copies of ${what} at once: one answered ${describeAnswer(other[0]!)}; expected 200 or 409 hop_in_progress`,
    );
  if (served.length === 0) return fail(`all ${burst} copies of ${what} got 409: none was served`);
  // Since revision 1.4 a 409 hop_in_progress says when to try again (spec §8.3).
  const noRetryAfter = busy.find((answer) => !/^\d+$/.test(answer.headers.get('retry-after')?.trim() ?? ''));
  if (noRetryAfter)
    return fail(
      `a copy of ${what} got 409 hop_in_progress with Retry-After ${JSON.stringify(noRetryAfter.headers.get('retry-after'))}; expected a number of seconds`,
    );
  for (const answer of served.slice(1)) {
    const difference = jsonDifference(served[0]!.body, answer.body);
    if (difference) return fail(`two copies of ${what} were answered differently, so it executed twice: ${difference}`);
  }
  const schema = HopResponse.safeParse(served[0]!.body);
  if (!schema.success) return fail(`the served copy of ${what} is not a HopResponse`);
  const observed =
    busy.length > 0
      ? `${busy.length} got 409 hop_in_progress with Retry-After`
      : 'none arrived while it ran, so 409 was not exercised';
  return pass(`${burst} copies of ${what} at once: ${served.length} got the same 200 response, ${observed}`);
}

function expectCode(sent: Exchange, status: number, code: string): CheckVerdict {
  if (sent.status === status && errorCodeOf(sent.body) === code) return pass(`answered ${describeAnswer(sent)}`);
  return fail(`expected ${status} ${code}, got ${describeAnswer(sent)}`);
}
