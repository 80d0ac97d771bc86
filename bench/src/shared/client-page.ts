// The page of the client per-hop benchmark, bundled by vite and run in Chromium. It times the widget loop's own
// per-hop work with the widget's and the protocol's exported functions (nothing copied): getLayout → build and
// serialize the request → read and validate the response → the host's applyOutputs (the protocol's reducer, as the
// widget README recommends), against JSON.stringify of the same layout.
import {
  applyOutputsWithResults,
  PROTOCOL_VERSION,
  type ApplyResult,
  type CanvasDocument,
  type HopResponse,
} from '@canvas-ai/protocol';
import { buildHopRequest, readHopResponse, serializeHopRequest, type HostDocument } from '@canvas-ai/widget';
import { ANCHOR_UUID, benchLayout } from './layout.js';

/** What one measurement returns: milliseconds per hop, means over `iterations`. */
export interface ClientMeasurement {
  iterations: number;
  perHopMs: number;
  applyMs: number;
  floorMs: number;
}

/** The page's API, called by the bench through `page.evaluate`. */
export interface BenchClient {
  /** Prepares a document of `components` components (not timed). */
  prepare(components: number): void;
  /** Runs hops until at least `minMs` of client time was measured. */
  measure(minMs: number): Promise<ClientMeasurement>;
}

declare global {
  interface Window {
    benchClient: BenchClient;
  }
}

/** A hop-2 response as the reference server sends it: one paragraph placed below the first component. */
function responseText(requestId: string): string {
  const response: HopResponse = {
    status: true,
    protocol: PROTOCOL_VERSION,
    request_id: requestId,
    hop: 2,
    agent: { id: 'page_builder', label: 'Page builder' },
    should_continue: true,
    outputs: [
      {
        type: 'place_components',
        call_id: 'call_1',
        operations: [
          {
            target: 'content',
            placement: 'below',
            reference_uuid: ANCHOR_UUID,
            components: [
              {
                uuid: '6f1c1c64-1e5b-4a8e-9a53-1d3a4f0c2b7e',
                component: 'sdc.demo.text',
                props: {
                  body: 'Paragraph 1 of the benchmark, a sentence of ordinary length so the output looks like a real one.',
                  size: 'normal',
                },
              },
            ],
          },
        ],
      },
    ],
    progress:
      'Adding paragraph 1 of 9 below the first component.\n\nAdding paragraph 2 of 9 below the first component.',
  };
  return JSON.stringify(response);
}

let store: CanvasDocument = { layout: benchLayout(1), page: {} };
let sink = 0;
const requestId = 'bench-client-turn';
const text = responseText(requestId);
const applyResults: ApplyResult[] = [{ call_id: 'call_0', status: 'applied' }];

// The host's hooks, as the widget README's "store already uses the protocol's layout model" example writes them.
const getLayout = (): HostDocument => store;
const applyOutputs = (outputs: HopResponse['outputs']): ApplyResult[] =>
  applyOutputsWithResults(store, outputs).results;

window.benchClient = {
  prepare(components) {
    store = { layout: benchLayout(components), page: { title: 'Crumb & Co.' } };
    // One untimed apply, so the reducer's first call on a new document (and its JIT) is not in the figures.
    applyOutputs(JSON.parse(text).outputs);
  },
  async measure(minMs) {
    let iterations = 0;
    let perHop = 0;
    let apply = 0;
    let floor = 0;
    while (iterations === 0 || perHop < minMs) {
      const started = performance.now();
      const document = getLayout();
      const request = buildHopRequest({
        requestId,
        hop: 2,
        messages: [],
        document,
        agent: 'page_builder',
        conversationId: 'bench',
        applyResults,
      });
      const { body } = serializeHopRequest(request);
      const response = await readHopResponse(
        new Response(text, { status: 200, headers: { 'content-type': 'application/json' } }),
        request,
      );
      const applying = performance.now();
      const results = applyOutputs(response.outputs);
      const applied = performance.now();
      const floorJson = JSON.stringify(document.layout);
      const floorDone = performance.now();
      if (results[0]?.status !== 'applied') throw new Error(`the bench output was rejected: ${results[0]?.reason}`);
      sink += (body as string).length + floorJson.length;
      perHop += applied - started;
      apply += applied - applying;
      floor += floorDone - applied;
      iterations += 1;
    }
    return { iterations, perHopMs: perHop / iterations, applyMs: apply / iterations, floorMs: floor / iterations };
  },
};
// Keeps the serialized bodies observable, so no engine may skip building them.
Object.defineProperty(window, 'benchSink', { get: () => sink });
