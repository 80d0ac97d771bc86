import {
  applyOutputsWithResults,
  type ApplyResult,
  type CanvasDocument,
  HopResponse,
  HopStreamLine,
  MAX_TURN_REQUESTS,
  NDJSON_MEDIA_TYPE,
} from '@canvas-ai/protocol';
import { driveScenario } from '@canvas-ai/protocol/scenario';
import type { CheckContext } from './context.js';
import { type ConformanceClient, type Exchange, isStream } from './http-client.js';
import { EMPTY_DOCUMENT, newRequestId, promptHop } from './requests.js';

/** What the kit asks with: the reference widget's `Accept` (spec §6.1). */
export const STREAM_ACCEPT = `${NDJSON_MEDIA_TYPE}, application/json;q=0.9`;

/** An NDJSON body read line by line: the lines that are `HopStreamLine`s, and what is wrong with the others. */
interface ReadLines {
  lines: HopStreamLine[];
  /** One sentence per line that is not a valid stream line, and a body that does not end with a newline. */
  problems: string[];
}

/** One hop sent asking for a stream, then again asking for JSON, then again asking for a stream (both replays). */
export interface StreamedHop {
  /** `prompt hop 2`, `cookie-shop hop 3`. */
  where: string;
  stream: Exchange;
  read: ReadLines;
  /** The same hop sent again asking for JSON, when the stream ended with a response line. */
  json?: Exchange;
  /** The same hop sent a third time asking for a stream. */
  replay?: Exchange;
  replayRead?: ReadLines;
}

/** Every hop the kit streamed in this run, or why it streamed none. */
export interface StreamRuns {
  hops: StreamedHop[];
  /** Set when the server answered JSON to the first request for a stream: the stream checks do not apply. */
  notStreaming?: string;
}

/** Splits an NDJSON body into its lines and validates each one (spec §6.1). */
function readLines(text: string): ReadLines {
  const read: ReadLines = { lines: [], problems: [] };
  if (!text.endsWith('\n')) read.problems.push('the body does not end with a newline, so its last line is cut short');
  const parts = text.split('\n');
  if (text.endsWith('\n')) parts.pop();
  for (const [index, part] of parts.entries()) {
    let value: unknown;
    try {
      value = JSON.parse(part);
    } catch {
      read.problems.push(`line ${index + 1} is not JSON: ${JSON.stringify(part.slice(0, 80))}`);
      continue;
    }
    const parsed = HopStreamLine.safeParse(value);
    if (parsed.success) read.lines.push(parsed.data);
    else {
      const issue = parsed.error.issues[0]!;
      read.problems.push(
        `line ${index + 1} is not a HopStreamLine (${issue.path.join('.') || 'line'}: ${issue.message})`,
      );
    }
  }
  return read;
}

/**
 * The prompt's turn (and at level 2 every scenario) played asking for streams, each hop then replayed as JSON and as
 * a stream, so the stream checks judge one set of exchanges. Stops streaming at the first answer that is JSON.
 */
export function streamRuns(context: CheckContext): Promise<StreamRuns> {
  return context.once('stream-runs', async () => {
    const runs: StreamRuns = { hops: [] };
    await streamPromptTurn(context.client, context.prompt, runs);
    const fixtures = context.fixtures;
    if (runs.notStreaming !== undefined || context.level < 2 || fixtures === undefined) return runs;
    for (const scenario of fixtures.scenarios) {
      let hop = 0;
      await driveScenario(scenario, {
        endpoint: context.client.options.endpoint,
        fetch: async (input, init) => {
          if ((init?.method ?? 'GET').toUpperCase() !== 'POST') return context.client.fetch(input, init);
          hop += 1;
          const body = init?.body;
          if (typeof body !== 'string') return context.client.fetch(input, init); // multipart hop 1: not streamed here
          const headers: Record<string, string> = {};
          new Headers(init?.headers).forEach((value, name) => {
            headers[name] = value;
          });
          const streamed = await streamHop(context.client, JSON.parse(body), `${scenario.id} hop ${hop}`, headers);
          // A JSON answer after the first stream is allowed (a server MAY answer JSON): nothing to judge.
          if (isStream(streamed.stream.headers)) runs.hops.push(streamed);
          return answerOf(streamed);
        },
        headers: () => context.client.csrfHeaders(),
        fixtures,
        requestId: `conformance-stream-${scenario.id}-${crypto.randomUUID()}`,
      });
    }
    return runs;
  });
}

async function streamPromptTurn(client: ConformanceClient, prompt: string, runs: StreamRuns): Promise<void> {
  const requestId = newRequestId('stream');
  let document: CanvasDocument = EMPTY_DOCUMENT;
  let applyResults: ApplyResult[] | undefined;
  for (let hop = 1; hop <= MAX_TURN_REQUESTS; hop += 1) {
    const streamed = await streamHop(
      client,
      promptHop(requestId, hop, prompt, document, applyResults),
      `prompt hop ${hop}`,
    );
    if (!isStream(streamed.stream.headers)) {
      if (hop === 1)
        runs.notStreaming = `the server does not stream: it answered ${streamed.stream.status} ${streamed.stream.headers.get('content-type') ?? 'without a Content-Type'} to Accept: ${STREAM_ACCEPT}`;
      return;
    }
    runs.hops.push(streamed);
    const last = streamed.read.lines.at(-1);
    if (last?.type !== 'response' || !last.response.should_continue) return;
    const applied = applyOutputsWithResults(document, last.response.outputs);
    document = applied.document;
    applyResults = applied.results;
  }
  await client.cancel(requestId).catch(() => undefined);
}

/**
 * Sends a hop asking for a stream; when it ends with a response, again as JSON and again as a stream. `headers` are
 * the driver's (its CSRF token included); without them the session's token is sent.
 */
async function streamHop(
  client: ConformanceClient,
  request: unknown,
  where: string,
  headers?: Record<string, string>,
): Promise<StreamedHop> {
  const ask = (accept: string) =>
    client.postHop(request, headers ? { csrf: false, headers: { ...headers, accept } } : { headers: { accept } });
  const stream = await ask(STREAM_ACCEPT);
  const streamed: StreamedHop = { where, stream, read: readLines(String(stream.body)) };
  if (!isStream(stream.headers)) return streamed;
  if (streamed.read.lines.at(-1)?.type !== 'response') return streamed;
  streamed.json = await ask('application/json');
  streamed.replay = await ask(STREAM_ACCEPT);
  if (isStream(streamed.replay.headers)) streamed.replayRead = readLines(String(streamed.replay.body));
  return streamed;
}

/** What the stream answered, as the JSON answer a driver reads: the response, or the error line's status and body. */
function answerOf({ stream, read }: StreamedHop): Response {
  if (!isStream(stream.headers)) return Response.json(stream.body, { status: stream.status });
  const last = read.lines.at(-1);
  if (last?.type === 'response') return Response.json(HopResponse.parse(last.response));
  if (last?.type === 'error') return Response.json(last.error, { status: last.status });
  return new Response('the stream ended without its last line', { status: 502 });
}
