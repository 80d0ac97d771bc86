import { HopResponse } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, skip, type ConformanceCheck } from '../check.js';
import { describeAnswer, errorCodeOf } from '../http-client.js';
import { jsonDifference } from '../json-diff.js';
import { newRequestId, scenarioHop } from '../requests.js';
import { multiHopScenario } from './turn-probes.js';

/**
 * Level 2, the bound on the turns one session runs at once (spec §8.8), when the run is told it (`--session-turns`):
 * a fresh session is driven to it, and what the bound refuses, and what it must not, is observed there.
 */
export const quotaChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'quotas.session-turns',
    level: 2,
    title:
      'A session running as many turns as the server allows gets 429 quota_exceeded with Retry-After for a new one, while a malformed hop 1 still gets its 400, a repeated hop 1 its stored response, and a running turn its next hop; a cancel frees a share.',
    spec: {
      section: 'quotas',
      must: 'A server MUST bound what one client can hold (a new turn past the per-session bound: 429 quota_exceeded with Retry-After), and MUST check that bound for a new turn only, after the validation order and the turn rules.',
    },
    async run(context) {
      const bound = context.sessionTurns;
      if (bound === undefined)
        return skip(
          'the run was not told the turns one session may run at once (--session-turns N): the bound is the deployment’s',
        );
      const fixtures = context.requireFixtures();
      const scenario = multiHopScenario(fixtures.scenarios);
      if (!scenario) return skip('no scenario without attachments has two hops or more');
      // A session of its own: the run's session keeps its turns, and this one is emptied at the end.
      const session = context.client.fork();
      const turns: Array<{ id: string; answer: unknown }> = [];
      const hop1 = (id: string) => scenarioHop(scenario, fixtures, id, 1);
      try {
        for (let count = 1; count <= bound; count += 1) {
          const id = newRequestId(`quota-${count}`);
          const answer = await session.postHop(hop1(id));
          const parsed = answer.status === 200 ? HopResponse.safeParse(answer.body) : undefined;
          if (!parsed?.success || !parsed.data.should_continue)
            return fail(
              `turn ${count} of the ${bound} a session may run (${scenario.id} hop 1) answered ${describeAnswer(answer)}, expected 200 and the turn going on`,
            );
          turns.push({ id, answer: answer.body });
        }
        const problems: string[] = [];
        const over = await session.postHop(hop1(newRequestId('quota-over')));
        const retryAfter = over.headers.get('retry-after');
        if (over.status !== 429 || errorCodeOf(over.body) !== 'quota_exceeded')
          problems.push(`turn ${bound + 1} answered ${describeAnswer(over)}, expected 429 quota_exceeded`);
        else if (retryAfter === null || !/^\d+$/.test(retryAfter.trim()))
          problems.push(`the 429 carries Retry-After ${JSON.stringify(retryAfter)}, expected a number of seconds`);
        // At the bound, only a new turn is refused by it: everything the order refuses first keeps its answer.
        const malformed = await session.postHop({ ...hop1(newRequestId('quota-malformed')), messages: [] });
        if (malformed.status !== 400)
          problems.push(
            `a hop 1 with no messages answered ${describeAnswer(malformed)}, expected its 400 (the validation order comes first)`,
          );
        const first = turns[0]!;
        const repeated = await session.postHop(hop1(first.id));
        const difference = repeated.status === 200 ? jsonDifference(first.answer, repeated.body) : undefined;
        if (repeated.status !== 200 || difference)
          problems.push(
            `turn 1's hop 1 sent again answered ${describeAnswer(repeated)}${difference ? ` (${difference})` : ''}, expected its stored response`,
          );
        const next = await session.postHop(scenarioHop(scenario, fixtures, first.id, 2));
        if (next.status !== 200)
          problems.push(
            `turn 1's hop 2 answered ${describeAnswer(next)}, expected 200: a turn already running goes on`,
          );
        if (problems.length > 0) return fail(problems.join('; '));
        await session.cancel(first.id);
        turns.shift();
        const freed = newRequestId('quota-freed');
        const after = await session.postHop(hop1(freed));
        turns.push({ id: freed, answer: after.body });
        if (after.status !== 200)
          return fail(
            `a new turn after one of the ${bound} was cancelled answered ${describeAnswer(after)}, expected 200 (a cancelled turn frees its share)`,
          );
        return pass(
          `${bound} turns ran; the next got 429 quota_exceeded (Retry-After ${retryAfter}); a malformed hop 1 got 400, a repeat its response, a running turn its hop 2; a cancel freed a share`,
        );
      } finally {
        for (const turn of turns) await session.cancel(turn.id).catch(() => undefined);
      }
    },
  }),
];
