import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countComponents, findDuplicateUuid, Layout } from '@canvas-ai/protocol';
import { parseHopRequestJson } from '@canvas-ai/protocol/server';
import { formatTable } from '../src/table.js';
import { judgeTargets } from '../src/targets.js';
import { loadBenchScenario, turnBodies } from '../src/shared/bench-turn.js';
import { ANCHOR_UUID, benchLayout } from '../src/shared/layout.js';
import { median, percentile } from '../src/shared/stats.js';

describe('bench layouts', () => {
  for (const size of [1, 2, 5, 10, 101, 1_000]) {
    it(`has exactly ${size} components, valid and unique, the anchor first`, () => {
      const layout = benchLayout(size);
      assert.equal(countComponents(layout), size);
      assert.equal(findDuplicateUuid(layout), undefined);
      assert.equal(layout.regions.content!.components[0]!.uuid, ANCHOR_UUID);
      assert.ok(Layout.safeParse(layout).success);
    });
  }
});

describe('the bench turn', () => {
  it('has eleven hops (ten decisions, the answer after the last placement is reported) whose bodies the protocol accepts, each with the turn id and the previous outputs reported', async () => {
    const scenario = await loadBenchScenario();
    const bodies = turnBodies(scenario, benchLayout(10));
    assert.equal(bodies.hops, 11);
    for (let hop = 1; hop <= bodies.hops; hop += 1) {
      const parsed = parseHopRequestJson(bodies.body(hop, `turn-${hop}`));
      assert.ok(parsed.success, `hop ${hop} parses`);
      assert.equal(parsed.data.request_id, `turn-${hop}`);
      assert.equal(parsed.data.hop, hop);
      assert.equal(parsed.data.messages !== undefined, hop === 1, 'messages on hop 1 only');
      // Hop 1 parks call_1, hop 2 returns its output, hop 3 reports it applied.
      const reported = hop === 1 ? undefined : hop === 2 ? [] : [`call_${hop - 2}`];
      assert.deepEqual(
        parsed.data.apply_results?.map((result) => result.call_id),
        reported,
      );
    }
  });
});

describe('statistics', () => {
  it('takes the median of odd and even counts and nearest-rank percentiles', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(percentile([5, 1, 4, 2, 3], 50), 3);
    assert.equal(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        99,
      ),
      99,
    );
    assert.throws(() => median([]), RangeError);
  });
});

describe('the report', () => {
  it('aligns numbers right and text left', () => {
    assert.equal(
      formatTable(
        ['name', 'n', 'what'],
        [
          ['a', 1, 'x'],
          ['bb', 10, 'yy'],
        ],
        [2],
      ),
      'name   n  what\n----  --  ----\na      1  x\nbb    10  yy',
    );
  });

  it('judges only the targets whose figures were measured', () => {
    const targets = judgeTargets({
      schema: 1,
      generated_at: '',
      size: 'tiny',
      machine: { node: '20', platform: 'linux', cpus: 2, cpu_model: 'cpu' },
      duration_s: 1,
      widget: {
        bundles: [{ name: 'widget-own-code', description: '', files: [], min_bytes: 40_000, gzip_bytes: 14_999 }],
        host_bundles: [
          { bundler: 'esbuild', entry: 'element', min_bytes: 1, gzip_bytes: 40_001, modules: 1, forbidden_modules: [] },
        ],
        client: { browser: '', repetitions: 1, rows: [] },
      },
    });
    assert.deepEqual(
      targets.map((target) => target.met),
      [null, null, true, null, null, false, null, null],
    );
  });

  it('judges the attack targets at the full size only, on the worst row', () => {
    const attack = (scale: number) => ({
      repetitions: 1,
      concurrent: 8,
      probe_every_ms: 5,
      scale,
      rows: [],
      worst_stall_ms: 99,
      worst_healthz_ms: 101,
    });
    const base = {
      schema: 1 as const,
      generated_at: '',
      machine: { node: '24', platform: 'linux', cpus: 2, cpu_model: 'cpu' },
      duration_s: 1,
    };
    const full = judgeTargets({ ...base, size: 'full', attack_stall: attack(1) });
    assert.deepEqual(
      full.slice(-2).map((target) => [target.id, target.value, target.met]),
      [
        ['attack_single_stall_ms', 99, true],
        ['attack_healthz_ms', 101, false],
      ],
    );
    const tiny = judgeTargets({ ...base, size: 'tiny', attack_stall: attack(1 / 64) });
    assert.deepEqual(
      tiny.slice(-2).map((target) => target.met),
      [null, null],
    );
  });
});
