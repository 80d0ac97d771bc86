import { PLACED_REF } from '@canvas-ai/protocol/scenario';
import type { Fixtures, Scenario } from '@canvas-ai/protocol/scenario';
import { HopResponse } from '@canvas-ai/protocol';
import { type CheckVerdict, fail } from '../check.js';
import type { CheckContext } from '../context.js';
import { describeAnswer, errorCodeOf, type Exchange } from '../http-client.js';
import { newRequestId, scenarioHop } from '../requests.js';

/**
 * Whether the kit's probes can drive a scenario by hand: quick, no attachments, and no hop that waits for an answer (those
 * are the waits checks' to drive, spec §20).
 */
export function drivenByHand(scenario: Scenario): boolean {
  return (
    isQuick(scenario) && scenario.attachments.length === 0 && scenario.hops.every((hop) => hop.waiting === undefined)
  );
}

/** The first scenario (file order) the probes drive by hand that takes two hops or more. */
export function multiHopScenario(scenarios: readonly Scenario[]): Scenario | undefined {
  return scenarios.find((scenario) => drivenByHand(scenario) && scenario.hops.length >= 2);
}

/**
 * Whether scripted mode replays every decision of a scenario at once (no `delay_ms`): the probes that pick "the first
 * scenario that …" pick among these, and only `cancel.during-hop` plays the slow one.
 */
export function isQuick(scenario: Scenario): boolean {
  return scenario.replies.every((reply) => (reply.delay_ms ?? 0) === 0);
}

/** How long a scenario's first decision takes in scripted mode (its `delay_ms`, spec/conformance.md §3). */
export function firstDelayMs(scenario: Scenario): number {
  return scenario.replies[0]?.delay_ms ?? 0;
}

/** A turn whose hop 1 waits for a slow decision: the one a cancel can reliably land in. */
export function slowFirstHopScenario(scenarios: readonly Scenario[]): Scenario | undefined {
  return scenarios.find(
    (scenario) => scenario.attachments.length === 0 && scenario.hops.length >= 2 && firstDelayMs(scenario) > 0,
  );
}

/** A turn for a check that asks about it from a second session: a two-hop scenario and a fresh request id. */
export interface SecondSessionTurn {
  scenario: Scenario;
  fixtures: Fixtures;
  id: string;
}

/**
 * Picks the turn of a check that then asks from another session (the first two-hop scenario), or says why the check
 * cannot run: the kit opens a second session through the token endpoint.
 */
export function secondSessionTurn(context: CheckContext, label: string): SecondSessionTurn | { skip: string } {
  if (context.client.options.tokenEndpoint === undefined)
    return { skip: 'no --token-endpoint: the kit cannot open a second session' };
  const fixtures = context.requireFixtures();
  const scenario = multiHopScenario(fixtures.scenarios);
  if (!scenario) return { skip: 'no scenario without attachments has two hops or more' };
  return { scenario, fixtures, id: newRequestId(label) };
}

/** Sends hop 1 of the turn; the failing verdict when the server did not answer it 200. */
export async function firstHopRefused(
  context: CheckContext,
  turn: SecondSessionTurn,
): Promise<CheckVerdict | undefined> {
  const hop1 = await context.client.postHop(scenarioHop(turn.scenario, turn.fixtures, turn.id, 1));
  return hop1.status === 200 ? undefined : fail(`${turn.scenario.id} hop 1 answered ${describeAnswer(hop1)}`);
}

/** A hop made to fail while it executes, and the same hop sent again. */
export type FailureProbe =
  | { skip: string }
  | { problem: string }
  | { scenario: string; failedHop: number; failure: Exchange; retry: Exchange; progressBefore: string };

/**
 * Makes a hop fail while it executes, the scripted-mode way (spec/conformance.md): plays a scenario whose reply N
 * names `{{placed.K}}` with a layout that has no region, so no placement succeeds and decision N cannot resolve its
 * reference (502 provider_error). Then sends that hop again with the scenario's own layout.
 */
