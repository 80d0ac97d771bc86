import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HopResponse } from '@canvas-ai/protocol';
import { collectPlacedUuids } from '@canvas-ai/protocol/server';
import { checkHop, type Scenario } from '@canvas-ai/protocol/scenario';
import type { BenchProfile } from './profiles.js';
import type { LoadFigures, ServerHopResults } from './results.js';
import { BENCH_SCENARIOS_DIR, loadBenchScenario, turnBodies, type TurnBodies } from './shared/bench-turn.js';
import { startChildServer, type ChildServer } from './shared/child-server.js';
import { openSession, runLoad, type LoadWindow, type SessionHeaders } from './shared/http-load.js';
import { benchLayout } from './shared/layout.js';
import { median, percentile, round } from './shared/stats.js';

/** The layout every hop of this group carries (bench/README.md: "a 10-component layout"). */
const LAYOUT_COMPONENTS = 10;
const CLI = fileURLToPath(new URL('../../packages/reference-server/src/cli.ts', import.meta.url));
const FLOOR = fileURLToPath(new URL('./shared/floor-server.ts', import.meta.url));

/**
 * Server hop overhead: the real reference server (its CLI: scripted provider, memory store, CSRF on, logging to
 * /dev/null) and the bare node:http floor, each in its own child process, loaded from this process over keep-alive
 * connections with back-to-back 11-hop turns at each concurrency. Repetitions alternate server and floor, so drift
 * on a shared machine hits both alike; each figure is the median over the repetitions.
 */
export async function benchServerHop(
  profile: BenchProfile['serverHop'],
  log: (line: string) => void,
): Promise<ServerHopResults> {
  const scenario = await loadBenchScenario();
  const bodies = turnBodies(scenario, benchLayout(LAYOUT_COMPONENTS));
  const scratch = await mkdtemp(join(tmpdir(), 'canvas-ai-bench-'));
  const servers: ChildServer[] = [];
  try {
    const server = await startChildServer(CLI, ['--port', '0', '--scenarios', BENCH_SCENARIOS_DIR], {
      CANVAS_AI_SECRET: 'bench-secret-0123456789',
    });
    servers.push(server);
    const calibration = await calibrate(server.url, scenario, bodies);
    const responsesFile = join(scratch, 'responses.json');
    await writeFile(responsesFile, JSON.stringify(calibration.responses));
    const floor = await startChildServer(FLOOR, [responsesFile]);
    servers.push(floor);
    log(`server hop: reference server pid ${server.pid}, floor pid ${floor.pid}`);

    const rows: ServerHopResults['rows'] = [];
    for (const concurrency of profile.concurrency) {
      const serverSessions = await Promise.all(Array.from({ length: concurrency }, () => openSession(server.url)));
      // The floor ignores them, but gets the same request bytes.
      const floorSessions = serverSessions;
      const windows = { server: [] as LoadWindow[], floor: [] as LoadWindow[] };
      for (let repetition = 0; repetition < profile.repetitions; repetition += 1) {
        // Only the first repetition of each needs a long warm-up (JIT, connections); later ones start warm.
        const warmupMs = repetition === 0 ? profile.warmupMs : Math.min(profile.warmupMs, 300);
        const load = (url: string, sessions: SessionHeaders[], who: string) =>
          runLoad({
            url,
            sessions,
            bodies,
            warmupMs,
            durationMs: profile.windowMs,
            runId: `${who}${concurrency}r${repetition}`,
          });
        windows.server.push(await load(server.url, serverSessions, 's'));
        windows.floor.push(await load(floor.url, floorSessions, 'f'));
      }
      const serverFigures = figures(windows.server);
      const floorFigures = figures(windows.floor);
      log(
        `server hop c=${concurrency}: server ${serverFigures.hops_per_s} hops/s p50 ${serverFigures.p50_ms} ms, ` +
          `floor ${floorFigures.hops_per_s} hops/s p50 ${floorFigures.p50_ms} ms`,
      );
      rows.push({
        concurrency,
        server: serverFigures,
        floor: floorFigures,
        throughput_ratio: round(serverFigures.hops_per_s / floorFigures.hops_per_s),
        p50_ratio: round(serverFigures.p50_ms / floorFigures.p50_ms),
        p99_ratio: round(serverFigures.p99_ms / floorFigures.p99_ms),
      });
    }
    return {
      layout_components: LAYOUT_COMPONENTS,
      hops_per_turn: bodies.hops,
      repetitions: profile.repetitions,
      window_s: profile.windowMs / 1000,
      request_bytes: calibration.requestBytes,
      response_bytes: calibration.responseBytes,
      rows,
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * One turn against the real server, checked hop by hop against the scenario (a bench of a broken turn would
 * measure error paths): the responses the floor will imitate, and the bytes on the wire.
 */
async function calibrate(url: string, scenario: Scenario, bodies: TurnBodies) {
  const session = await openSession(url);
  const requestId = 'calibration-0';
  const responses: unknown[] = [];
  const requestBytes: number[] = [];
  const responseBytes: number[] = [];
  const placed: string[] = [];
  for (let hop = 1; hop <= bodies.hops; hop += 1) {
    const body = bodies.body(hop, requestId);
    const reply = await fetch(`${url}/api/hop`, {
      method: 'POST',
      headers: { ...session, 'content-type': 'application/json' },
      body,
    });
    const text = await reply.text();
    const parsed = HopResponse.safeParse(JSON.parse(text));
    if (reply.status !== 200 || !parsed.success)
      throw new Error(`calibration hop ${hop} failed (HTTP ${reply.status}): ${text.slice(0, 500)}`);
    const mismatches = checkHop(scenario.hops[hop - 1]!, parsed.data, placed);
    if (mismatches.length > 0) throw new Error(`calibration turn differs from the scenario:\n${mismatches.join('\n')}`);
    placed.push(...collectPlacedUuids(parsed.data.outputs));
    responses.push(parsed.data);
    requestBytes.push(Buffer.byteLength(body));
    responseBytes.push(Buffer.byteLength(text));
  }
  return { responses, requestBytes, responseBytes };
}

function figures(windows: readonly LoadWindow[]): LoadFigures {
  return {
    hops_per_s: round(median(windows.map((window) => window.hops / window.seconds)), 1),
    p50_ms: round(median(windows.map((window) => percentile(window.latenciesMs, 50)))),
    p99_ms: round(median(windows.map((window) => percentile(window.latenciesMs, 99)))),
    errors: windows.reduce((sum, window) => sum + window.errors, 0),
    client_cpu: round(median(windows.map((window) => window.clientCpuShare)), 2),
  };
}
