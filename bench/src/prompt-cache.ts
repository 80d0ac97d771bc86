import { join } from 'node:path';
import { PROTOCOL_VERSION } from '@canvas-ai/protocol';
import { DEFAULT_FIXTURES_DIR, loadFixtures } from '@canvas-ai/protocol/node';
import { driveScenario, type ScenarioReply } from '@canvas-ai/protocol/scenario';
import {
  createApp,
  loadConfig,
  MemoryTurnStore,
  OpenAiCompatibleProvider,
  startServer,
} from '@canvas-ai/reference-server';
import type { PromptCacheResults } from './results.js';
import { round } from './shared/stats.js';
import { startRecordingModel, type RecordedRequest } from './shared/recording-model.js';

/** The turn measured: the demo turn, the page built row by row (fixtures/scenarios/cookie-shop.yaml). */
const SCENARIO_ID = 'cookie-shop';

/** The turn before it: another person's question about another page, to the same agent, answered in one call. */
const EARLIER_TURN = {
  message: 'What is on this page?',
  layout: 'layouts/cookie-shop.yaml',
  reply: {
    text: 'A cookie-shop homepage: a hero, best sellers, the story, testimonials and a footer.',
    tool_calls: [],
  },
} satisfies { message: string; layout: string; reply: ScenarioReply };

/**
 * Prompt cache: how much of each model call's prompt is a byte-identical prefix of the previous call's, which is
 * what OpenAI's and Anthropic's prompt caches reuse. The reference server runs over HTTP on 127.0.0.1 with the real
 * OpenAI-compatible provider pointed at a recording Chat Completions endpoint that plays the scripted replies; a
 * client plays the scenario as the widget does. The prompt of a call is what the provider sent: the tool
 * definitions, then the messages (system prompt first). A one-call turn of another person on another page runs
 * first, so the turn's first call is compared with that one (what a cache warmed by earlier turns offers it).
 */
export async function benchPromptCache(log: (line: string) => void): Promise<PromptCacheResults> {
  const fixtures = await loadFixtures();
  const scenario = fixtures.scenarios.find((candidate) => candidate.id === SCENARIO_ID);
  if (!scenario) throw new Error(`prompt cache: no scenario "${SCENARIO_ID}" in ${DEFAULT_FIXTURES_DIR}`);
  const placed: string[] = [];
  const model = await startRecordingModel([EARLIER_TURN.reply, ...scenario.replies], () => placed);
  const config = await loadConfig({ scenariosDir: join(DEFAULT_FIXTURES_DIR, 'scenarios') });
  const app = createApp({
    agents: config.agents,
    agentsSource: config.agentsFile,
    catalog: config.catalog,
    provider: new OpenAiCompatibleProvider({
      model: 'recorded',
      apiKey: 'none',
      baseURL: model.baseURL,
      maxRetries: 0,
    }),
    docs: config.docs,
    store: new MemoryTurnStore(),
    // The server assigns uuids in placed-reference order (pre-order, spec §15) as it executes a call, before it
    // asks the model again: the endpoint resolves the scenario's `{{placed.N}}` against them, as the scripted
    // provider does (the driver checks every hop against the scenario, so a wrong resolution fails the run).
    newUuid: () => {
      const uuid = crypto.randomUUID();
      placed.push(uuid);
      return uuid;
    },
    log: () => undefined,
  });
  const server = await startServer(app, { port: 0, host: '127.0.0.1' });
  try {
    const headers = await sessionHeaders(server.url);
    await playEarlierTurn(server.url, headers, fixtures.layouts[EARLIER_TURN.layout], scenario.agent);
    const run = await driveScenario(scenario, {
      endpoint: `${server.url}/api/hop`,
      fixtures,
      headers: () => headers,
      requestId: 'prompt-cache-1',
    });
    if (!run.passed) {
      const problems = run.hops.flatMap((hop) => hop.mismatches);
      throw new Error(
        `prompt cache: the ${SCENARIO_ID} turn did not play as its scenario says:\n${problems.join('\n')}`,
      );
    }
    const results = measurePrefixes(model.requests);
    log(
      `prompt cache: ${results.calls.length} calls, ${results.total_chars} prompt chars, ` +
        `${round(results.share * 100, 1)}% a prefix of the previous call's (${round(results.share_cold * 100, 1)}% cold)`,
    );
    return {
      scenario: SCENARIO_ID,
      streamed: model.requests.every((request) => request.body.stream === true),
      ...results,
    };
  } finally {
    await server.close();
    await model.close();
  }
}

/** The cookie and CSRF header of a new session (`GET /api/token`), as the widget sends them. */
async function sessionHeaders(url: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/api/token`);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { token, header } = (await response.json()) as { token: string; header: string };
  return { cookie, [header]: token };
}

/** The earlier turn: one hop, answered by the model without a tool call. */
async function playEarlierTurn(
  url: string,
  headers: Record<string, string>,
  layout: unknown,
  agent: string | undefined,
): Promise<void> {
  if (layout === undefined) throw new Error(`prompt cache: no layout fixture "${EARLIER_TURN.layout}"`);
  const response = await fetch(`${url}/api/hop`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      protocol: PROTOCOL_VERSION,
      request_id: 'prompt-cache-earlier',
      hop: 1,
      ...(agent === undefined ? {} : { agent }),
      messages: [{ role: 'user', text: EARLIER_TURN.message }],
      context: { current_layout: layout, page: {}, selected_component: null, extra: {} },
    }),
  });
  const body = (await response.json()) as { should_continue?: boolean };
  if (response.status !== 200 || body.should_continue !== false) {
    throw new Error(`prompt cache: the earlier turn answered ${response.status}: ${JSON.stringify(body)}`);
  }
}

/** A call's prompt as a cache sees it: the tool definitions, then each message in order. */
export function promptText(request: RecordedRequest): string {
  const messages = (request.body.messages ?? []).map((message) => JSON.stringify(message));
  return [JSON.stringify(request.body.tools ?? []), ...messages].join('\n');
}

/**
 * Per call of the measured turn (every request after the first, which is the earlier turn's), the characters its
 * prompt shares as a prefix with the previous call's; overall, the sum of those over the sum of the prompts.
 * `share_cold` counts the turn's first call as reusing nothing.
 */
export function measurePrefixes(
  requests: readonly RecordedRequest[],
): Omit<PromptCacheResults, 'scenario' | 'streamed'> {
  const prompts = requests.map(promptText);
  const calls = prompts.slice(1).map((prompt, index) => {
    const prefix = commonPrefix(prompts[index]!, prompt);
    return {
      call: index + 1,
      prompt_chars: prompt.length,
      prefix_chars: prefix,
      share: round(prefix / prompt.length, 3),
    };
  });
  const total = calls.reduce((sum, call) => sum + call.prompt_chars, 0);
  const reused = calls.reduce((sum, call) => sum + call.prefix_chars, 0);
  const first = calls[0]?.prefix_chars ?? 0;
  return {
    calls,
    total_chars: total,
    prefix_chars: reused,
    share: total === 0 ? 0 : round(reused / total, 3),
    share_cold: total === 0 ? 0 : round((reused - first) / total, 3),
  };
}

function commonPrefix(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let at = 0;
  while (at < end && a.charCodeAt(at) === b.charCodeAt(at)) at += 1;
  return at;
}