export function failureProbe(context: CheckContext): Promise<FailureProbe> {
  return context.once('failure-probe', async (): Promise<FailureProbe> => {
    const fixtures = context.requireFixtures();
    const found = firstPlacedReference(fixtures.scenarios);
    if (!found) return { skip: 'no scenario without attachments has a reply naming {{placed.N}} after its first' };
    const { scenario, failingHop } = found;
    const id = newRequestId('failure');
    const noRegion = { regions: {} };
    let progressBefore = '';
    for (let hop = 1; hop < failingHop; hop += 1) {
      const answer = await context.client.postHop(scenarioHop(scenario, fixtures, id, hop, { layout: noRegion }));
      const parsed = answer.status === 200 ? HopResponse.safeParse(answer.body) : undefined;
      if (!parsed?.success || !parsed.data.should_continue) {
        await context.client.cancel(id).catch(() => undefined);
        return {
          problem: `${scenario.id} hop ${hop} (a page with no region) answered ${describeAnswer(answer)}; expected 200 and the turn going on`,
        };
      }
      progressBefore = parsed.data.progress;
    }
    const failure = await context.client.postHop(scenarioHop(scenario, fixtures, id, failingHop, { layout: noRegion }));
    const code = errorCodeOf(failure.body);
    if (failure.status !== 502 || code !== 'provider_error') {
      await context.client.cancel(id).catch(() => undefined);
      return {
        problem:
          `${scenario.id} hop ${failingHop} on a page with no region answered ${describeAnswer(failure)}; scripted mode MUST fail a decision ` +
          'whose {{placed.N}} names a component not placed (502 provider_error), see spec/conformance.md',
      };
    }
    const retry = await context.client.postHop(scenarioHop(scenario, fixtures, id, failingHop));
    await context.client.cancel(id).catch(() => undefined);
    return { scenario: scenario.id, failedHop: failingHop, failure, retry, progressBefore };
  });
}

/** The first scenario without attachments whose reply N (N ≥ 2, none before it) names a placed component. */
function firstPlacedReference(scenarios: readonly Scenario[]): { scenario: Scenario; failingHop: number } | undefined {
  for (const scenario of scenarios) {
    if (scenario.attachments.length > 0) continue;
    const index = scenario.replies.findIndex((reply) =>
      reply.tool_calls.some((call) => new RegExp(PLACED_REF.source).test(call.arguments)),
    );
    if (index >= 1 && index < scenario.hops.length) return { scenario, failingHop: index + 1 };
  }
  return undefined;
}

/** A turn at hop 2, then its hop 1 sent again, then its hop 3: what an earlier hop sent again gets. */
export type EarlierHopProbe =
  | { skip: string }
  | { problem: string }
  | { scenario: string; earlier: Exchange; next: Exchange; progressBefore: string };

/**
 * Plays hops 1 and 2 of the first scenario (file order) without attachments that has three hops or more, sends hop
 * 1 again, then hop 3. Shared by the checks of the order rule and of an error's `progress`.
 */
export function earlierHopProbe(context: CheckContext): Promise<EarlierHopProbe> {
  return context.once('earlier-hop-probe', async (): Promise<EarlierHopProbe> => {
    const fixtures = context.requireFixtures();
    const scenario = fixtures.scenarios.find((candidate) => drivenByHand(candidate) && candidate.hops.length >= 3);
    if (!scenario) return { skip: 'no scenario without attachments has three hops or more' };
    const id = newRequestId('earlier');
    let progressBefore = '';
    for (const hop of [1, 2]) {
      const answer = await context.client.postHop(scenarioHop(scenario, fixtures, id, hop));
      const parsed = answer.status === 200 ? HopResponse.safeParse(answer.body) : undefined;
      if (!parsed?.success || !parsed.data.should_continue) {
        await context.client.cancel(id).catch(() => undefined);
        return {
          problem: `${scenario.id} hop ${hop} answered ${describeAnswer(answer)}; expected 200 and the turn going on`,
        };
      }
      progressBefore = parsed.data.progress;
    }
    const earlier = await context.client.postHop(scenarioHop(scenario, fixtures, id, 1));
    const next = await context.client.postHop(scenarioHop(scenario, fixtures, id, 3));
    await context.client.cancel(id).catch(() => undefined);
    return { scenario: scenario.id, earlier, next, progressBefore };
  });
}

/** The first scenario (file order) without attachments that takes two hops or more and names an agent of its own. */
export function agentScenario(scenarios: readonly Scenario[]): Scenario | undefined {
  return scenarios.find(
    (scenario) => drivenByHand(scenario) && scenario.hops.length >= 2 && scenario.agent !== undefined,
  );
}
