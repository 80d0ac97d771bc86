import { applyOutputs, applyOutputsWithResults, type CanvasDocument } from '../layout/apply-outputs.js';
import { jsonEqual } from '../layout/conflicts.js';
import { currentValuesOf } from '../layout/conflicts.js';
import { findComponent } from '../layout/layout-tree.js';
import type { JsonValue } from '../wire/json.js';
import { errorMessage } from '../wire/errors.js';
import type { HopRequestInput } from '../wire/hop-request.js';
import { HopResponse } from '../wire/hop-response.js';
import { PROTOCOL_VERSION } from '../wire/ids.js';
import type { ApplyResult, ToolOutput } from '../wire/outputs.js';
import { checkHop } from './check-hop.js';
import type { Fixtures } from './fixtures.js';
import { collectPlacedUuids } from '../layout/placed-uuids.js';
import { applyPersonEdits } from './person-edits.js';
import type { Scenario, ScenarioAttachment, ScenarioHop } from './scenario.js';
import { answerImage, scenarioAnswer } from './scenario-answers.js';

/** The `answer` a request carries after a waiting hop (spec §20.1). */
type RequestAnswer = NonNullable<HopRequestInput['answer']>;

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
  /** What the driver reported, with the next hop, about this hop's outputs (none for a hop that was not a 200). */
  applyResults: ApplyResult[];
  /** Outputs whose `replaces` is missing or not what the request's document held (spec §16.2); also mismatches. */
  replacesProblems: string[];
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
  let answer: RequestAnswer | undefined;
  let image: ScenarioAttachment | undefined;
  const placed: string[] = [];
  const hops: DrivenHop[] = [];
  let serverWaits = false;

  for (const [index, expected] of scenario.hops.entries()) {
    const hop = index + 1;
    const request = hopRequest(scenario, { requestId, hop, document, applyResults, answer }, options);
    const init = await requestInit(scenario, request, options, image);
    const reply = await doFetch(options.endpoint, init);
    const text = await reply.text();
    const body = decode(text);
    const driven: DrivenHop = {
      hop,
      status: reply.status,
      body,
      mismatches: [],
      applyResults: [],
      replacesProblems: [],
    };
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
    driven.mismatches.push(
      ...checkHop(expected, response, placed, scenario.selected_component, options.fixtures.catalog),
    );

    const placedNow = [...placed, ...collectPlacedUuids(response.outputs, options.fixtures.catalog)];
    driven.replacesProblems = replacesProblems(document, response.outputs);
    const applied = applyHop(document, response.outputs, expected, hop, placedNow, scenario.selected_component);
    document = applied.document;
    applyResults = applied.results;
    driven.applyResults = applied.results;
    driven.mismatches.push(...applied.mismatches);
    placed.push(...collectPlacedUuids(response.outputs, options.fixtures.catalog));
    answer = waitAnswer(response, expected);
    image = answer?.kind === 'screenshot' ? answerImage(expected.answer) : undefined;
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

/** The request of hop `hop` of `scenario`, carrying the document the client holds and the last apply results. */
function hopRequest(
  scenario: Scenario,
  at: {
    requestId: string;
    hop: number;
    document: CanvasDocument;
    applyResults: ApplyResult[] | undefined;
    answer: RequestAnswer | undefined;
  },
  options: DriveScenarioOptions,
): HopRequestInput {
  const request: HopRequestInput = {
    protocol: PROTOCOL_VERSION,
    request_id: at.requestId,
    hop: at.hop,
    context: {
      current_layout: at.document.layout,
      page: at.document.page,
      selected_component: scenario.selected_component,
      extra: {},
    },
  };
  if (scenario.agent !== undefined) request.agent = scenario.agent;
  if (options.conversationId !== undefined) request.conversation_id = options.conversationId;
  if (at.hop === 1) request.messages = [...scenario.history, { role: 'user', text: scenario.user_message }];
  if (at.hop === 1 && scenario.capabilities !== undefined) request.capabilities = scenario.capabilities;
  if (at.applyResults !== undefined) request.apply_results = at.applyResults;
  if (at.answer !== undefined) request.answer = at.answer;
  return request;
}

/**
 * The answer the next request carries (spec §20.1): the scenario's, for what this response waits for. A response
 * that waits where the scenario expects none gets none (its mismatch is already reported), and the server then
 * refuses the next hop.
 */
function waitAnswer(response: HopResponse, expected: ScenarioHop): RequestAnswer | undefined {
  const waiting = response.should_continue ? response.waiting : undefined;
  if (!waiting || !expected.answer) return undefined;
  return scenarioAnswer(waiting, expected.answer);
}

/**
 * How `request` is sent: JSON, or multipart for hop 1 of a scenario with attachments and for the answer that brings
 * a screenshot (`image`, spec §20.3); with the caller's headers.
 */
async function requestInit(
  scenario: Scenario,
  request: HopRequestInput,
  options: DriveScenarioOptions,
  image?: ScenarioAttachment,
): Promise<RequestInit> {
  const headers = new Headers(options.headers ? await options.headers() : undefined);
  if (request.hop === 1 && scenario.attachments.length > 0) {
    return { method: 'POST', headers, body: multipartBody(scenario, request, options.fixtures) };
  }
  if (image) {
    return { method: 'POST', headers, body: multipartBody(scenario, request, options.fixtures, [image]) };
  }
  headers.set('content-type', 'application/json');
  return { method: 'POST', headers, body: JSON.stringify(request) };
}

/**
 * Applies a response's outputs like a host store would, after what the person did while the hop ran
 * (`person_before_outputs`) and before what they do until the next hop (`person_after_outputs`).
 * First every output that knows what it replaces is held to the document the request carried (spec §16.2). By
 * default every output the reducer accepts is applied, and a refusal is a mismatch unless the scenario expects it
 * as a conflict; a hop whose scenario states `apply_results` plays a host that rejects some outputs, so only those
 * reported applied are.
 */
function applyHop(
  sent: CanvasDocument,
  outputs: readonly ToolOutput[],
  expected: ScenarioHop,
  hop: number,
  placed: readonly string[],
  selected: string | null,
): { document: CanvasDocument; results: ApplyResult[]; mismatches: string[] } {
  const mismatches = replacesProblems(sent, outputs).map((problem) => `hop ${hop}: ${problem}`);
  const person = (document: CanvasDocument, edits: ScenarioHop['person_after_outputs']): CanvasDocument => {
    try {
      return applyPersonEdits(document, edits, placed, selected);
    } catch (error) {
      mismatches.push(`hop ${hop}: the scenario's person edits cannot be played: ${errorMessage(error)}`);
      return document;
    }
  };
  const document = person(sent, expected.person_before_outputs);
  if (expected.apply_results !== undefined) {
    const accepted = new Set(
      expected.apply_results.filter((result) => result.status === 'applied').map((result) => result.call_id),
    );
    const applied = applyOutputsWithResults(
      document,
      outputs.filter((output) => accepted.has(output.call_id)),
    );
    mismatches.push(
      ...applied.results
        .filter((result) => result.status === 'rejected')
        .map((result) => `hop ${hop}: output ${result.call_id} could not be applied: ${result.reason}`),
    );
    return {
      document: person(applied.document, expected.person_after_outputs),
      results: expected.apply_results,
      mismatches,
    };
  }
  const applied = applyOutputsWithResults(document, outputs);
  const conflicted = new Set(expected.conflicts);
  for (const result of applied.results) {
    if (result.status === 'applied' && conflicted.has(result.call_id))
      mismatches.push(
        `hop ${hop}: output ${result.call_id} applied, but the person's edit should have made it a conflict`,
      );
    if (result.status === 'rejected' && !(conflicted.has(result.call_id) && result.conflicts?.length))
      mismatches.push(`hop ${hop}: output ${result.call_id} could not be applied: ${result.reason}`);
  }
  for (const callId of conflicted) {
    if (!applied.results.some((result) => result.call_id === callId))
      mismatches.push(`hop ${hop}: no output ${callId} came to conflict with the person's edit`);
  }
  return { document: person(applied.document, expected.person_after_outputs), results: applied.results, mismatches };
}

/**
 * Outputs whose `replaces` is missing or is not what the request's document held when the tool ran (that document
 * with the hop's earlier outputs applied), spec §16.2.
 */
function replacesProblems(sent: CanvasDocument, outputs: readonly ToolOutput[]): string[] {
  const problems: string[] = [];
  let seen = sent;
  for (const output of outputs) {
    if (output.type === 'edit_components') {
      if (output.replaces === undefined) problems.push(`output ${output.call_id} (edit_components) has no replaces`);
      else {
        for (const [uuid, props] of Object.entries(output.component_updates)) {
          const node = findComponent(seen.layout, uuid);
          for (const prop of Object.keys(props)) {
            const held = node && Object.hasOwn(node.props, prop) ? node.props[prop]! : null;
            const said = output.replaces[uuid]?.[prop];
            if (said === undefined || !jsonEqual(said, held))
              problems.push(
                `output ${output.call_id} replaces ${uuid}.${prop} ${said === undefined ? '(not given)' : JSON.stringify(said)}, but the page held ${JSON.stringify(held)}`,
              );
          }
        }
      }
    }
    if (output.type === 'set_page_value') {
      const held = Object.hasOwn(seen.page, output.field) ? seen.page[output.field]! : null;
      if (output.replaces === undefined) problems.push(`output ${output.call_id} (set_page_value) has no replaces`);
      else if (!jsonEqual(output.replaces, held))
        problems.push(
          `output ${output.call_id} replaces the page's ${output.field} ${JSON.stringify(output.replaces)}, but it held ${JSON.stringify(held)}`,
        );
    }
    if (output.type === 'remove_components') {
      for (const uuid of output.uuids) {
        const said = output.replaces?.[uuid];
        const held = findComponent(seen.layout, uuid);
        if (said === undefined)
          problems.push(`output ${output.call_id} (remove_components) has no replaces for ${uuid}`);
        else if (held && !jsonEqual(said as unknown as JsonValue, held as unknown as JsonValue))
          problems.push(`output ${output.call_id} replaces ${uuid} with a component that is not what the page held`);
      }
    }
    if (output.type === 'move_components') {
      for (const uuid of new Set(output.operations.flatMap((operation) => operation.uuids))) {
        const said = output.replaces?.[uuid];
        const held = targetOf(seen, uuid);
        if (said === undefined) problems.push(`output ${output.call_id} (move_components) has no replaces for ${uuid}`);
        else if (held !== undefined && said !== held)
          problems.push(`output ${output.call_id} says ${uuid} was in ${said}, but the page held it in ${held}`);
      }
    }
    try {
      seen = applyOutputs(seen, [output]);
    } catch {
      // An output the page refuses changes nothing; the apply step reports it.
    }
  }
  return problems;
}

/** Hop 1 with attachments: one `request` part (the JSON) and one `attachments` file part per attachment (spec §4.3). */
function multipartBody(
  scenario: Scenario,
  request: HopRequestInput,
  fixtures: Fixtures,
  files: readonly ScenarioAttachment[] = scenario.attachments,
): FormData {
  const form = new FormData();
  form.append('request', JSON.stringify(request));
  for (const attachment of files) {
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

/** Where a component is, as a placement target, or undefined when it is not on the page. */
function targetOf(document: CanvasDocument, uuid: string): string | undefined {
  return currentValuesOf(document).targetOf?.(uuid);
}
