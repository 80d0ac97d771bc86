// Tracing (spec §4.7): one trace per turn from the traceparent the client sends on every hop, the hop's span tree,
// a malformed traceparent ignored, and nothing recorded or wrapped without an SDK.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { applyOutputsWithResults, type Layout } from '@canvas-ai/protocol';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { ModelReply } from '../src/providers/model-provider.js';
import { inSpan, requestTraceContext, tracedTools } from '../src/tracing.js';
import {
  EMPTY_LAYOUT,
  firstHop,
  laterHop,
  openSession,
  startTestServer,
  type JsonBody,
  type TestSession,
} from './support/harness.js';
import { ListProvider } from './support/providers.js';
import { type RecordedSpan, registerRecordingTracer, type RecordingTracer } from './support/recording-tracer.js';

const AGENT = { agent: 'page_builder' };
const HERO_ARGS = JSON.stringify({
  operations: [
    { target: 'content', placement: 'inside', components: '- sdc.demo.hero:\n    props:\n      heading: Hi\n' },
  ],
});
const placesHero = (): ModelReply => ({
  text: 'I will add a hero.',
  toolCalls: [{ id: 'c1', name: 'place_components', arguments: HERO_ARGS }],
  usage: { input_tokens: 900, output_tokens: 30, cached_input_tokens: 600 },
});
const answers = (): ModelReply => ({ text: 'Done.', toolCalls: [] });

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** POSTs a hop with extra headers. */
async function post(session: TestSession, url: string, body: unknown, headers: Record<string, string>) {
  const reply = await fetch(url, {
    method: 'POST',
    headers: session.headers({ 'content-type': 'application/json', ...headers }),
    body: JSON.stringify(body),
  });
  return { status: reply.status, body: (await reply.json()) as JsonBody };
}

/** Plays the three hops of "place a hero, then answer" with `headers(hop)` on each; returns the bodies. */
async function heroTurn(
  url: string,
  session: TestSession,
  id: string,
  headers: (hop: number) => Record<string, string>,
) {
  const bodies: JsonBody[] = [];
  let layout: Layout = EMPTY_LAYOUT;
  for (let hop = 1; hop <= 3; hop += 1) {
    const request = hop === 1 ? firstHop(id, 'Add a hero', AGENT) : laterHop(id, hop, layout, AGENT);
    const sent = await post(session, url, request, headers(hop));
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    bodies.push(sent.body);
    layout = applyOutputsWithResults({ layout, page: {} }, sent.body.outputs).document.layout;
    if (!sent.body.should_continue) break;
  }
  return bodies;
}

