import type { CanvasDocument } from '../layout/apply-outputs.js';
import type { Fixtures } from '../scenario/fixtures.js';
import type { Scenario } from '../scenario/scenario.js';
import type { HopRequestInput } from '../wire/hop-request.js';
import { PROTOCOL_VERSION } from '../wire/ids.js';
import type { Layout } from '../wire/layout.js';
import type { ApplyResult } from '../wire/outputs.js';

/** The page a level-1 turn starts from: one empty `content` region. */
export const EMPTY_DOCUMENT: CanvasDocument = { layout: { regions: { content: { components: [] } } }, page: {} };

/** A fresh turn id, recognisable in a server's logs. */
export function newRequestId(label: string): string {
  return `conformance-${label}-${crypto.randomUUID()}`;
}

/** Hop `hop` of a turn that sends `prompt` to the main agent, with the document the client holds now. */
export function promptHop(
  requestId: string,
  hop: number,
  prompt: string,
  document: CanvasDocument = EMPTY_DOCUMENT,
  applyResults?: ApplyResult[],
): HopRequestInput {
  const request: HopRequestInput = {
    protocol: PROTOCOL_VERSION,
    request_id: requestId,
    hop,
    context: { current_layout: document.layout, page: document.page, selected_component: null, extra: {} },
  };
  if (hop === 1) request.messages = [{ role: 'user', text: prompt }];
  if (applyResults !== undefined && applyResults.length > 0) request.apply_results = applyResults;
  return request;
}

/**
 * Hop `hop` of a scenario's turn as JSON (for the kit's own probes; `driveScenario` plays whole scenarios).
 * `layout` replaces the scenario's starting layout, `userMessage` its user message; `undeclared` leaves out the
 * scenario's `capabilities`, as a client of an older revision would.
 */
export function scenarioHop(
  scenario: Scenario,
  fixtures: Fixtures,
  requestId: string,
  hop: number,
  overrides: { layout?: Layout; userMessage?: string; undeclared?: boolean } = {},
): HopRequestInput {
  const layout = overrides.layout ?? fixtures.layouts[scenario.layout];
  if (layout === undefined) throw new Error(`scenario "${scenario.id}": no layout fixture "${scenario.layout}"`);
  const request: HopRequestInput = {
    protocol: PROTOCOL_VERSION,
    request_id: requestId,
    hop,
    context: {
      current_layout: layout,
      page: scenario.page,
      selected_component: scenario.selected_component,
      extra: {},
    },
  };
  if (scenario.agent !== undefined) request.agent = scenario.agent;
  if (hop === 1)
    request.messages = [...scenario.history, { role: 'user', text: overrides.userMessage ?? scenario.user_message }];
  if (hop === 1 && scenario.capabilities !== undefined && !overrides.undeclared)
    request.capabilities = scenario.capabilities;
  return request;
}
