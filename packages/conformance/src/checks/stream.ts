import { HopErrorBody, type HopStreamLine } from '@canvas-ai/protocol';
import { defineCheck, fail, pass, type CheckVerdict, type ConformanceCheck } from '../check.js';
import type { CheckContext } from '../context.js';
import { describeAnswer, isStream } from '../http-client.js';
import { jsonDifference } from '../json-diff.js';
import { newRequestId, promptHop } from '../requests.js';
import { type StreamedHop, STREAM_ACCEPT, streamRuns } from '../stream-runs.js';
import { verdict } from './invariants.js';

/**
 * Streamed hops (spec §6.1, revision 1.4). They judge the prompt's turn (and at level 2 every scenario) played asking
 * for streams; a server that answers JSON to that request does not stream, and they are skipped, except the two
 * that every server must pass: JSON for a client that does not ask, and refusals as JSON.
 */
export const streamChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'stream.content-type',
    level: 1,
    title:
      'Answers a hop that asks for a stream with 200, Content-Type: application/x-ndjson; charset=utf-8 and Cache-Control: no-store.',
    spec: {
      section: 'stream',
      must: 'A server that streams MUST answer 200 with Content-Type: application/x-ndjson; charset=utf-8 and Cache-Control: no-store.',
    },
    run: (context) =>
      eachStream(context, ({ where, stream }) => {
        const problems: string[] = [];
        if (stream.status !== 200) problems.push(`${where} streamed with status ${stream.status}`);
        const type = (stream.headers.get('content-type') ?? '').toLowerCase().replace(/\s+/g, '');
        if (type !== 'application/x-ndjson;charset=utf-8')
          problems.push(`${where}: Content-Type ${JSON.stringify(stream.headers.get('content-type'))}`);
        if (!/(^|,)\s*no-store\s*(,|$)/i.test(stream.headers.get('cache-control') ?? ''))
          problems.push(`${where}: Cache-Control ${JSON.stringify(stream.headers.get('cache-control'))}, not no-store`);
        return problems;
      }),
  }),
  defineCheck({
    id: 'stream.lines-valid',
    level: 1,
    title: 'Sends every line of a stream as one HopStreamLine (hop-stream-line.schema.json) ending in a newline.',
    spec: {
      section: 'stream',
      must: 'Every line MUST be one JSON object of the HopStreamLine schema followed by \\n.',
    },
    run: (context) =>
      eachStream(context, ({ where, read, replayRead }) =>
        [...read.problems, ...(replayRead?.problems ?? []).map((problem) => `replayed: ${problem}`)].map(
          (problem) => `${where}: ${problem}`,
        ),
      ),
  }),
  defineCheck({
    id: 'stream.outputs-first',
    level: 1,
    title: 'Sends at most one outputs line, before any text line, with the outputs of the final response.',
    spec: {
      section: 'stream',
      must: 'The outputs line MUST come before any text line, and its outputs MUST equal the outputs of the final response.',
    },
    run: (context) =>
      eachStream(
        context,
        ({ where, read: { lines } }) => {
          const outputs = lines.filter((line) => line.type === 'outputs');
          if (outputs.length === 0) return [];
          if (outputs.length > 1) return [`${where} sent ${outputs.length} outputs lines`];
          const at = lines.indexOf(outputs[0]!);
          const text = lines.findIndex((line) => line.type === 'text');
          if (text !== -1 && text < at) return [`${where} sent its outputs line after a text line`];
          const last = lines.at(-1);
          if (last?.type !== 'response') return [];
          const difference = jsonDifference(outputs[0]!.outputs, last.response.outputs);
          return difference ? [`${where}: the outputs line differs from the response's outputs: ${difference}`] : [];
        },
        (hops) =>
          `${hops.filter((hop) => hop.read.lines.some((line) => line.type === 'outputs')).length} with an outputs line`,
      ),
  }),
  defineCheck({
    id: 'stream.one-final-line',
    level: 1,
    title: 'Ends every stream with exactly one response or error line, and nothing after it.',
    spec: {
      section: 'stream',
      must: 'A stream MUST end with exactly one response or error line, and nothing after it.',
    },
    run: (context) =>
      eachStream(context, ({ where, read }) => {
        const finals = read.lines.filter(isFinal).length;
        if (finals === 0 && read.problems.length === 0)
          return [`${where}: the stream ended without a response or error line`];
        if (finals > 1) return [`${where}: ${finals} response or error lines`];
        if (finals === 1 && !isFinal(read.lines.at(-1)!))
          return [`${where}: a ${read.lines.at(-1)!.type} line after the last line`];
        return [];
      }),
  }),
  defineCheck({
    id: 'stream.response-equals-json',
    level: 1,
    title:
      'Streams the response the same hop gets as JSON: the response line equals the JSON answer to the hop sent again.',
    spec: { section: 'stream', must: "The response line's response MUST be the response this hop gets as JSON." },
    run: (context) =>
      eachStream(context, ({ where, read, json }) => {
        const last = read.lines.at(-1);
        if (last?.type !== 'response' || json === undefined) return [];
        if (json.status !== 200 || isStream(json.headers))
          return [
            `${where} sent again asking for JSON answered ${describeAnswer(json)}${isStream(json.headers) ? ' as a stream' : ''}`,
          ];
        const difference = jsonDifference(last.response, json.body);
        return difference ? [`${where}: the response line differs from the JSON answer: ${difference}`] : [];
      }),
  }),
  defineCheck({
    id: 'stream.replay-one-line',
    level: 1,
    title:
      'Answers a repeated hop that asks for a stream with exactly one line: the response line of the stored response.',
    spec: {
      section: 'stream',
      must: 'A repeated hop that asks for a stream MUST get exactly one line: the response line of the stored response.',
    },
    run: (context) =>
      eachStream(context, ({ where, read, replay, replayRead }) => {
        const last = read.lines.at(-1);
        if (last?.type !== 'response' || replay === undefined) return [];
        if (replayRead === undefined)
          return [`${where} sent again asking for a stream answered ${describeAnswer(replay)}, not a stream`];
        if (replayRead.lines.length !== 1 || replayRead.lines[0]!.type !== 'response')
          return [
            `${where} sent again got ${replayRead.lines.length} lines (${replayRead.lines.map((line) => line.type).join(', ')}), not one response line`,
          ];
        const difference = jsonDifference(last.response, replayRead.lines[0]!.response);
        return difference ? [`${where} sent again streamed another response: ${difference}`] : [];
      }),
  }),
  defineCheck({
    id: 'stream.json-without-accept',
    level: 1,
    title: 'Answers JSON to a hop whose Accept does not name application/x-ndjson (none, or application/json).',
    spec: {
      section: 'stream',
      must: 'A server MUST answer a hop whose Accept does not name application/x-ndjson with JSON.',
    },
    async run(context) {
      const problems: string[] = [];
      for (const accept of [undefined, 'application/json']) {
        const id = newRequestId('json');
        const sent = await context.client.postHop(promptHop(id, 1, context.prompt), {
          headers: accept === undefined ? {} : { accept },
        });
        await context.client.cancel(id).catch(() => undefined);
        const what = accept === undefined ? 'a hop without Accept' : `a hop with Accept: ${accept}`;
        if (isStream(sent.headers)) problems.push(`${what} was answered with a stream`);
        else if (sent.status !== 200 || !sent.json) problems.push(`${what} answered ${describeAnswer(sent)}`);
      }
      return verdict(problems, 'both answered JSON');
    },
  }),
  defineCheck({
    id: 'stream.refusal-is-json',
    level: 1,
    title:
      'Refuses a hop that asks for a stream before it runs (an unknown turn, an invalid body, no CSRF token) with a JSON error.',
    spec: {
      section: 'stream',
      must: 'A request refused before its hop runs MUST get a plain JSON error with its status, never a stream.',
    },
    async run(context) {
      const accept = { accept: STREAM_ACCEPT };
      // Only the form is judged here: which status each refusal gets is the turn rules' and the door's checks' matter.
      const refusals = [
        {
          what: 'hop 2 of an unknown turn',
          sent: await context.client.postHop(promptHop(newRequestId('refused'), 2, context.prompt), {
            headers: accept,
          }),
        },
        {
          what: 'a hop without request_id',
          sent: await context.client.postHop({ protocol: 'canvas-ai/1', hop: 1 }, { headers: accept }),
        },
      ];
      if (context.client.options.tokenEndpoint !== undefined) {
        const request = promptHop(newRequestId('refused'), 1, context.prompt);
        const sent = await context.client.postHop(request, { csrf: false, headers: accept });
        refusals.push({ what: 'a hop without its CSRF token', sent });
      }
      const problems = refusals.flatMap(({ what, sent }) => {
        if (isStream(sent.headers)) return [`${what} was answered with a stream`];
        if (sent.status < 400) return [`${what} answered ${describeAnswer(sent)}, not a refusal`];
        return HopErrorBody.safeParse(sent.body).success
          ? []
          : [`${what} answered ${sent.status} without a JSON error body`];
      });
      return verdict(problems, `${refusals.length} refusals answered as JSON errors`);
    },
  }),
];

function isFinal(line: HopStreamLine): boolean {
  return line.type === 'response' || line.type === 'error';
}

/** Judges every streamed hop of the run, or skips when the server does not stream. */
async function eachStream(
  context: CheckContext,
  judge: (hop: StreamedHop) => string[],
  extra?: (hops: readonly StreamedHop[]) => string,
): Promise<CheckVerdict> {
  const runs = await streamRuns(context);
  // The stream checks run only for a server that claims streaming (--parts): one that answers JSON breaks its claim.
  if (runs.notStreaming !== undefined)
    return fail(`${runs.notStreaming}, though it claims streaming (leave streaming out of --parts)`);
  if (runs.hops.length === 0) return fail('no hop was streamed');
  const replayed = runs.hops.filter((hop) => hop.replay !== undefined).length;
  const why = `${runs.hops.length} streamed hop(s), ${replayed} replayed${extra ? `, ${extra(runs.hops)}` : ''}`;
  const problems = runs.hops.flatMap(judge);
  return problems.length === 0 ? pass(why) : verdict(problems, why);
}
