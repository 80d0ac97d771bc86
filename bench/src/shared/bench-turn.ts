import { fileURLToPath } from 'node:url';
import {
  applyOutputs,
  applyOutputsWithResults,
  walkLayout,
  type CanvasDocument,
  HopResponse,
  PROTOCOL_VERSION,
  type ApplyResult,
  type HopRequest,
  type Layout,
} from '@canvas-ai/protocol';
import type { Scenario } from '@canvas-ai/protocol/scenario';
import { loadScenario } from '@canvas-ai/protocol/node';

/** The folder of the bench's own scenarios (the reference server is started with `--scenarios` on it). */
export const BENCH_SCENARIOS_DIR = fileURLToPath(new URL('../../fixtures/scenarios/', import.meta.url));

/** The bench's turn of the page builder, ten decisions in eleven hops (bench/fixtures/scenarios/bench-ten-hops.yaml). */
export function loadBenchScenario(): Promise<Scenario> {
  return loadScenario(`${BENCH_SCENARIOS_DIR}bench-ten-hops.yaml`);
}

/** Replaced by each turn's own request_id in a request body template. */
const REQUEST_ID_SLOT = 'bench-request-id-slot';

/**
 * Hop `hop` of the bench turn with a fixed layout: the scenario's message on hop 1, the same layout as context on
 * every hop, and from hop 2 on the previous hop's outputs reported as applied. For the load generator, which sends
 * bodies serialized once; since it does not add the placed paragraphs, the server reports them to the model as
 * removed by the person (spec §16.1), a little more work than a real client causes.
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

/**
 * The bench turn as the widget plays it: each hop's body built from the document after the previous response's
 * outputs were applied with the shared reducer, reporting their apply results, so the server sees no edit of the
 * person's. Serializing the bodies is the client's work, outside what a benchmark times on the server.
 */
export class BenchTurnClient {
  readonly #scenario: Scenario;
  readonly #layout: Layout;
  #document: CanvasDocument;
  #requestId = '';
  #hop = 0;
  #applyResults: ApplyResult[] | undefined;

  readonly #personEdits: boolean;

  /** With `personEdits`, the person retypes a prop of the page's last component before every hop from hop 2 on. */
  constructor(scenario: Scenario, layout: Layout, options: { personEdits?: boolean } = {}) {
    this.#scenario = scenario;
    this.#layout = layout;
    this.#document = { layout, page: {} };
    this.#personEdits = options.personEdits ?? false;
  }

  /** The number of the hop the last body was for. */
  get hop(): number {
    return this.#hop;
  }

  /** Hop 1 of a new turn. */
  start(requestId: string): string {
    this.#requestId = requestId;
    this.#hop = 0;
    this.#document = { layout: this.#layout, page: {} };
    this.#applyResults = undefined;
    return this.#nextBody();
  }

  /** Applies the response to the last body; the next hop's body, or undefined when that response ended the turn. */
  next(responseText: string): string | undefined {
    const response = HopResponse.parse(JSON.parse(responseText));
    const applied = applyOutputsWithResults(this.#document, response.outputs);
    this.#document = this.#personEdits ? retypeLast(applied.document, this.#hop) : applied.document;
    this.#applyResults = applied.results;
    return response.should_continue ? this.#nextBody() : undefined;
  }

  #nextBody(): string {
    this.#hop += 1;
    const request: HopRequest = {
      protocol: PROTOCOL_VERSION,
      request_id: this.#requestId,
      hop: this.#hop,
      agent: this.#scenario.agent,
      context: {
        current_layout: this.#document.layout,
        page: this.#document.page,
        selected_component: null,
        extra: {},
      },
    };
    if (this.#hop === 1) request.messages = [{ role: 'user', text: this.#scenario.user_message }];
    if (this.#applyResults) request.apply_results = this.#applyResults;
    return JSON.stringify(request);
  }
}

/** The document after the person retyped a prop of its last component (a new value each hop). */
function retypeLast(document: CanvasDocument, hop: number): CanvasDocument {
  let last: string | undefined;
  walkLayout(document.layout, (node) => {
    last = node.uuid;
  });
  if (last === undefined) return document;
  return applyOutputs(document, [
    {
      type: 'edit_components',
      call_id: 'person',
      component_updates: { [last]: { body: `Retyped before hop ${hop + 1}.` } },
    },
  ]);
}
