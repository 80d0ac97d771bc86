import { applyOutputsWithResults, type CanvasDocument } from '../layout/apply-outputs.js';
import type { HopRequestInput } from '../wire/hop-request.js';
import { HopResponse } from '../wire/hop-response.js';
import { PROTOCOL_VERSION } from '../wire/ids.js';
import type { ApplyResult, ToolOutput } from '../wire/outputs.js';
import { checkHop } from './check-hop.js';
import type { Fixtures } from './fixtures.js';
import { collectPlacedUuids } from '../layout/placed-uuids.js';
import type { Scenario, ScenarioHop } from './scenario.js';

/** Where and how {@link driveScenario} plays a scenario. */
export interface DriveScenarioOptions {
  /** The hop endpoint, e.g. `http://127.0.0.1:8787/api/hop`; cancelling uses `DELETE <endpoint>/<request_id>`. */
  endpoint: string;
  /** Defaults to the global `fetch` (which msw intercepts). */
  fetch?: typeof fetch;
  /** Extra headers of every request (a CSRF token, a session cookie), read before each request. */
  headers?: () => HeadersInit | Promise<HeadersInit>;
  /** Layouts and attachments the scenario names. */
  fixtures: Fixtures;
  /** The turn id; defaults to the scenario id plus a random suffix. */
  requestId?: string;
  conversationId?: string;
}

/** One hop as the driver saw it. */
export interface DrivenHop {
  hop: number;
  status: number;
  /** The decoded JSON body (the raw text when it is not JSON). */
  body: unknown;
  /** Empty when the hop matched the scenario. */
  mismatches: string[];
}

/** The outcome of {@link driveScenario}. */
export interface ScenarioRun {
  requestId: string;
  /** Every expected hop was answered and matched. */
  passed: boolean;
  hops: DrivenHop[];
  /** The document after every output was applied, as a host's store would hold it. */
  document: CanvasDocument;
}

/**
 * Plays one scenario against any hop endpoint over fetch (Node or browser), hop by hop, as a well-behaved client:
 * rebuilds each request from the document it keeps with the shared reducer, sends hop 1 as multipart when the
 * scenario has attachments, applies every output, reports `apply_results`, and checks each hop with `checkHop`.
 * It stops at the first hop that is not HTTP 200 or that ends the turn.
 */
export async function driveScenario(scenario: Scenario, options: DriveScenarioOptions): Promise<ScenarioRun> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const requestId = options.requestId ?? `${scenario.id}-${crypto.randomUUID()}`;
  const layout = options.fixtures.layouts[scenario.layout];
  if (layout === undefined) throw new Error(`scenario "${scenario.id}": no layout fixture "${scenario.layout}"`);

  let document: CanvasDocument = { layout: structuredClone(layout), page: structuredClone(scenario.page) };
  let applyResults: ApplyResult[] | undefined;
  const placed: string[] = [];
  const hops: DrivenHop[] = [];
  let serverWaits = false;

  for (const [index, expected] of scenario.hops.entries()) {
    const hop = index + 1;
    const request: HopRequestInput = {
      protocol: PROTOCOL_VERSION,
      request_id: requestId,
      hop,
      context: {
        current_layout: document.layout,
        page: document.page,
        selected_component: scenario.selected_component,
        extra: {},
      },
    };
    if (scenario.agent !== undefined) request.agent = scenario.agent;
    if (options.conversationId !== undefined) request.conversation_id = options.conversationId;
    if (hop === 1) request.messages = [...scenario.history, { role: 'user', text: scenario.user_message }];
    if (applyResults !== undefined) request.apply_results = applyResults;

    const headers = new Headers(options.headers ? await options.headers() : undefined);
    const init: RequestInit = { method: 'POST', headers };
    if (hop === 1 && scenario.attachments.length > 0) {
      init.body = multipartBody(scenario, request, options.fixtures);
    } else {
      headers.set('content-type', 'application/json');
      init.body = JSON.stringify(request);
    }
    const reply = await doFetch(options.endpoint, init);
    const text = await reply.text();
    const body = decode(text);
    const driven: DrivenHop = { hop, status: reply.status, body, mismatches: [] };
    hops.push(driven);

    if (reply.status !== 200) {
      driven.mismatches.push(`hop ${hop}: expected HTTP 200 but got ${reply.status}${describeError(body)}`);
      break;
    }
    const parsed = HopResponse.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      driven.mismatches.push(
        `hop ${hop}: the body is not a HopResponse (${issue.path.join('.') || 'body'}: ${issue.message})`,
      );
      break;
    }
    const response = parsed.data;
    if (response.request_id !== requestId)
      driven.mismatches.push(`hop ${hop}: expected request_id "${requestId}" but got "${response.request_id}"`);
    if (response.hop !== hop)
      driven.mismatches.push(`hop ${hop}: expected the response to name hop ${hop} but it names hop ${response.hop}`);
    driven.mismatches.push(...checkHop(expected, response, placed, scenario.selected_component));

    const applied = applyHop(document, response.outputs, expected, hop);
    document = applied.document;
    applyResults = applied.results;
    driven.mismatches.push(...applied.mismatches);
    placed.push(...collectPlacedUuids(response.outputs));
    serverWaits = response.should_continue;
    if (!response.should_continue) break;
  }

  // A client that stops while the server still holds the turn cancels it, so nothing is left parked.
  if (serverWaits) {
    await doFetch(`${options.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(requestId)}`, {
      method: 'DELETE',
      headers: new Headers(options.headers ? await options.headers() : undefined),
    }).catch(() => undefined);
  }

  const passed = hops.length === scenario.hops.length && hops.every((hop) => hop.mismatches.length === 0);
  return { requestId, passed, hops, document };
}

