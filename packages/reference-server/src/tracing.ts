/**
 * OpenTelemetry spans of a hop, through `@opentelemetry/api` only: without an SDK the operator registers, every span
 * is the API's no-op and costs next to nothing. With one, a turn is one trace: the widget sends the turn's trace id
 * in `traceparent` on every hop (spec §4.7) and each hop's spans continue it.
 */
import {
  type Attributes,
  type Context,
  context,
  createTraceState,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type { ToolDefinition } from '@canvas-ai/protocol/server';
import type { ModelProvider, ModelReply, ModelRequest, ModelUsage } from './providers/model-provider.js';

/** The tracer of the reference server; the API hands out a no-op one until an SDK is registered. */
function tracer(): Tracer {
  return trace.getTracer('@canvas-ai/reference-server');
}

/** `version-traceid-parentid-flags`, lowercase hex; a later version may append fields after a `-` (W3C). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZEROS = /^0+$/;

/**
 * The context a request's `traceparent` (and `tracestate`) names, or the root context when there is none or it cannot
 * be read: a malformed header is ignored, never refused (spec §4.7). Parsed by hand, so it works with no propagator
 * registered; the header is at most a few dozen characters to look at.
 */
export function requestTraceContext(headers: Headers): Context {
  const header = headers.get('traceparent')?.trim();
  const match = header && header.length <= 512 ? TRACEPARENT.exec(header) : null;
  if (!match) return ROOT_CONTEXT;
  const [, version, traceId, spanId, flags, more] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  // Version ff is invalid; version 00 has exactly four fields.
  if (version === 'ff' || (version === '00' && more !== undefined)) return ROOT_CONTEXT;
  if (ALL_ZEROS.test(traceId) || ALL_ZEROS.test(spanId)) return ROOT_CONTEXT;
  const state = headers.get('tracestate');
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & 1,
    isRemote: true,
    ...(state && state.length <= 512 ? { traceState: createTraceState(state) } : {}),
  });
}

/**
 * Runs `work` as the `canvas_ai.hop` span of one request, continuing the trace its headers name: the span is active
 * for everything the hop runs, so the spans below are its children. `finish` gets the answer's HTTP status.
 */
export async function inHopSpan(request: Request, work: () => Promise<number>): Promise<void> {
  const parent = requestTraceContext(request.headers);
  const span = tracer().startSpan(
    'canvas_ai.hop',
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method } },
    parent,
  );
  try {
    const status = await context.with(trace.setSpan(parent, span), work);
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Names the turn on the active hop span, once the request is read (spec §5). */
export function describeHopSpan(attributes: { requestId: string; hop: number; agent: string }): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttributes({
    'canvas_ai.request_id': attributes.requestId,
    'canvas_ai.hop': attributes.hop,
    'canvas_ai.agent': attributes.agent,
  });
}

/** Runs `work` in a child span of the active one, marked failed when it throws. */
export function inSpan<T>(name: string, work: (span: Span) => Promise<T>, attributes?: Attributes): Promise<T> {
  return tracer().startActiveSpan(name, attributes ? { attributes } : {}, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A model call's reported tokens as span attributes (the GenAI semantic conventions' names). */
function recordUsage(span: Span, usage: ModelUsage | undefined): void {
  if (!usage || !span.isRecording()) return;
  span.setAttributes({
    'gen_ai.usage.input_tokens': usage.input_tokens,
    'gen_ai.usage.output_tokens': usage.output_tokens,
    'gen_ai.usage.cache_read.input_tokens': usage.cached_input_tokens,
  });
}

/**
 * The tools with each execution in a `canvas_ai.tool` span named after the tool; the tools as they are when the hop
 * is not traced (no SDK, or not sampled), so an untraced hop wraps nothing.
 */
export function tracedTools(tools: Record<string, ToolDefinition>): Record<string, ToolDefinition> {
  if (!trace.getActiveSpan()?.isRecording()) return tools;
  const traced: Record<string, ToolDefinition> = {};
  for (const [name, tool] of Object.entries(tools)) {
    // The tool itself as prototype: a tool that is a class instance keeps its getters and its `this`.
    traced[name] = Object.assign(Object.create(tool) as ToolDefinition, {
      execute: (input: unknown, toolContext: Parameters<ToolDefinition['execute']>[1]) =>
        inSpan('canvas_ai.tool', async () => tool.execute(input, toolContext), { 'canvas_ai.tool.name': name }),
    });
  }
  return traced;
}

/** One model decision in a `canvas_ai.model` span, with the tokens it reported when it did. */
export function tracedDecision(provider: ModelProvider, request: ModelRequest): Promise<ModelReply> {
  return inSpan(
    'canvas_ai.model',
    async (span) => {
      const reply = await provider.decide(request);
      recordUsage(span, reply.usage);
      return reply;
    },
    { 'canvas_ai.model.provider': provider.name, 'canvas_ai.model.decision': request.turn.decision },
  );
}

function failed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
