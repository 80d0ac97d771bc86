import { applyOutputsWithResults, type CanvasDocument, type ToolOutput } from '@canvas-ai/protocol';
import {
  createApp,
  loadConfig,
  MemoryTurnStore,
  type ModelProvider,
  type ModelReply,
  type ModelRequest,
  ScriptedProvider,
  silentLogger,
  startServer,
} from '@canvas-ai/reference-server';
import { startTurn } from '@canvas-ai/widget/loop';
import type { BenchProfile } from './profiles.js';
import type { LiveModelResults } from './results.js';
import { median, round } from './shared/stats.js';

/** The turn this group runs: the demo's, five rows placed one per hop (fixtures/scenarios/cookie-shop.yaml). */
const SCENARIO = 'cookie-shop';

/**
 * A model of fixed latency: every decision takes `latencyMs`; its first word comes `firstTokenMs` after the call, the
 * others evenly until the end, each handed to `onText` as it "arrives" (the scripted provider decides what is said).
 * Records when the turn's first word came, so the client's first narration character is compared with it.
 */
class FixedLatencyModel implements ModelProvider {
  readonly name = 'fixed-latency';
  /** When the first word of the current run was handed out (performance.now()), per user message. */
  firstTokenAt: number | undefined;

  constructor(
    private readonly inner: ModelProvider,
    private readonly latencyMs: number,
    private readonly firstTokenMs: number,
  ) {}

  async decide(request: ModelRequest): Promise<ModelReply> {
    const called = performance.now();
    const { onText, ...rest } = request;
    const reply = await this.inner.decide(rest);
    const words = reply.text.match(/\S+\s*/g) ?? [];
    for (const [index, word] of words.entries()) {
      const at = this.firstTokenMs + ((this.latencyMs - this.firstTokenMs) * index) / Math.max(words.length, 1);
      await sleepUntil(called + at);
      this.firstTokenAt ??= performance.now();
      onText?.(word);
    }
    await sleepUntil(called + this.latencyMs);
    return reply;
  }
}

/**
 * The live model: the cookie-shop turn through the real hop loop (in this process, as a React host runs it) and the
 * real reference server over HTTP on 127.0.0.1, behind a model of fixed latency L, once asking for JSON and once for
 * the streamed hop (spec §6). Figures are ratios: when each row reached the page ÷ L, and the first narration
 * character ÷ the time to the model's first word, each the median over the repetitions.
 */
export async function benchLiveModel(
  profile: BenchProfile['liveModel'],
  log: (line: string) => void,
): Promise<LiveModelResults> {
  const config = await loadConfig();
  const scenario = config.scenarios.find((candidate) => candidate.id === SCENARIO);
  if (!scenario) throw new Error(`the ${SCENARIO} scenario is not among the fixtures`);
  const model = new FixedLatencyModel(new ScriptedProvider(config.scenarios), profile.latencyMs, profile.firstTokenMs);
  const app = createApp({
    agents: config.agents,
    catalog: config.catalog,
    provider: model,
    store: new MemoryTurnStore(),
    security: { csrf: false, sessionId: () => 'bench-live-model' },
    log: silentLogger,
  });
  const server = await startServer(app, { port: 0, host: '127.0.0.1' });
  try {
    const runs = { json: [] as TurnTimes[], stream: [] as TurnTimes[] };
    // Alternated, so drift on a shared machine hits both alike; the first pair warms up and is dropped.
    for (let repetition = 0; repetition <= profile.repetitions; repetition += 1) {
      for (const mode of ['json', 'stream'] as const) {
        const times = await timeTurn(`${server.url}/api/hop`, mode === 'stream', scenario, model);
        if (repetition > 0) runs[mode].push(times);
      }
    }
    const modes = (['json', 'stream'] as const).map((mode) => {
      const times = runs[mode];
      const rowsMs = times[0]!.rowsMs.map((_, row) => round(median(times.map((turn) => turn.rowsMs[row]!))));
      const firstNarrationMs = round(median(times.map((turn) => turn.firstNarrationMs)));
      const firstTokenMs = round(median(times.map((turn) => turn.firstTokenMs)));
      const figures = {
        mode,
        rows_ms: rowsMs,
        row_ratios: rowsMs.map((ms) => round(ms / profile.latencyMs)),
        first_narration_ms: firstNarrationMs,
        first_token_ms: firstTokenMs,
        first_narration_ratio: round(firstNarrationMs / firstTokenMs),
        turn_ms: round(median(times.map((turn) => turn.turnMs))),
      };
      log(
        `live model ${mode}: rows at ${figures.row_ratios.join(', ')} × L, first narration ${figures.first_narration_ratio} × first token`,
      );
      return figures;
    });
    return {
      latency_ms: profile.latencyMs,
      first_token_ms: profile.firstTokenMs,
      repetitions: profile.repetitions,
      modes,
    };
  } finally {
    await server.close();
  }
}

/** What one turn measured, in ms from the moment it was started. */
interface TurnTimes {
  /** When each top-level row reached the page, in order. */
  rowsMs: number[];
  /** When the first character of narration reached the client (a text line, or a response's `progress`). */
  firstNarrationMs: number;
  /** When the model handed out its first word. */
  firstTokenMs: number;
  turnMs: number;
}

async function timeTurn(
  endpoint: string,
  stream: boolean,
  scenario: { user_message: string; agent?: string | undefined },
  model: FixedLatencyModel,
): Promise<TurnTimes> {
  let document: CanvasDocument = { layout: { regions: { content: { components: [] } } }, page: {} };
  const rowsMs: number[] = [];
  let firstNarrationMs: number | undefined;
  model.firstTokenAt = undefined;
  const started = performance.now();
  const narrated = (text: string): void => {
    if (firstNarrationMs === undefined && text.trim().length > 0) firstNarrationMs = performance.now() - started;
  };
  const result = await startTurn({
    endpoint,
    stream,
    agent: scenario.agent,
    messages: [{ role: 'user', text: scenario.user_message }],
    getLayout: () => document,
    applyOutputs: (outputs: ToolOutput[]) => {
      const applied = applyOutputsWithResults(document, outputs);
      document = applied.document;
      const rows = document.layout.regions.content?.components.length ?? 0;
      while (rowsMs.length < rows) rowsMs.push(performance.now() - started);
      return applied.results;
    },
    onText: ({ delta }) => narrated(delta),
    onHop: ({ response }) => narrated(response.progress),
  }).result;
  const turnMs = performance.now() - started;
  if (result.status !== 'done') throw new Error(`the ${SCENARIO} turn did not finish: ${JSON.stringify(result)}`);
  if (firstNarrationMs === undefined || model.firstTokenAt === undefined) throw new Error('the turn had no narration');
  return { rowsMs, firstNarrationMs, firstTokenMs: model.firstTokenAt - started, turnMs };
}

function sleepUntil(at: number): Promise<void> {
  const wait = at - performance.now();
  return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve();
}
