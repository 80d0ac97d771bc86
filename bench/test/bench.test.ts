import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PROFILES } from '../src/profiles.js';
import { BenchResults } from '../src/results.js';

const RUNNER = fileURLToPath(new URL('../src/run.ts', import.meta.url));
const BENCH_DIR = fileURLToPath(new URL('../', import.meta.url));
const run = promisify(execFile);

describe('pnpm bench at the tiny size', () => {
  it('runs every group, prints the table and writes results.json that its schema accepts', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'canvas-ai-bench-test-'));
    try {
      const out = join(scratch, 'results.json');
      const { stdout } = await run(process.execPath, ['--import', 'tsx', RUNNER, '--size', 'tiny', '--out', out], {
        cwd: BENCH_DIR,
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      const results = BenchResults.parse(JSON.parse(await readFile(out, 'utf8')));
      const tiny = PROFILES.tiny;

      assert.equal(results.size, 'tiny');
      assert.deepEqual(
        results.server_hop?.rows.map((row) => row.concurrency),
        tiny.serverHop.concurrency,
      );
      for (const row of results.server_hop!.rows) {
        assert.ok(
          row.server.hops_per_s > 0 && row.floor.hops_per_s > 0,
          `concurrency ${row.concurrency} completed hops`,
        );
        assert.equal(row.server.errors, 0, 'the reference server answered every hop as the scenario says');
        assert.equal(row.floor.errors, 0);
      }
      assert.equal(
        results.server_hop!.request_bytes.length,
        11,
        'the turn has eleven hops: ten decisions, then the answer',
      );

      assert.deepEqual(
        results.layout_scaling?.rows.map((row) => row.components),
        tiny.layoutScaling.sizes,
      );
      for (const row of results.layout_scaling!.rows)
        assert.ok(row.server_ms_per_hop > 0 && row.floor_ms_per_hop > 0 && row.ratio > 0);

      const growth = results.state_growth!.turns[0]!;
      assert.deepEqual(
        growth.rows.map((row) => row.hop),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      );
      assert.deepEqual(
        growth.rows.map((row) => row.kind),
        [...Array(10).fill('active'), 'finished'],
      );
      assert.ok(
        growth.rows
          .slice(0, 10)
          .every((row, index, rows) => index === 0 || row.stored_bytes > rows[index - 1]!.stored_bytes),
      );

      const attack = results.attack_stall!;
      assert.equal(attack.scale, tiny.attackStall.scale);
      assert.deepEqual(
        attack.rows.map((row) => row.name),
        [
          'extra-zeros',
          'extra-keys',
          'extra-string',
          'deep-nesting',
          'layout-zeros',
          'layout-objects',
          'layout-components',
          'multipart-attachments',
          'multipart-parts',
          'multipart-header-lines',
          'multipart-search',
          'kept-props',
          'g3-map-keys',
          'g3-not-plain',
          'g2-remove-selected',
        ],
      );
      assert.equal(attack.busy_core, tiny.attackStall.busyCore);
      assert.deepEqual(
        attack.rows.filter((row) => row.concurrent === 4).map((row) => row.name),
        ['kept-props', 'g3-map-keys', 'g3-not-plain', 'g2-remove-selected'],
        "the review's cases and kept-props run four at once",
      );
      const statusOf = Object.fromEntries(attack.rows.map((row) => [row.name, row.status]));
      // Refused at the door, or valid and answered: never a server failure.
      assert.deepEqual(
        [statusOf['extra-zeros'], statusOf['extra-keys'], statusOf['deep-nesting'], statusOf['multipart-search']],
        [400, 400, 400, 400],
      );
      assert.deepEqual(
        [
          statusOf['layout-zeros'],
          statusOf['layout-objects'],
          statusOf['layout-components'],
          statusOf['multipart-attachments'],
          statusOf['g3-map-keys'],
          statusOf['g2-remove-selected'],
          statusOf['kept-props'],
        ],
        [200, 200, 200, 200, 200, 200, 200],
      );
      for (const row of attack.rows) {
        assert.ok(row.healthz_probes > 0, `${row.name}: /healthz was asked while it ran`);
        assert.ok(
          row.concurrent_statuses.every((status) => status < 500),
          `${row.name}: ${row.concurrent_statuses}`,
        );
      }

      assert.deepEqual(
        results.widget?.bundles.map((bundle) => bundle.name),
        ['widget-own-code', 'widget-zod-external', 'widget-esm', 'self-contained', 'deep-chat'],
      );
      for (const bundle of results.widget!.bundles)
        assert.ok(bundle.gzip_bytes > 0 && bundle.gzip_bytes < bundle.min_bytes, bundle.name);
      assert.deepEqual(
        results.change_detection?.rows.map((row) => row.components),
        tiny.changeDetection.sizes,
      );
      for (const row of results.change_detection!.rows) {
        assert.ok(row.detection_ms > 0 && row.digest_bytes > 0, `change detection at ${row.components} was measured`);
        assert.ok(row.share_of_hop > 0 && row.share_of_hop < 1, 'a part of the hop');
      }
      assert.deepEqual(
        results.widget?.host_bundles.map((bundle) => `${bundle.entry} ${bundle.bundler} ${bundle.dependencies}`),
        ['external', 'bundled'].flatMap((dependencies) =>
          ['loop', 'loop-undo', 'root', 'element'].flatMap((entry) =>
            ['rolldown', 'esbuild'].map((bundler) => `${entry} ${bundler} ${dependencies}`),
          ),
        ),
      );
      assert.deepEqual(
        results.widget?.client.rows.map((row) => row.components),
        tiny.widget.clientSizes,
      );

      assert.deepEqual(
        results.targets.map((target) => target.id),
        [
          'server_throughput_c32',
          'layout_10000_ratio',
          'widget_own_code_gzip',
          'change_detection_10000_share',
          'widget_host_bundle_rolldown_gzip',
          'widget_host_bundle_esbuild_gzip',
          'widget_host_loop_rolldown_gzip',
          'widget_host_loop_esbuild_gzip',
          'widget_self_contained_ratio',
          'attack_single_stall_ms',
          'attack_healthz_ms',
          'cost_growth_4x',
          'live_first_row_ratio',
          'live_first_narration_ratio',
          'prompt_cache_share',
          'prompt_cache_total_chars',
        ],
      );
      // The tiny size measures neither concurrency 32 nor 10,000 components: those targets stay unjudged.
      assert.equal(results.targets[0]!.met, null);
      assert.equal(results.targets[1]!.met, null);
      assert.equal(typeof results.targets[2]!.met, 'boolean');
      assert.equal(results.targets[3]!.met, null, 'change detection is judged at 10,000 components only');
      const judged = (id: string) => results.targets.find((target) => target.id === id)!.met;
      assert.equal(judged('attack_single_stall_ms'), null, 'the attack targets are judged at the full size only');
      assert.equal(judged('attack_healthz_ms'), null);
      assert.equal(judged('cost_growth_4x'), null, 'the cost growth is judged at the full size only');

      const cost = results.cost_growth!;
      assert.equal(cost.scale, tiny.costGrowth.scale);
      assert.deepEqual(
        cost.rows.map((row) => [row.name, row.kind]),
        [
          ['hop-1-layout', 'request'],
          ['hop-1-transcript', 'request'],
          ['hop-n-apply-results', 'request'],
          ['big-layout', 'request'],
          ['attachments', 'request'],
          ['person-edits', 'request'],
          ['many-calls', 'reply'],
          ['unknown-uuids', 'reply'],
          ['long-narration', 'reply'],
          ['deep-arguments', 'reply'],
        ],
      );
      for (const row of cost.rows) {
        assert.ok(row.cpu_ms_1x > 0 && row.cpu_ms_4x > 0, `${row.name}: the server's CPU time was counted`);
        assert.ok(row.request_bytes_4x >= row.request_bytes_1x, `${row.name}: requests measured`);
      }
      assert.equal(judged('live_first_row_ratio'), null, 'the live-model targets are judged at the full size only');
      assert.equal(judged('live_first_narration_ratio'), null);

      const live = results.live_model!;
      assert.deepEqual(
        live.modes.map((mode) => mode.mode),
        ['json', 'stream'],
      );
      for (const mode of live.modes) {
        assert.equal(mode.rows_ms.length, 5, `${mode.mode}: the five rows of the cookie-shop turn reached the page`);
        assert.ok(
          mode.rows_ms.every((ms, row, all) => ms > 0 && (row === 0 || ms >= all[row - 1]!)),
          `${mode.mode}: rows in order`,
        );
        assert.ok(mode.first_narration_ms > 0 && mode.first_token_ms > 0, `${mode.mode}: narration came`);
      }

      const cache = results.prompt_cache!;
      assert.equal(cache.scenario, 'cookie-shop');
      assert.deepEqual(
        cache.calls.map((call) => call.call),
        [1, 2, 3, 4, 5, 6, 7],
        'one model call per decision of the cookie-shop turn',
      );
      for (const call of cache.calls) {
        assert.ok(call.prefix_chars > 0 && call.prefix_chars <= call.prompt_chars, `call ${call.call}`);
      }
      for (const [index, call] of cache.calls.slice(1).entries()) {
        assert.equal(
          call.prefix_chars,
          cache.calls[index]!.prompt_chars,
          `call ${call.call} starts with the whole of call ${call.call - 1}'s prompt, as the provider sent them`,
        );
      }
      assert.equal(
        cache.total_chars,
        cache.calls.reduce((sum, call) => sum + call.prompt_chars, 0),
      );
      assert.ok(cache.share_cold < cache.share && cache.share < 1);
      assert.equal(typeof judged('prompt_cache_share'), 'boolean', 'the prompt-cache targets are judged at any size');

      for (const heading of [
        'Server hop overhead',
        'Layout scaling',
        'Change detection',
        'State growth',
        'Attack bodies',
        'Live model',
        'Widget bundles',
        'Widget client per hop',
        'Prompt cache',
        'Targets',
      ]) {
        assert.match(stdout, new RegExp(heading), `the table has its "${heading}" section`);
      }
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it('refuses an unknown size or group with exit code 2', async () => {
    await assert.rejects(
      run(process.execPath, ['--import', 'tsx', RUNNER, '--size', 'huge'], { cwd: BENCH_DIR }),
      (error: { code?: number }) => {
        assert.equal(error.code, 2);
        return true;
      },
    );
    await assert.rejects(
      run(process.execPath, ['--import', 'tsx', RUNNER, '--only', 'everything'], { cwd: BENCH_DIR }),
      (error: { code?: number }) => {
        assert.equal(error.code, 2);
        return true;
      },
    );
  });
});
