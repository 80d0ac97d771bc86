import type { BenchProfile } from './profiles.js';
import type { LayoutScalingResults } from './results.js';
import { BenchTurnClient, loadBenchScenario } from './shared/bench-turn.js';
import { inProcessServer, type InProcessServer } from './shared/in-process.js';
import { benchLayout } from './shared/layout.js';
import { mean, median, round } from './shared/stats.js';

/** A later size's ratio may exceed the previous one's by this factor and still count as flat (timing noise). */
const NOISE_ALLOWANCE = 1.25;

/**
 * Layout scaling: the server's time per hop when every hop carries an N-component layout, measured in this process
 * through the app's fetch handler (no socket: only the server's own work), against the floor of JSON.parse of the
 * same request body plus JSON.stringify of what it parsed. Whole 11-hop turns, so hops 2–10 run place_components
 * and the reducer against the whole layout; each repetition's figure is the mean per hop, reported as the median
 * over repetitions.
 */
export async function benchLayoutScaling(
  profile: BenchProfile['layoutScaling'],
  log: (line: string) => void,
): Promise<LayoutScalingResults> {
  const scenario = await loadBenchScenario();
  const server = await inProcessServer();
  const rows: LayoutScalingResults['rows'] = [];
  let turnCounter = 0;
  for (const components of profile.sizes) {
    const client = new BenchTurnClient(scenario, benchLayout(components));
    const runTurn = () => {
      turnCounter += 1;
      return timeTurn(server, client, `scale-${components}-${turnCounter}`);
    };
    await runTurn(); // warm-up: JIT, and the first hop's one-time work
    const repetitions: Array<{ server: number; floor: number; first: number; last: number }> = [];
    for (let repetition = 0; repetition < profile.repetitions; repetition += 1) {
      const turns: TurnTiming[] = [];
      let spent = 0;
      while (turns.length === 0 || spent < profile.minRepetitionMs) {
        const turn = await runTurn();
        turns.push(turn);
        spent += turn.serverMs.reduce((sum, ms) => sum + ms, 0);
      }
      repetitions.push({
        server: mean(turns.flatMap((turn) => turn.serverMs)),
        floor: mean(turns.flatMap((turn) => turn.floorMs)),
        first: mean(turns.map((turn) => turn.serverMs[0]!)),
        last: mean(turns.map((turn) => turn.serverMs.at(-1)!)),
      });
    }
    const serverMs = median(repetitions.map((r) => r.server));
    const floorMs = median(repetitions.map((r) => r.floor));
    rows.push({
      components,
      request_bytes: Buffer.byteLength(client.start('scale-0')),
      server_ms_per_hop: round(serverMs),
      floor_ms_per_hop: round(floorMs),
      ratio: round(serverMs / floorMs, 2),
      first_hop_ms: round(median(repetitions.map((r) => r.first))),
      last_hop_ms: round(median(repetitions.map((r) => r.last))),
    });
    log(
      `layout scaling ${components}: server ${round(serverMs)} ms/hop, floor ${round(floorMs)} ms, ratio ${round(serverMs / floorMs, 2)}`,
    );
  }
  const ratioFlat = rows.every((row, index) => index === 0 || row.ratio <= rows[index - 1]!.ratio * NOISE_ALLOWANCE);
  return { repetitions: profile.repetitions, rows, ratio_flat_or_falling: ratioFlat };
}

interface TurnTiming {
  serverMs: number[];
  floorMs: number[];
}

/**
 * One whole turn: the server's time for each hop, and the JSON floor of each hop's body. Every hop but the last
 * places a paragraph; the last, after the host reported it, only gives the answer (spec §2).
 */
async function timeTurn(server: InProcessServer, client: BenchTurnClient, requestId: string): Promise<TurnTiming> {
  const serverMs: number[] = [];
  const floorMs: number[] = [];
  for (let body: string | undefined = client.start(requestId); body !== undefined; ) {
    const hop = client.hop;
    const request = server.hopRequest(body);
    const started = performance.now();
    const response = await server.app.fetch(request);
    const text = await response.text();
    serverMs.push(performance.now() - started);
    const next = response.status === 200 ? client.next(text) : undefined;
    // A hop that stopped placing (a refused call) would measure an error path, not the protocol's work.
    const placing = hop > 1 && next !== undefined;
    if (response.status !== 200 || (placing && !text.includes('"type":"place_components"'))) {
      throw new Error(
        `layout scaling: hop ${hop} answered ${response.status} without its placement: ${text.slice(0, 300)}`,
      );
    }

    const floorStarted = performance.now();
    JSON.stringify(JSON.parse(body));
    floorMs.push(performance.now() - floorStarted);
    body = next;
  }
  return { serverMs, floorMs };
}
