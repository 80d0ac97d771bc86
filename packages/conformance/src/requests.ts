import type { CanvasDocument } from '@canvas-ai/protocol';
import type { Fixtures } from '@canvas-ai/protocol/scenario';
import type { Scenario } from '@canvas-ai/protocol/scenario';
import type { HopRequestInput } from '@canvas-ai/protocol';
import { PROTOCOL_VERSION } from '@canvas-ai/protocol';
import type { Layout } from '@canvas-ai/protocol';
import type { ApplyResult } from '@canvas-ai/protocol';

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

/** An agent no server offers: a request naming it that passes every check of the body gets 400 `unknown_agent`. */
const NO_SUCH_AGENT = 'conformance-no-such-agent';

/**
 * Hop 1 of a fresh turn naming {@link NO_SUCH_AGENT}: the agent is checked after the body and the attachments
 * (spec §7, validation order), so the answer tells whether the body passed the door, and no model is ever called.
 */
export function doorProbe(label: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol: PROTOCOL_VERSION,
    request_id: newRequestId(label),
    hop: 1,
    messages: [{ role: 'user', text: 'Hello' }],
    agent: NO_SUCH_AGENT,
    context: { current_layout: { regions: { content: { components: [] } } } },
    ...overrides,
  };
}
