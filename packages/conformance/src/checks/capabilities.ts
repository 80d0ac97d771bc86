import type { Scenario } from '@canvas-ai/protocol/scenario';
import { HopResponse } from '@canvas-ai/protocol';
import { DECLARED_OUTPUT_TYPES } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, skip, type ConformanceCheck } from '../check.js';
import { describeAnswer } from '../http-client.js';
import { newRequestId, scenarioHop } from '../requests.js';
import { drivenByHand } from './turn-probes.js';

/** The negotiation of the outputs a v1 host may not know (revision 1.2, spec §5.1). */
export const capabilityChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'capabilities.undeclared-not-offered',
    level: 2,
    title:
      'A turn whose client declares nothing gets no remove_components or move_components output, even when the script calls them; its hops still answer 200.',
    spec: {
      section: 'capabilities',
      must: "A server MUST NOT send an output of a type the turn's client did not declare, and MUST NOT offer the model a tool whose output would be of such a type.",
    },
    async run(context) {
      const fixtures = context.requireFixtures();
      const probe = fixtures.scenarios
        .map((scenario) => ({ scenario, hop: firstDeclaredHop(scenario) }))
        .find((candidate) => candidate.hop !== undefined && drivenByHand(candidate.scenario));
      if (!probe)
        return skip('no scenario declares capabilities and expects a remove_components or move_components output');
      const { scenario, hop: expectedAt } = probe as { scenario: Scenario; hop: number };
      const id = newRequestId('undeclared');
      try {
        // The scenario played as a client of an older revision would: no capabilities on hop 1.
        for (let hop = 1; hop <= expectedAt; hop += 1) {
          const sent = await context.client.postHop(scenarioHop(scenario, fixtures, id, hop, { undeclared: true }));
          if (sent.status !== 200)
            return fail(`${scenario.id} hop ${hop} without capabilities answered ${describeAnswer(sent)}`);
          const parsed = HopResponse.safeParse(sent.body);
          if (!parsed.success) return fail(`${scenario.id} hop ${hop} without capabilities is not a HopResponse`);
          const sentTypes = parsed.data.outputs
            .map((output) => output.type)
            .filter((type) => (DECLARED_OUTPUT_TYPES as readonly string[]).includes(type));
          if (sentTypes.length > 0)
            return fail(`${scenario.id} hop ${hop} sent ${sentTypes.join(', ')} to a client that declared nothing`);
          if (!parsed.data.should_continue)
            return pass(`${scenario.id}: no undeclared output; the turn ended at hop ${hop} with 200`);
        }
        return pass(`${scenario.id}: hops 1–${expectedAt} without capabilities answered 200 with no undeclared output`);
      } finally {
        await context.client.cancel(id).catch(() => undefined);
      }
    },
  }),
];

/** The first hop (1-based) at which a scenario with `capabilities` expects a declared-type output, if any. */
function firstDeclaredHop(scenario: Scenario): number | undefined {
  if ((scenario.capabilities?.outputs ?? []).length === 0) return undefined;
  const index = scenario.hops.findIndex((hop) =>
    hop.outputs.some((output) => (DECLARED_OUTPUT_TYPES as readonly string[]).includes(output.type)),
  );
  return index === -1 ? undefined : index + 1;
}
