// pnpm bench: runs every benchmark group, prints the table and writes bench/results.json.
// Usage: tsx src/run.ts [--size full|tiny] [--out FILE] [--only server-hop,layout-scaling,change-detection,state-growth,attack-stall,cost-growth,live-model,widget,prompt-cache]
// The only place that touches the process (argv, exit code). Exit codes: 0 ran, 1 a benchmark failed, 2 usage.
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchChangeDetection } from './change-detection.js';
import { benchAttackStall } from './attack-stall.js';
import { benchCostGrowth } from './cost-growth.js';
import { benchHostBundles } from './host-bundles.js';
import { errorMessage } from '@canvas-ai/protocol';
import { benchLayoutScaling } from './layout-scaling.js';
import { benchLiveModel } from './live-model.js';
import { PROFILES, type BenchProfile } from './profiles.js';
import { BenchResults } from './results.js';
import { benchPromptCache } from './prompt-cache.js';
import { benchServerHop } from './server-hop.js';
import { BENCH_DIR } from './shared/child-server.js';
import { round } from './shared/stats.js';
import { benchStateGrowth } from './state-growth.js';
import { BASELINE_FILE, readBaseline } from './baseline.js';
import { formatResults } from './table.js';
import { judgeTargets } from './targets.js';
import { benchWidgetBundles } from './widget-bundles.js';
import { benchWidgetClient } from './widget-client.js';

/** The benchmark groups, in the order they run. */
export const GROUPS = [
  'server-hop',
  'layout-scaling',
  'change-detection',
  'state-growth',
  'attack-stall',
  'cost-growth',
  'live-model',
  'widget',
  'prompt-cache',
] as const;
type Group = (typeof GROUPS)[number];

/** Runs the chosen groups with one profile and returns the checked results. */
export async function runBench(
  profile: BenchProfile,
  groups: readonly Group[],
  log: (line: string) => void,
): Promise<BenchResults> {
  const started = performance.now();
  const cpu = cpus();
  const partial: Omit<BenchResults, 'targets'> = {
    schema: 1,
    generated_at: new Date().toISOString(),
    size: profile.name,
    machine: {
      node: process.versions.node,
      platform: `${process.platform}-${process.arch}`,
      cpus: cpu.length,
      cpu_model: cpu[0]?.model.trim() ?? 'unknown',
    },
    duration_s: 0,
  };
  if (groups.includes('server-hop')) partial.server_hop = await benchServerHop(profile.serverHop, log);
  if (groups.includes('layout-scaling')) partial.layout_scaling = await benchLayoutScaling(profile.layoutScaling, log);
  if (groups.includes('change-detection'))
    partial.change_detection = await benchChangeDetection(profile.changeDetection, log);
  if (groups.includes('state-growth')) partial.state_growth = await benchStateGrowth(profile.stateGrowth, log);
  if (groups.includes('attack-stall')) partial.attack_stall = await benchAttackStall(profile.attackStall, log);
  if (groups.includes('cost-growth')) partial.cost_growth = await benchCostGrowth(profile.costGrowth, log);
  if (groups.includes('live-model')) partial.live_model = await benchLiveModel(profile.liveModel, log);
  if (groups.includes('widget')) {
    const bundles = await benchWidgetBundles(log);
    const hostBundles = await benchHostBundles(log);
    partial.widget = { bundles, host_bundles: hostBundles, client: await benchWidgetClient(profile.widget, log) };
  }
  if (groups.includes('prompt-cache')) partial.prompt_cache = await benchPromptCache(log);
  partial.duration_s = round((performance.now() - started) / 1000, 1);
  // Checked against its own schema before anyone reads it.
  return BenchResults.parse({ ...partial, targets: judgeTargets(partial) });
}

function parseBenchArgs(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      size: { type: 'string', default: 'full' },
      out: { type: 'string' },
      only: { type: 'string' },
      baseline: { type: 'string' },
      'save-baseline': { type: 'boolean' },
    },
  }).values;
}

async function main(argv: readonly string[]): Promise<number> {
  let values: ReturnType<typeof parseBenchArgs>;
  try {
    values = parseBenchArgs(argv);
  } catch (error) {
    console.error(
      `${errorMessage(error)}\nusage: tsx src/run.ts [--size full|tiny] [--out FILE] [--only ${GROUPS.join(',')}] ` +
        '[--baseline FILE] [--save-baseline]',
    );
    return 2;
  }
  const profile = PROFILES[values.size as BenchProfile['name']];
  const groups = (values.only?.split(',') ?? [...GROUPS]) as Group[];
  const unknown = groups.filter((group) => !GROUPS.includes(group));
  if (!profile || unknown.length > 0) {
    console.error(
      `unknown ${profile ? `group ${unknown.join(', ')}` : `size ${values.size}`}: sizes are full and tiny; groups are ${GROUPS.join(', ')}`,
    );
    return 2;
  }
  if (values['save-baseline'] && (profile.name !== 'full' || groups.length !== GROUPS.length)) {
    console.error(
      '--save-baseline takes a whole run at the full size (no --size tiny, no --only): a baseline holds every figure.',
    );
    return 2;
  }
  const out = resolve(values.out ?? `${BENCH_DIR}results.json`);
  const savedBaseline = resolve(`${BENCH_DIR}${BASELINE_FILE}`);
  const baselineFile = values.baseline ? resolve(values.baseline) : savedBaseline;
  try {
    // Read first: a baseline that is not a bench result, or a named one that is not there, stops the run before
    // minutes are spent.
    const baseline = await readBaseline(baselineFile);
    if (values.baseline && !baseline) throw new Error(`--baseline ${values.baseline}: no such file.`);
    const results = await runBench(profile, groups, (line) => console.error(`  ${line}`));
    const json = `${JSON.stringify(results, null, 2)}\n`;
    await writeFile(out, json);
    console.log(formatResults(results, baseline && { results: baseline, file: baselineFile }));
    console.log(`\nwritten to ${out}`);
    if (values['save-baseline']) {
      await writeFile(savedBaseline, json);
      console.log(`and saved as the baseline, ${savedBaseline}`);
    }
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return 1;
  }
}

// tsx passes `--` through when pnpm forwards arguments.
const args = process.argv.slice(2);
if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1]))
  process.exitCode = await main(args[0] === '--' ? args.slice(1) : args);