/** The ids in a response that differ from turn to turn, blanked. */
const withoutIds = (body: JsonBody) =>
  JSON.parse(JSON.stringify(body).replace(/"(request_id|uuid)":"[^"]+"/g, '"$1":""'));

describe('a traceparent is read, never refused (spec §4.7)', () => {
  const traceId = hex(16);
  const spanId = hex(8);
  it('continues a well-formed traceparent, its sampled flag and tracestate', () => {
    const headers = new Headers({ traceparent: `00-${traceId}-${spanId}-01`, tracestate: 'vendor=abc' });
    const parent = trace.getSpanContext(requestTraceContext(headers));
    assert.deepEqual(
      { ...parent, traceState: parent?.traceState?.serialize() },
      { traceId, spanId, traceFlags: 1, isRemote: true, traceState: 'vendor=abc' },
    );
    const later = trace.getSpanContext(
      requestTraceContext(new Headers({ traceparent: `01-${traceId}-${spanId}-00-x` })),
    );
    assert.equal(later?.traceId, traceId, 'a later version may carry more fields');
  });

  it('ignores what is not a traceparent: the hop starts a trace of its own', () => {
    for (const value of [
      'garbage',
      `00-${traceId}-${spanId}`,
      `00-${traceId.toUpperCase()}-${spanId}-01`,
      `00-${'0'.repeat(32)}-${spanId}-01`,
      `00-${traceId}-${'0'.repeat(16)}-01`,
      `ff-${traceId}-${spanId}-01`,
      `00-${traceId}-${spanId}-01-more`,
      `00-${traceId}-${spanId}-01${'x'.repeat(600)}`,
    ])
      assert.equal(requestTraceContext(new Headers({ traceparent: value })), ROOT_CONTEXT, value);
  });
});

describe('without an OpenTelemetry SDK', () => {
  it('records nothing and wraps no tool: the spans are the API’s no-op', async () => {
    const tools = {};
    let recording: boolean | undefined;
    await inSpan('canvas_ai.check', async (span) => {
      recording = span.isRecording();
      assert.equal(tracedTools(tools), tools, 'the same record, nothing wrapped');
    });
    assert.equal(recording, false);
  });

  it('answers a turn with a traceparent exactly as one without', async () => {
    const server = await startTestServer({
      provider: new ListProvider([placesHero(), answers(), placesHero(), answers()]),
    });
    try {
      const session = await openSession(server);
      const traced = await heroTurn(server.hopUrl, session, 'no-sdk-1', () => ({
        traceparent: `00-${hex(16)}-${hex(8)}-01`,
      }));
      const plain = await heroTurn(server.hopUrl, session, 'no-sdk-2', () => ({}));
      assert.deepEqual(traced.map(withoutIds), plain.map(withoutIds));
    } finally {
      await server.close();
    }
  });
});

describe('with an OpenTelemetry SDK registered', () => {
  let tracer: RecordingTracer;
  let off: () => void;
  before(() => {
    ({ tracer, off } = registerRecordingTracer());
  });
  after(() => off());

  it('makes a turn one trace: every hop a child of the request that sent it, with its steps below it', async () => {
    const server = await startTestServer({ provider: new ListProvider([placesHero(), answers()]) });
    try {
      const session = await openSession(server);
      const traceId = hex(16);
      const sent: string[] = [];
      const bodies = await heroTurn(server.hopUrl, session, 'traced-1', () => {
        sent.push(hex(8));
        return { traceparent: `00-${traceId}-${sent.at(-1)}-01` };
      });
      assert.equal(bodies.length, 3);
      const hops = tracer.spans.filter((span) => span.name === 'canvas_ai.hop');
      assert.equal(hops.length, 3);
      assert.deepEqual(
        hops.map((span) => [span.traceId, span.parentSpanId]),
        sent.map((spanId) => [traceId, spanId]),
        'one trace id for the turn, each hop under the span id its request carried',
      );
      assert.deepEqual(
        hops.map((span) => [
          span.attributes['canvas_ai.request_id'],
          span.attributes['canvas_ai.hop'],
          span.attributes['canvas_ai.agent'],
        ]),
        [
          ['traced-1', 1, 'page_builder'],
          ['traced-1', 2, 'page_builder'],
          ['traced-1', 3, 'page_builder'],
        ],
      );
      assert.ok(hops.every((span) => span.ended && span.attributes['http.response.status_code'] === 200));

      const children = (parent: RecordedSpan) =>
        tracer.spans.filter((span) => span.parentSpanId === parent.spanId).map((span) => span.name);
      assert.deepEqual(children(hops[0]!), [
        'canvas_ai.door',
        'canvas_ai.store.lock',
        'canvas_ai.store.load',
        'canvas_ai.model',
        'canvas_ai.store.save',
      ]);
      assert.deepEqual(children(hops[1]!), [
        'canvas_ai.door',
        'canvas_ai.store.lock',
        'canvas_ai.store.load',
        'canvas_ai.tool',
        'canvas_ai.model',
        'canvas_ai.store.save',
      ]);
      assert.deepEqual(
        children(hops[2]!),
        ['canvas_ai.door', 'canvas_ai.store.lock', 'canvas_ai.store.load', 'canvas_ai.store.save'],
        'the held answer: no model call',
      );
      const tool = tracer.spans.find((span) => span.name === 'canvas_ai.tool')!;
      assert.equal(tool.attributes['canvas_ai.tool.name'], 'place_components');
      const [first, second] = tracer.spans.filter((span) => span.name === 'canvas_ai.model');
      assert.deepEqual(
        [
          first!.attributes['gen_ai.usage.input_tokens'],
          first!.attributes['gen_ai.usage.output_tokens'],
          first!.attributes['gen_ai.usage.cache_read.input_tokens'],
        ],
        [900, 30, 600],
      );
      assert.equal(second!.attributes['gen_ai.usage.input_tokens'], undefined, 'no usage reported, none recorded');
      assert.ok(
        tracer.spans.every((span) => span.ended),
        'every span ended',
      );
    } finally {
      await server.close();
    }
  });

  it('answers a hop with a malformed traceparent as without it, in a trace of its own', async () => {
    const server = await startTestServer({ provider: new ListProvider([answers()]) });
    try {
      const session = await openSession(server);
      const before = tracer.spans.length;
      const sent = await post(session, server.hopUrl, firstHop('traced-bad', 'Hi', AGENT), {
        traceparent: 'not-a-traceparent',
        tracestate: '===,,',
      });
      assert.equal(sent.status, 200);
      assert.equal(sent.body.message, 'Done.');
      const hop = tracer.spans.slice(before).find((span) => span.name === 'canvas_ai.hop')!;
      assert.equal(hop.parentSpanId, undefined);
    } finally {
      await server.close();
    }
  });

  it('marks the hop span failed when the hop answers 5xx, and the model span with the error', async () => {
    const server = await startTestServer({ provider: new ListProvider([new Error('socket hang up')]) });
    try {
      const session = await openSession(server);
      const before = tracer.spans.length;
      const sent = await post(session, server.hopUrl, firstHop('traced-fail', 'Hi', AGENT), {});
      assert.equal(sent.status, 502);
      const spans = tracer.spans.slice(before);
      const hop = spans.find((span) => span.name === 'canvas_ai.hop')!;
      assert.equal(hop.attributes['http.response.status_code'], 502);
      assert.equal(hop.status.code, 2);
      assert.equal(spans.find((span) => span.name === 'canvas_ai.model')!.status.message, 'socket hang up');
    } finally {
      await server.close();
    }
  });
});
