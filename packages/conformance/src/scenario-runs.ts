import type { CanvasDocument } from '@canvas-ai/protocol';
import { driveScenario, type ScenarioRun } from '@canvas-ai/protocol/scenario';
import type { Fixtures, Scenario } from '@canvas-ai/protocol/scenario';
import { HopResponse } from '@canvas-ai/protocol';
import type { CheckContext } from './context.js';
import { describeError } from './describe-error.js';
import type { ConformanceClient } from './http-client.js';

/** One scenario as played by `driveScenario`, or why it could not be played. */
export interface ScenarioOutcome {
  scenario: Scenario;
  run?: ScenarioRun;
  /** The valid 200 responses, in hop order (stops at the first hop that is not one). */
  responses: HopResponse[];
  /** The document the scenario starts from (its layout fixture and page). */
  start: CanvasDocument;
  /** The catalog the scenario's components come from (placed components are counted in its slot order). */
  catalog: Fixtures['catalog'];
  error?: string;
}

/** A hop sent twice in a row, and both answers. */
export interface ReplayPair {
  scenario: string;
  hop: number;
  first: { status: number; body: unknown };
  second: { status: number; body: unknown };
}

/** Every scenario of the fixtures, played once over this run's session (shared by the level-2 checks). */
export function scenarioOutcomes(context: CheckContext): Promise<ScenarioOutcome[]> {
  return context.once('scenario-runs', async () => {
    const fixtures = context.requireFixtures();
    const outcomes: ScenarioOutcome[] = [];
    for (const scenario of fixtures.scenarios) {
      const start: CanvasDocument = {
        layout: fixtures.layouts[scenario.layout] ?? { regions: {} },
        page: scenario.page,
      };
      try {
        const run = await driveScenario(scenario, {
          endpoint: context.client.options.endpoint,
          fetch: context.client.fetch,
          headers: () => context.client.csrfHeaders(),
          fixtures,
          requestId: `conformance-${scenario.id}-${crypto.randomUUID()}`,
        });
        outcomes.push({ scenario, run, responses: validResponses(run), start, catalog: fixtures.catalog });
      } catch (error) {
        outcomes.push({
          scenario,
          responses: [],
          start,
          catalog: fixtures.catalog,
          error: describeError(error, context.timeoutMs),
        });
      }
    }
    return outcomes;
  });
}

/** Every scenario played again, each hop sent twice in a row as a client that lost the response would. */
export function replayPairs(context: CheckContext): Promise<ReplayPair[]> {
  return context.once('replay-runs', async () => {
    const fixtures = context.requireFixtures();
    const pairs: ReplayPair[] = [];
    for (const scenario of fixtures.scenarios) {
      await driveScenario(scenario, {
        endpoint: context.client.options.endpoint,
        fetch: sendingTwice(context.client, scenario.id, pairs),
        headers: () => context.client.csrfHeaders(),
        fixtures,
        requestId: `conformance-replay-${scenario.id}-${crypto.randomUUID()}`,
      });
    }
    return pairs;
  });
}

/** A fetch that sends every POST twice and answers with the second response, recording both. */
function sendingTwice(client: ConformanceClient, scenario: string, pairs: ReplayPair[]): typeof fetch {
  let hop = 0;
  return async (input, init) => {
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST') return client.fetch(input, init);
    hop += 1;
    const first = await client.fetch(input, init);
    const firstBody = decode(await first.text());
    const second = await client.fetch(input, init);
    const secondBody = decode(await second.clone().text());
    pairs.push({
      scenario,
      hop,
      first: { status: first.status, body: firstBody },
      second: { status: second.status, body: secondBody },
    });
    return second;
  };
}

function validResponses(run: ScenarioRun): HopResponse[] {
  const responses: HopResponse[] = [];
  for (const hop of run.hops) {
    const parsed = hop.status === 200 ? HopResponse.safeParse(hop.body) : undefined;
    if (!parsed?.success) break;
    responses.push(parsed.data);
  }
  return responses;
}

function decode(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
