// The baseline comparison (src/baseline.ts) and how the report shows it: a change in percent per target, called out
// when it goes against the target by more than 10 %, and no comparison across sizes.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compareWithBaseline, readBaseline } from '../src/baseline.js';
import type { BenchResults, TargetResult } from '../src/results.js';
import { formatResults } from '../src/table.js';

const target = (
  id: TargetResult['id'],
  value: number | null,
  comparison: TargetResult['comparison'],
): TargetResult => ({
  id,
  description: id,
  value,
  limit: 1,
  unit: '× floor',
  comparison,
  met: value === null ? null : true,
});

const run = (size: BenchResults['size'], targets: TargetResult[]): BenchResults => ({
  schema: 1,
  generated_at: '2026-12-04T03:00:00.000Z',
  size,
  machine: { node: '24.21.0', platform: 'linux', cpus: 2, cpu_model: 'test cpu' },
  duration_s: 1,
  targets,
});

describe('compareWithBaseline', () => {
  it('gives each figure its change, worse when it goes against its target by more than 10 %', () => {
    const before = run('full', [
      target('layout_10000_ratio', 4, 'at_most'),
      target('server_throughput_c32', 0.1, 'at_least'),
      target('cost_growth_4x', 4, 'at_most'),
      target('attack_healthz_ms', 80, 'at_most'),
      target('prompt_cache_share', null, 'at_least'),
    ]);
    const now = run('full', [
      target('layout_10000_ratio', 4.6, 'at_most'),
      target('server_throughput_c32', 0.085, 'at_least'),
      target('cost_growth_4x', 4.2, 'at_most'),
      target('attack_healthz_ms', 60, 'at_most'),
      target('prompt_cache_share', 0.9, 'at_least'),
    ]);
    const changes = compareWithBaseline(now, before);
    const layout = changes.get('layout_10000_ratio')!;
    assert.equal(layout.baseline, 4);
    assert.ok(Math.abs(layout.change! - 0.15) < 1e-9);
    assert.equal(layout.worse, true, 'a ratio that must stay low went up 15 %');
    assert.equal(changes.get('server_throughput_c32')!.worse, true, 'a throughput that must stay high fell 15 %');
    assert.equal(changes.get('cost_growth_4x')!.worse, false, '5 % is within the threshold');
    assert.equal(changes.get('attack_healthz_ms')!.worse, false, 'a 25 % fall of a time that must stay low is better');
    assert.deepEqual(changes.get('prompt_cache_share'), { baseline: null, change: null, worse: false });
  });

  it('compares nothing across sizes, or without a baseline', () => {
    const full = run('full', [target('layout_10000_ratio', 4, 'at_most')]);
    assert.equal(compareWithBaseline(run('tiny', full.targets), full).size, 0);
    assert.equal(compareWithBaseline(full, undefined).size, 0);
  });
});

describe('the targets table beside the baseline', () => {
  it('shows the baseline and the change, and names the figures more than 10 % worse', () => {
    const before = run('full', [target('layout_10000_ratio', 4, 'at_most'), target('cost_growth_4x', 4, 'at_most')]);
    const now = run('full', [target('layout_10000_ratio', 5, 'at_most'), target('cost_growth_4x', 3, 'at_most')]);
    const report = formatResults(now, { results: before, file: 'bench/baseline.json' });
    assert.match(report, /measured\s+limit\s+met\s+baseline\s+change/);
    assert.match(report, /layout_10000_ratio\s+5×\s+≤ 1×\s+yes\s+4×\s+\+25\.0 % WORSE/);
    assert.match(report, /cost_growth_4x\s+3×\s+≤ 1×\s+yes\s+4×\s+-25\.0 %$/m);
    assert.match(report, /More than 10 % worse than the baseline: layout_10000_ratio\./);
    assert.match(report, /Baseline: bench\/baseline\.json, 2026-12-04T03:00:00\.000Z, 2 × test cpu\./);
  });

  it('says when there is nothing to compare with', () => {
    const now = run('tiny', [target('layout_10000_ratio', 5, 'at_most')]);
    assert.match(formatResults(now, undefined), /No baseline \(bench\/baseline\.json\)/);
    assert.match(
      formatResults(now, { results: run('full', now.targets), file: 'bench/baseline.json' }),
      /The baseline is a full run; this is a tiny run: not compared\./,
    );
  });
});

describe('readBaseline', () => {
  it('reads none from a missing file, and refuses a file that is not a bench result', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'canvas-ai-baseline-'));
    try {
      assert.equal(await readBaseline(join(scratch, 'none.json')), undefined);
      const wrong = join(scratch, 'wrong.json');
      await writeFile(wrong, '{"schema": 1}');
      await assert.rejects(readBaseline(wrong), /wrong\.json is not a bench result/);
      const right = join(scratch, 'right.json');
      await writeFile(right, JSON.stringify(run('full', [target('cost_growth_4x', 4, 'at_most')])));
      assert.equal((await readBaseline(right))?.targets[0]?.value, 4);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
