// Planted bugs of revision 1.4: streamed hops (spec §6.1).
import type { CanvasAiApp } from '../../../src/app.js';
import { isHopPost, jsonBody, type Json, realApp, type VariantApp, wrap } from './seams.js';
import { type BrokenVariant, must } from './variant.js';

const NDJSON = 'application/x-ndjson; charset=utf-8';

/** Whether a response is a stream. */
const isStream = (response: Response) =>
  (response.headers.get('content-type') ?? '').startsWith('application/x-ndjson');

/**
 * The real streams with their lines rewritten (a faulty stream writer): `rewrite` gets the lines of each streamed
 * hop, parsed, and whether the same hop was streamed before (a replay), and returns the lines to send.
 */
function rewriteStreams(app: VariantApp, rewrite: (lines: Json[], replay: boolean) => Json[]): VariantApp {
  const streamed = new Set<string>();
  return wrap(
    app,
    async (request, next) => {
      const body = isHopPost(request) ? await jsonBody(request) : undefined;
      const response = await next(request);
      if (!body || !isStream(response)) return response;
      const key = `${String(body.request_id)}#${String(body.hop)}`;
      const replay = streamed.has(key);
      streamed.add(key);
      const lines = (await response.text())
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Json);
      const text = rewrite(lines, replay)
        .map((line) => `${JSON.stringify(line)}\n`)
        .join('');
      return new Response(text, { status: response.status, headers: response.headers });
    },
    { streams: true },
  );
}

/**
 * A stream whose outputs line is sent after the model's first words (a server that forwards the model's text as it
 * comes but writes the outputs when the decision returns), the rest as it was.
 */
function outputsAfterText(app: CanvasAiApp): CanvasAiApp {
  return wrap(
    app,
    async (request, next) => {
      const response = await next(request);
      if (!isHopPost(request) || !(response.headers.get('content-type') ?? '').startsWith('application/x-ndjson'))
        return response;
      const lines = (await response.text()).split('\n').filter((line) => line !== '');
      const typeOf = (line: string) => (JSON.parse(line) as { type: string }).type;
      const outputs = lines.findIndex((line) => typeOf(line) === 'outputs');
      if (outputs !== -1 && lines.some((line) => typeOf(line) === 'text')) {
        const [moved] = lines.splice(outputs, 1);
        lines.splice(lines.findIndex((line) => typeOf(line) === 'text') + 1, 0, moved!);
      }
      return new Response(lines.map((line) => `${line}\n`).join(''), {
        status: response.status,
        headers: response.headers,
      });
    },
    { streams: true },
  );
}

