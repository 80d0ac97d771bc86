import { errorMessage } from '@canvas-ai/protocol';
import { builtinTools, isHopError } from '@canvas-ai/protocol/server';
import type { ModelProvider, ModelReply, ModelRequest } from './providers/model-provider.js';

/** Where `checkModel` writes its verdict lines. */
export interface CheckModelOutput {
  write(line: string): void;
}

/**
 * `canvas-ai-server check-model`: whether a configured model is usable by this server, in plain words. It sends one
 * tool-calling request and a streamed request twice (the same long prefix, to see cached tokens) through any
 * {@link ModelProvider}, and says per line: tool calls work, one call at a time is honoured, streaming works, cached
 * tokens are reported, and how long each took. Resolves whether the model is usable (tool calls work and every
 * call succeeded); a failed call is a verdict line, never a stack trace.
 */
export async function checkModel(provider: ModelProvider, out: CheckModelOutput): Promise<boolean> {
  const line = (verdict: Verdict, text: string) => out.write(`${verdict.padEnd(8)}${text}`);
  const tools = await timed(provider, toolRequest());
  if ('failed' in tools) {
    line('FAIL', `tool calls: the model call failed. ${tools.failed}`);
    line('FAIL', 'not usable (the other checks were not run)');
    return false;
  }
  const usable = judgeToolCalls(tools.reply, tools.ms, line);

  const first = await timed(provider, streamedRequest());
  if ('failed' in first) {
    line('FAIL', `streaming: the model call failed. ${first.failed}`);
    line('FAIL', 'not usable');
    return false;
  }
  const pieces = first.pieceTimes.length;
  const firstPiece = first.pieceTimes[0];
  if (pieces >= 2 && firstPiece !== undefined && firstPiece < first.ms) {
    line(
      'ok',
      `streaming works: ${pieces} pieces, the first after ${firstPiece} ms, the whole answer after ${first.ms} ms`,
    );
  } else {
    line(
      'warning',
      `streaming: the answer came in ${pieces === 0 ? 'no text' : 'one piece'} after ${first.ms} ms, so the person ` +
        'sees nothing until the model is done (the endpoint does not stream)',
    );
  }

  const repeat = await timed(provider, streamedRequest());
  if ('failed' in repeat) {
    line('FAIL', `cached tokens: the repeated call failed. ${repeat.failed}`);
    line('FAIL', 'not usable');
    return false;
  }
  const usage = repeat.reply.usage;
  if (!usage) {
    line('warning', `usage is not reported, so cached tokens cannot be seen (the repeat took ${repeat.ms} ms)`);
  } else if (usage.cached_input_tokens > 0) {
    line(
      'ok',
      `cached tokens are reported: ${usage.cached_input_tokens} of ${usage.input_tokens} prompt tokens came from the ` +
        `cache on the repeat (${repeat.ms} ms)`,
    );
  } else {
    line(
      'warning',
      `no cached tokens on the repeat (${usage.input_tokens} prompt tokens, ${repeat.ms} ms): the endpoint caches no ` +
        'prompts or does not say so, and every hop pays for its whole prompt',
    );
  }
  line(usable ? 'ok' : 'FAIL', usable ? 'usable with canvas-ai-server' : 'not usable: its tool calls do not work');
  return usable;
}

type Verdict = 'ok' | 'warning' | 'FAIL';

/** The verdicts on the tool-calling reply; whether tool calls work. */
function judgeToolCalls(reply: ModelReply, ms: number, line: (verdict: Verdict, text: string) => void): boolean {
  const calls = reply.toolCalls;
  if (calls.length === 0) {
    line('FAIL', `tool calls: the model answered in text and called no tool (${ms} ms); it cannot edit pages here`);
    return false;
  }
  const tool = DETAILS_TOOL;
  const wrong = calls.find((call) => call.name !== tool.name || !argumentsFit(call.arguments));
  if (wrong) {
    line(
      'FAIL',
      `tool calls: the model called ${JSON.stringify(wrong.name)} with arguments ${clip(wrong.arguments)}, not ` +
        `${tool.name} with arguments that fit its parameters (${ms} ms)`,
    );
    return false;
  }
  line('ok', `tool calls work: ${tool.name} with arguments that fit its parameters (${ms} ms)`);
  if (calls.length === 1) line('ok', 'one call at a time is honoured (one call in the reply)');
  else {
    line(
      'warning',
      `one call at a time is not honoured: ${calls.length} calls in one reply; the server runs place_components one ` +
        'at a time and refuses the others, so turns take more hops',
    );
  }
  return true;
}

function argumentsFit(text: string): boolean {
  try {
    return DETAILS_TOOL.input.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
}

const DETAILS_TOOL = builtinTools.get_component_details;

/** One decision, timed, with the moments its narration pieces arrived; a failure as one plain sentence. */
async function timed(
  provider: ModelProvider,
  request: ModelRequest,
): Promise<{ reply: ModelReply; ms: number; pieceTimes: number[] } | { failed: string }> {
  const started = performance.now();
  const pieceTimes: number[] = [];
  try {
    const reply = await provider.decide({
      ...request,
      onText: () => pieceTimes.push(Math.round(performance.now() - started)),
    });
    return { reply, ms: Math.round(performance.now() - started), pieceTimes };
  } catch (error) {
    // A provider's HopError keeps what to check in `detail` (the log's text); the message is the person's.
    const detail = isHopError(error) ? (error.detail ?? error.message) : errorMessage(error);
    return { failed: detail.split('\n')[0]! };
  }
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

const TURN = { userMessage: '', decision: 1, placedUuids: [], selectedComponent: null } as const;

/** Two lookups asked for at once: a model that honours one call at a time makes one call. */
function toolRequest(): ModelRequest {
  const text =
    'Look up the details of two components with get_component_details: first sdc.demo.hero, then, in a separate ' +
    'call, sdc.demo.footer.';
  return {
    agentId: 'check-model',
    mainAgent: 'check-model',
    system: 'You help build web pages. Use the tools to look things up before you answer.',
    messages: [{ role: 'user', text, attachments: [] }],
    tools: [DETAILS_TOOL, builtinTools.place_components],
    turn: { ...TURN, userMessage: text },
  };
}

/** A long, fixed prefix (well past the 1,024 tokens prompt caches start at), then a short question. */
function streamedRequest(): ModelRequest {
  const text = 'In two short sentences, greet a person who is building the home page of a bakery.';
  return {
    agentId: 'check-model',
    mainAgent: 'check-model',
    system: LONG_PREFIX,
    messages: [{ role: 'user', text, attachments: [] }],
    tools: [],
    turn: { ...TURN, userMessage: text },
  };
}

const LONG_PREFIX = [
  'You are a friendly assistant of a page editor. Reference notes follow; they do not change your answer.',
  ...Array.from(
    { length: 160 },
    (_, index) =>
      `Note ${index + 1}: section ${index % 7} of the style guide keeps headings short, paragraphs plain and ` +
      `buttons labelled by what they do.`,
  ),
].join('\n');
