import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { BenchProfile } from './profiles.js';
import type { AttackStallResults } from './results.js';
import { type AttackBody, attackBodies } from './shared/attack-bodies.js';
import { BENCH_DIR, startChildServer } from './shared/child-server.js';
import { openSession, type SessionHeaders } from './shared/http-load.js';
import { round } from './shared/stats.js';

const STALL_SERVER = fileURLToPath(new URL('./shared/stall-server.ts', import.meta.url));
const PROBER = fileURLToPath(new URL('./shared/health-prober.ts', import.meta.url));

/**
 * Attack bodies: each body of src/shared/attack-bodies.ts at the size the limits allow, sent to the
 * reference server in a child process. One at a time, the server itself reports the longest event-loop stall the
 * request caused (`monitorEventLoopDelay`); then `concurrent` copies at once while a third process asks `/healthz`
 * every few milliseconds, and the slowest answer is what any other user waited.
 */
export async function benchAttackStall(
  profile: BenchProfile['attackStall'],
  log: (line: string) => void,
): Promise<AttackStallResults> {
  // Another process keeps one core busy, as other work on a shared machine does: a target met only on an idle
  // machine shows as missed (two cores: the server and the busy process each get about one).
  const busy = profile.busyCore ? startBusyCore() : undefined;
  const server = await startChildServer(STALL_SERVER, []);
  const prober = startProber();
  try {
    log(`attack stall: server pid ${server.pid}`);
    const rows: AttackStallResults['rows'] = [];
    // Built once: every copy goes in its own session, where the same request_id is another turn.
    for (const attack of attackBodies(profile.scale, 'attack')) {
      const singleStalls: number[] = [];
      let status = 0;
      for (let repetition = 0; repetition < profile.repetitions; repetition += 1) {
        const session = await openSession(server.url);
        if (attack.setup) await send(server.url, session, attack.setup);
        await stallSince(server.url);
        status = (await send(server.url, session, attack)).status;
        singleStalls.push(await stallSince(server.url));
      }
      // Several at once, each in its own session, while /healthz is asked every few milliseconds.
      const concurrent = attack.concurrent ?? profile.concurrent;
      const sessions = await Promise.all(Array.from({ length: concurrent }, () => openSession(server.url)));
      for (const session of sessions) if (attack.setup) await send(server.url, session, attack.setup);
      await stallSince(server.url);
      await prober.start(server.url, profile.probeEveryMs);
      const answers = await Promise.all(sessions.map((session) => send(server.url, session, attack)));
      const health = await prober.stop();
      const concurrentStall = await stallSince(server.url);
      const stall = round(Math.max(...singleStalls));
      rows.push({
        name: attack.name,
        description: attack.description,
        bytes: attack.body.byteLength,
        concurrent,
        status,
        concurrent_statuses: [...new Set(answers.map((answer) => answer.status))].sort(),
        stall_ms: stall,
        concurrent_stall_ms: round(concurrentStall),
        healthz_max_ms: round(health.maxMs),
        healthz_probes: health.probes,
      });
      log(
        `attack ${attack.name}: ${attack.body.byteLength} bytes → ${status}, stall ${stall} ms; ` +
          `${concurrent} at once: stall ${round(concurrentStall)} ms, /healthz max ${round(health.maxMs)} ms`,
      );
    }
    return {
      repetitions: profile.repetitions,
      concurrent: profile.concurrent,
      probe_every_ms: profile.probeEveryMs,
      scale: profile.scale,
      busy_core: profile.busyCore,
      rows,
      worst_stall_ms: round(Math.max(...rows.map((row) => row.stall_ms))),
      worst_healthz_ms: round(Math.max(...rows.map((row) => row.healthz_max_ms))),
    };
  } finally {
    prober.close();
    await server.stop();
    busy?.kill();
  }
}

/** A child process that spins on one core until it is killed. */
function startBusyCore() {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

/** The server's longest event-loop stall (ms) since the previous call. */
async function stallSince(url: string): Promise<number> {
  const response = await fetch(`${url}/__bench/stall`);
  return ((await response.json()) as { stall_ms: number }).stall_ms;
}

/** POSTs one body over its own connection and waits for the whole answer (or the connection's end). */
function send(url: string, session: SessionHeaders, attack: AttackBody): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/api/hop`, {
      method: 'POST',
      agent: false,
      headers: { ...session, 'content-type': attack.contentType, 'content-length': String(attack.body.byteLength) },
    });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
      response.on('error', reject);
    });
    // A server that answers before reading the whole body may close the connection under the upload.
    request.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    request.end(attack.body);
  });
}

/** The /healthz prober in its own process (src/shared/health-prober.ts). */
function startProber() {
  const child = spawn(process.execPath, ['--import', 'tsx', PROBER], {
    cwd: BENCH_DIR,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    /** Starts probing, once the prober has asked /healthz once uncounted and said it is ready. */
    start: async (url: string, everyMs: number) => {
      child.stdin!.write(`start ${url} ${everyMs}\n`);
      const { value } = await lines.next();
      if (String(value) !== 'ready') throw new Error(`the /healthz prober said ${String(value)}, not ready`);
    },
    stop: async (): Promise<{ maxMs: number; probes: number }> => {
      child.stdin!.write('stop\n');
      const { value } = await lines.next();
      const figures = JSON.parse(String(value)) as { max_ms: number; probes: number };
      return { maxMs: figures.max_ms, probes: figures.probes };
    },
    close: () => child.kill(),
  };
}