export const STREAM_VARIANTS = {
  'stream-for-any-json-accept': {
    bug: 'a hop is streamed whenever its Accept mentions json (a substring test), so Accept: application/json gets a stream',
    breaks: [must('spec §6.1', 'A server MUST answer a hop whose `Accept` does not name')],
    caughtBy: 'stream.json-without-accept',
    // That check sends each streamed hop again asking for JSON, and gets a stream.
    alsoFailing: ['stream.response-equals-json'],
    build: (fixtures) =>
      wrap(
        realApp(fixtures),
        (request, next) => {
          const accept = request.headers.get('accept') ?? '';
          if (!isHopPost(request) || !accept.includes('json') || accept.includes('x-ndjson')) return next(request);
          const headers = new Headers(request.headers);
          headers.set('accept', 'application/x-ndjson');
          return next(new Request(request, { headers }));
        },
        { streams: true },
      ),
  },
  'stream-without-no-store': {
    bug: 'a stream is sent without Cache-Control: no-store, so a proxy may keep and serve it again',
    breaks: [must('spec §6.1', 'A server that streams MUST answer 200 with')],
    caughtBy: 'stream.content-type',
    build: (fixtures) =>
      wrap(
        realApp(fixtures),
        async (request, next) => {
          const response = await next(request);
          if (!isStream(response)) return response;
          const headers = new Headers(response.headers);
          headers.delete('cache-control');
          return new Response(response.body, { status: response.status, headers });
        },
        { streams: true },
      ),
  },
  'stream-text-lines-named-text': {
    bug: "a stream's text lines carry the model's words in `text` instead of `delta` (not a HopStreamLine)",
    breaks: [must('spec §6.1', 'Every line MUST be one JSON object of the `HopStreamLine` schema')],
    caughtBy: 'stream.lines-valid',
    build: (fixtures) =>
      rewriteStreams(realApp(fixtures), (lines) =>
        lines.map(({ delta, ...line }) => (line.type === 'text' ? { ...line, text: delta } : { ...line, delta })),
      ),
  },
  'stream-final-line-not-flushed': {
    bug: 'a stream closes before its response line is written (the last write is not flushed)',
    breaks: [must('spec §6.1', 'A stream MUST end with exactly one `response` or `error` line')],
    caughtBy: 'stream.one-final-line',
    // Every scenario's hop 1 is lost with its stream, so the kit never cancels those turns: with the question
    // scenarios they pass the session's 32 running turns, and the next new turn gets 429.
    alsoFailing: ['stream.json-without-accept'],
    build: (fixtures) =>
      rewriteStreams(realApp(fixtures), (lines) =>
        lines.filter((line) => line.type !== 'response' && line.type !== 'error'),
      ),
  },
  'stream-response-untrimmed': {
    bug: "a stream's response line carries the answer as streamed, with the model's trailing newline, not trimmed as the JSON answer is",
    breaks: [must('spec §6.1', "The `response` line's `response` MUST be the response")],
    caughtBy: 'stream.response-equals-json',
    build: (fixtures) =>
      rewriteStreams(realApp(fixtures), (lines) =>
        lines.map((line) => {
          const response = line.response as Json | undefined;
          return line.type === 'response' && typeof response?.message === 'string' && response.message !== ''
            ? { ...line, response: { ...response, message: `${response.message}\n` } }
            : line;
        }),
      ),
  },
  'stream-refusals-streamed': {
    bug: 'a hop that asks for a stream and is refused gets a stream holding one error line instead of a JSON error',
    breaks: [must('spec §6.1', 'A request refused before its hop runs')],
    caughtBy: 'stream.refusal-is-json',
    build: (fixtures) =>
      wrap(
        realApp(fixtures),
        async (request, next) => {
          const response = await next(request);
          const asked = (request.headers.get('accept') ?? '').includes('application/x-ndjson');
          if (!isHopPost(request) || !asked || response.status < 400 || isStream(response)) return response;
          const line = { type: 'error', status: response.status, error: await response.json() };
          return new Response(`${JSON.stringify(line)}\n`, { status: 200, headers: { 'content-type': NDJSON } });
        },
        { streams: true },
      ),
  },
  'stream-replay-streamed-anew': {
    bug: 'a repeated hop that asks for a stream is streamed like a live one: its outputs line, its text, then the stored response',
    breaks: [must('spec §6.1', 'that asks for a stream MUST get exactly one line')],
    caughtBy: 'stream.replay-one-line',
    build: (fixtures) =>
      rewriteStreams(realApp(fixtures), (lines, replay) => {
        const response = lines.at(-1)?.response as Json | undefined;
        if (!replay || lines.length !== 1 || response === undefined) return lines;
        const outputs = response.outputs as unknown[];
        return [
          ...(outputs.length > 0 ? [{ type: 'outputs', outputs }] : []),
          ...(response.message ? [{ type: 'text', delta: response.message }] : []),
          lines[0]!,
        ];
      }),
  },
  'stream-outputs-after-text': {
    bug: "a streamed hop's outputs line comes after the model's first words instead of before any text line",
    breaks: [must('spec §6.1', 'The `outputs` line MUST come before')],
    caughtBy: 'stream.outputs-first',
    build: (fixtures) => outputsAfterText(realApp(fixtures)),
  },
} satisfies Record<string, BrokenVariant>;
