// pnpm load: N concurrent turns of a scenario over loopback against real server processes (the CLI), first one
// instance with the memory store, then two instances sharing Redis with every turn's hops alternating between them.
// Prints completed turns, errors, hop latency p50/p99 and hops per second. Not a test: it asserts nothing.
import { parseArgs } from 'node:util';
import { errorMessage } from '@canvas-ai/protocol';
import { driveScenario, type Fixtures, type Scenario } from '@canvas-ai/protocol/scenario';
import { loadFixtures } from '@canvas-ai/protocol/node';
import { startRedisServer, type RedisServer } from '../test/support/redis-server.js';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.js';

const CONFIGS = {
  one: { label: 'one instance (memory store)', instances: 1, redis: false },
  'one-redis': { label: 'one instance + Redis', instances: 1, redis: true },
  'two-redis': { label: 'two instances + Redis (hops alternate)', instances: 2, redis: true },
} as const;
type ConfigName = keyof typeof CONFIGS;

const HELP = `pnpm load [-- options]
  --turns N        concurrent turns per configuration (default 200)
  --scenario ID    the scenario fixture every turn plays (default cookie-shop)
  --configs LIST   comma-separated: ${Object.keys(CONFIGS).join(', ')} (default one,two-redis)
  --warmup N       turns played first and not counted, so the servers' JIT is warm (default 10)
  --redis URL      use this Redis instead of starting a redis-server on a free loopback port`;

/** What one configuration measured. */
interface LoadResult {
  label: string;
  turns: number;
  completed: number;
  errors: number;
  hops: number;
  latencies: number[];
  wallMs: number;
}

const SECRET = 'pnpm-load-shared-csrf-secret';

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv[0] === '--' ? argv.slice(1) : argv,
    options: {
      turns: { type: 'string', default: '200' },
      scenario: { type: 'string', default: 'cookie-shop' },
      configs: { type: 'string', default: 'one,two-redis' },
      warmup: { type: 'string', default: '10' },
      redis: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const turns = Number(values.turns);
  const warmup = Number(values.warmup);
  const configs = values.configs.split(',').map((name) => name.trim()) as ConfigName[];
  if (
    !Number.isInteger(turns) ||
    turns < 1 ||
    !Number.isInteger(warmup) ||
    warmup < 0 ||
    configs.some((name) => !(name in CONFIGS))
  ) {
    console.error(HELP);
    return 2;
  }
  const fixtures = await loadFixtures();
  const scenario = fixtures.scenarios.find((s) => s.id === values.scenario);
  if (!scenario) {
    console.error(`No scenario "${values.scenario}"; pick one of: ${fixtures.scenarios.map((s) => s.id).join(', ')}`);
    return 2;
  }

  let redis: RedisServer | undefined;
  const results: LoadResult[] = [];
  try {
    for (const name of configs) {
      const config = CONFIGS[name];
      let url: string | undefined;
      if (config.redis) {
        if (!values.redis) redis ??= await startRedisServer();
        url = values.redis ?? redis!.url;
      }
      const servers: ServerProcess[] = [];
      try {
        for (let index = 0; index < config.instances; index += 1) {
          // Every virtual client is on 127.0.0.1, and each session holds a few turns at most: the per-address
          // limits are for the internet, not for a load run from one machine.
          const limits = [
            ...['--max-connections-per-ip', '0', '--max-connections', String(turns * 2 + 64)],
            ...['--ip-sessions', '0', '--address-turns', '0', '--address-bytes', '0', '--reserved-connections', '0'],
          ];
          servers.push(
            await startServerProcess([...(url ? ['--store', url] : []), ...limits], { CANVAS_AI_SECRET: SECRET }),
          );
        }
        console.error(`${config.label}: ${servers.map((server) => server.url).join(', ')}${url ? `, ${url}` : ''}`);
        if (warmup > 0) await playTurns(config.label, warmup, scenario, fixtures, servers);
        results.push(await playTurns(config.label, turns, scenario, fixtures, servers));
      } finally {
        await Promise.all(servers.map((server) => server.kill()));
      }
    }
  } finally {
    await redis?.close();
  }
  console.log(report(results, turns, scenario));
  return results.every((result) => result.errors === 0) ? 0 : 1;
}

/** `count` turns at once, each in its own session; hop i of a turn goes to server (turn + i) mod servers. */
async function playTurns(
  label: string,
  count: number,
  scenario: Scenario,
  fixtures: Fixtures,
  servers: ServerProcess[],
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let completed = 0;
  let hops = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, turn) => {
      try {
        const token = await fetch(`${servers[turn % servers.length]!.url}/api/token`);
        const cookie = (token.headers.get('set-cookie') ?? '').split(';')[0]!;
        const headers = { cookie, 'x-csrf-token': ((await token.json()) as { token: string }).token };
        let next = turn;
        const run = await driveScenario(scenario, {
          endpoint: `${servers[0]!.url}/api/hop`,
          fixtures,
          headers: () => headers,
          fetch: async (input, init) => {
            const target = new URL(new URL(String(input)).pathname, servers[next++ % servers.length]!.url);
            const sent = performance.now();
            const response = await fetch(target, init);
            const body = await response.arrayBuffer();
            latencies.push(performance.now() - sent);
            return new Response(body, { status: response.status, headers: response.headers });
          },
        });
        hops += run.hops.length;
        const failed = run.hops.filter((hop) => hop.status !== 200).length;
        errors += failed;
        if (run.passed) completed += 1;
        else if (failed === 0) errors += 1; // answered 200 but not what the scenario expects
      } catch (error) {
        errors += 1;
        console.error(`${label}: turn ${turn}: ${errorMessage(error)}`);
      }
    }),
  );
  return { label, turns: count, completed, errors, hops, latencies, wallMs: performance.now() - started };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function report(results: LoadResult[], turns: number, scenario: Scenario): string {
  const header = ['configuration', 'turns ok', 'errors', 'hops', 'p50 ms', 'p99 ms', 'hops/s', 'wall s'];
  const rows = results.map((result) => {
    const sorted = [...result.latencies].sort((a, b) => a - b);
    return [
      result.label,
      `${result.completed}/${result.turns}`,
      String(result.errors),
      String(result.hops),
      percentile(sorted, 50).toFixed(1),
      percentile(sorted, 99).toFixed(1),
      (result.hops / (result.wallMs / 1000)).toFixed(0),
      (result.wallMs / 1000).toFixed(2),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [
    `pnpm load: ${turns} concurrent turns of "${scenario.id}" (${scenario.hops.length} hops each), scripted model, loopback`,
    line(header),
    ...rows.map(line),
  ].join('\n');
}

process.exitCode = await main(process.argv.slice(2));
