import {
  PROTOCOL_VERSION,
  REQUIRED_OUTPUT_TYPES,
  type ApplyResult,
  type ChatMessage,
  type HopRequest,
  type JsonValue,
  type Layout,
  type PageValues,
  type WaitAnswer,
} from '@canvas-ai/protocol';

/**
 * The host's document at request time: what `getLayout()` returns. A protocol `CanvasDocument` (`{layout, page}`)
 * already is one.
 */
export interface HostDocument {
  layout: Layout;
  page?: PageValues;
  /** The uuid of the component selected in the editor, if any. */
  selectedComponent?: string | null;
  /** Host-specific JSON passed through to the agent's prompts. */
  extra?: JsonValue;
}

/** What one hop request is built from. */
export interface BuildHopRequestInput {
  requestId: string;
  hop: number;
  /** The transcript; sent on hop 1 only. */
  messages: readonly ChatMessage[];
  document: HostDocument;
  agent?: string | undefined;
  conversationId?: string | undefined;
  /** What the host did with the previous hop's outputs; sent from hop 2 on. */
  applyResults?: readonly ApplyResult[] | undefined;
  /**
   * The output types the host applies; those beyond the v1 three are declared on hop 1 as `capabilities.outputs`
   * (spec §5.1), so the server may send them.
   */
  outputTypes?: readonly string[] | undefined;
  /** The kinds of wait the client answers, declared on hop 1 as `capabilities.waits` (spec §20.1). */
  waits?: readonly string[] | undefined;
  /** The person's answer to what the turn waits for, on the hop after a waiting one (spec §20.1). */
  answer?: WaitAnswer | undefined;
}

/**
 * Builds one hop's request object (spec §5), once, before it is serialized per transport (spec §4.1). Optional fields
 * are left out rather than set to `undefined`, so no serializer can turn them into `"undefined"`.
 */
export function buildHopRequest(input: BuildHopRequestInput): HopRequest {
  const request: HopRequest = {
    protocol: PROTOCOL_VERSION,
    request_id: input.requestId,
    hop: input.hop,
    context: {
      current_layout: input.document.layout,
      page: input.document.page ?? {},
      selected_component: input.document.selectedComponent ?? null,
      extra: input.document.extra ?? {},
    },
  };
  if (input.hop === 1) request.messages = [...input.messages];
  if (input.agent !== undefined) request.agent = input.agent;
  if (input.conversationId !== undefined) request.conversation_id = input.conversationId;
  if (input.hop > 1 && input.applyResults !== undefined) request.apply_results = [...input.applyResults];
  const declared = (input.outputTypes ?? []).filter(
    (type) => !(REQUIRED_OUTPUT_TYPES as readonly string[]).includes(type),
  );
  const waits = [...new Set(input.waits ?? [])];
  if (input.hop === 1 && (declared.length > 0 || waits.length > 0))
    // A list with nothing to declare is left out, as before revision 1.7 (the server's default is the empty list).
    request.capabilities = {
      outputs: [...new Set(declared)],
      ...(waits.length > 0 ? { waits } : {}),
    } as NonNullable<HopRequest['capabilities']>;
  if (input.hop > 1 && input.answer !== undefined) request.answer = input.answer;
  return request;
}