/**
 * Applies a response's outputs like a host store would. By default every output the reducer accepts is applied
 * (a refusal is a mismatch: the fixtures expect a consistent turn); a hop whose scenario states `apply_results`
 * plays a host that rejects some outputs, so only those reported applied are.
 */
function applyHop(
  document: CanvasDocument,
  outputs: readonly ToolOutput[],
  expected: ScenarioHop,
  hop: number,
): { document: CanvasDocument; results: ApplyResult[]; mismatches: string[] } {
  if (expected.apply_results !== undefined) {
    const accepted = new Set(
      expected.apply_results.filter((result) => result.status === 'applied').map((result) => result.call_id),
    );
    const applied = applyOutputsWithResults(
      document,
      outputs.filter((output) => accepted.has(output.call_id)),
    );
    const mismatches = applied.results
      .filter((result) => result.status === 'rejected')
      .map((result) => `hop ${hop}: output ${result.call_id} could not be applied: ${result.reason}`);
    return { document: applied.document, results: expected.apply_results, mismatches };
  }
  const applied = applyOutputsWithResults(document, outputs);
  const mismatches = applied.results
    .filter((result) => result.status === 'rejected')
    .map((result) => `hop ${hop}: output ${result.call_id} could not be applied: ${result.reason}`);
  return { document: applied.document, results: applied.results, mismatches };
}

/** Hop 1 with attachments: one `request` part (the JSON) and one `attachments` file part per attachment (spec §4.3). */
function multipartBody(scenario: Scenario, request: HopRequestInput, fixtures: Fixtures): FormData {
  const form = new FormData();
  form.append('request', JSON.stringify(request));
  for (const attachment of scenario.attachments) {
    const bytes = fixtures.attachments[attachment.file];
    if (bytes === undefined) throw new Error(`scenario "${scenario.id}": no attachment fixture "${attachment.file}"`);
    const name = attachment.file.split('/').at(-1) ?? attachment.file;
    form.append('attachments', new Blob([bytes.slice()], { type: attachment.media_type }), name);
  }
  return form;
}

function decode(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describeError(body: unknown): string {
  if (body === null || typeof body !== 'object') return '';
  const { error, message } = body as { error?: { code?: unknown }; message?: unknown };
  const code = typeof error?.code === 'string' ? ` ${error.code}` : '';
  return typeof message === 'string' ? ` (${code.trim() || 'error'}: ${message})` : code ? ` (${code.trim()})` : '';
}
