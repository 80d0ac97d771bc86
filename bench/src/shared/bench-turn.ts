import { fileURLToPath } from 'node:url';
import { PROTOCOL_VERSION, type HopRequest, type Layout } from '@canvas-ai/protocol';
import type { Scenario } from '@canvas-ai/protocol/scenario';
import { loadScenario } from '@canvas-ai/protocol/node';

/** The folder of the bench's own scenarios (the reference server is started with `--scenarios` on it). */
export const BENCH_SCENARIOS_DIR = fileURLToPath(new URL('../../fixtures/scenarios/', import.meta.url));

/** The bench's 10-hop turn of the page builder (bench/fixtures/scenarios/bench-ten-hops.yaml). */
export function loadBenchScenario(): Promise<Scenario> {
  return loadScenario(`${BENCH_SCENARIOS_DIR}bench-ten-hops.yaml`);
}

/** Replaced by each turn's own request_id in a request body template. */
const REQUEST_ID_SLOT = 'bench-request-id-slot';

/**
 * Hop `hop` of the bench turn as the widget would send it: the scenario's message on hop 1, the whole layout as
 * context on every hop, and from hop 2 on the previous hop's outputs reported as applied. The client re-sends the
 * same layout on every hop (it does not add the placed paragraphs), so every hop carries exactly the size measured.
 */
function benchHopRequest(scenario: Scenario, layout: Layout, requestId: string, hop: number): HopRequest {
  const request: HopRequest = {
    protocol: PROTOCOL_VERSION,
    request_id: requestId,
    hop,
    agent: scenario.agent,
    context: { current_layout: layout, page: {}, selected_component: null, extra: {} },
  };
  if (hop === 1) request.messages = [{ role: 'user', text: scenario.user_message }];
  const previous = scenario.hops[hop - 2];
  if (previous)
    request.apply_results = previous.outputs.map((output) => ({ call_id: output.call_id, status: 'applied' as const }));
  return request;
}

/** The JSON bodies of every hop of one turn, serialized once; `body(hop, requestId)` fills in the turn's id. */
export interface TurnBodies {
  hops: number;
  body(hop: number, requestId: string): string;
}

/**
 * Serializes the bench turn's requests once for a layout, so a load generator spends no time on JSON: each body is
 * split around its request_id and joined again per turn.
 */
export function turnBodies(scenario: Scenario, layout: Layout): TurnBodies {
  const parts = scenario.hops.map((_, index) =>
    JSON.stringify(benchHopRequest(scenario, layout, REQUEST_ID_SLOT, index + 1)).split(REQUEST_ID_SLOT),
  );
  return {
    hops: parts.length,
    body(hop, requestId) {
      const split = parts[hop - 1];
      if (!split) throw new RangeError(`the bench turn has ${parts.length} hops, not ${hop}`);
      return split.join(requestId);
    },
  };
}
