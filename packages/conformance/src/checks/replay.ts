import { defineCheck, fail, pass, type ConformanceCheck } from '../check.js';
import { describeAnswer } from '../http-client.js';
import { jsonDifference } from '../json-diff.js';
import { replayPairs } from '../scenario-runs.js';
import { verdict } from './invariants.js';

const must =
  'A hop sent again with the same request_id and hop MUST get the stored response of that hop, with the same content, and MUST NOT execute anything again: no tool call runs twice, no uuid is assigned twice.';

/** Retries (spec §8.2): a repeated hop gets the stored response, and nothing executes twice. */
export const replayChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'replay.same-response',
    level: 1,
    title: 'Every hop of the prompt turn, sent twice, gets the same response twice (the final hop included).',
    spec: { section: 'replay', must },
    async run(context) {
      const turn = await context.promptTurn();
      if (turn.hops.length === 0) return fail(`no hop was answered: ${turn.problem ?? ''}`);
      const problems = turn.hops.flatMap(({ hop, first, repeat }) => {
        if (first.status !== 200) return [];
        if (repeat.status !== 200) return [`hop ${hop} sent again answered ${describeAnswer(repeat)}`];
        const difference = jsonDifference(first.body, repeat.body);
        return difference ? [`hop ${hop} sent again answered differently: ${difference}`] : [];
      });
      if (turn.hops[0]!.first.status !== 200)
        return fail(`hop 1 answered ${describeAnswer(turn.hops[0]!.first)}, nothing to replay`);
      return verdict(
        problems,
        `${turn.hops.filter((hop) => hop.first.status === 200).length} hop(s) replayed identically`,
      );
    },
  }),
  defineCheck({
    id: 'replay.tools-not-executed-again',
    level: 2,
    title: 'Every hop of every scenario, sent twice, gets the same response: same outputs, same server-assigned uuids.',
    spec: { section: 'replay', must },
    async run(context) {
      const pairs = await replayPairs(context);
      const answered = pairs.filter((pair) => pair.first.status === 200);
      if (answered.length === 0) return fail('no scenario hop answered 200, nothing to replay');
      const problems = answered.flatMap((pair) => {
        const where = `${pair.scenario} hop ${pair.hop}`;
        if (pair.second.status !== 200) return [`${where} sent again answered ${pair.second.status}`];
        const difference = jsonDifference(pair.first.body, pair.second.body);
        return difference ? [`${where} sent again answered differently (executed again?): ${difference}`] : [];
      });
      const withOutputs = answered.filter(
        (pair) => ((pair.first.body as { outputs?: unknown[] }).outputs ?? []).length > 0,
      ).length;
      return problems.length === 0
        ? pass(`${answered.length} hops replayed identically, ${withOutputs} of them with outputs`)
        : verdict(problems, '');
    },
  }),
];
