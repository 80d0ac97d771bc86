import { checkHop } from '@canvas-ai/protocol/scenario';
import { normalizeUserMessage } from '@canvas-ai/protocol/scenario';
import { isQuick } from './turn-probes.js';
import { HopResponse } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, skip, type ConformanceCheck } from '../check.js';
import { describeAnswer } from '../http-client.js';
import { newRequestId, promptHop, scenarioHop } from '../requests.js';

/** Level 2, what scripted mode itself must do (spec/conformance.md): how a turn finds its scenario, and the answer when none fits. */
export const scriptedChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'scripted.match-normalized-message',
    level: 2,
    title:
      "A scenario's user message in upper case with extra whitespace still picks that scenario (hop 1 as the fixture expects).",
    spec: {
      section: 'scenarios',
      must: "A scripted-mode server picks the scenario whose agent is the turn's agent and whose user_message equals the turn's, both trimmed, whitespace runs collapsed to one space and lower-cased.",
    },
    async run(context) {
      const fixtures = context.requireFixtures();
      const scenario = fixtures.scenarios.find(
        (candidate) =>
          isQuick(candidate) &&
          candidate.attachments.length === 0 &&
          normalizeUserMessage(shout(candidate.user_message)) === normalizeUserMessage(candidate.user_message),
      );
      if (!scenario) return skip('no scenario without attachments to match');
      const id = newRequestId('match');
      const answer = await context.client.postHop(
        scenarioHop(scenario, fixtures, id, 1, { userMessage: shout(scenario.user_message) }),
      );
      await context.client.cancel(id).catch(() => undefined);
      const parsed = answer.status === 200 ? HopResponse.safeParse(answer.body) : undefined;
      if (!parsed?.success) return fail(`hop 1 answered ${describeAnswer(answer)}`);
      const mismatches = checkHop(scenario.hops[0]!, parsed.data, [], scenario.selected_component, fixtures.catalog);
      if (mismatches.length > 0)
        return fail(`"${shout(scenario.user_message)}" did not replay ${scenario.id}: ${mismatches[0]}`);
      return pass(`"${shout(scenario.user_message).trim()}" replayed ${scenario.id}`);
    },
  }),
  defineCheck({
    id: 'scripted.no-scenario-answer',
    level: 2,
    title:
      'A message no scenario has gets a one-hop answer: should_continue false, finish_reason answer, no output, a message saying why.',
    spec: {
      section: 'scenarios',
      must: 'A scripted-mode server answers a message no scenario matches in one hop, saying so (spec/conformance.md, scripted mode).',
    },
    async run(context) {
      const id = newRequestId('no-scenario');
      const answer = await context.client.postHop(
        promptHop(id, 1, `Conformance kit ${crypto.randomUUID()}: no scenario has this message`),
      );
      const parsed = answer.status === 200 ? HopResponse.safeParse(answer.body) : undefined;
      if (!parsed?.success) return fail(`answered ${describeAnswer(answer)}`);
      const response = parsed.data;
      if (response.should_continue) {
        await context.client.cancel(id).catch(() => undefined);
        return fail('the turn goes on (should_continue true); expected a one-hop answer');
      }
      if (response.finish_reason !== 'answer') return fail(`finish_reason ${response.finish_reason}, expected answer`);
      if (response.outputs.length > 0) return fail(`it returned ${response.outputs.length} output(s)`);
      if (response.message.trim() === '') return fail('the message is empty');
      return pass(`one hop, answer ${JSON.stringify(response.message.slice(0, 60))}…`);
    },
  }),
];

/** The message as someone shouting it: upper case, padded, with doubled whitespace. */
function shout(message: string): string {
  return `  ${message.toUpperCase().split(' ').join(' \t ')}\n`;
}
