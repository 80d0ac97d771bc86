import type { BenchResults, TargetResult } from './results.js';

/** The widget-size target of bench/README.md ("Targets"): the widget's own code at most 15 KB min+gzip, counted as 15,000 bytes. */
const WIDGET_OWN_CODE_LIMIT_BYTES = 15_000;

/** What the element may add to a host's own bundle beside lit and deep-chat: 25 KB min+gzip (25,000 bytes). */
const HOST_BUNDLE_LIMIT_BYTES = 25_000;
/** What the framework-free loop (`/loop`) may add to a host's own bundle: 12 KB min+gzip (12,000 bytes). */
const HOST_LOOP_LIMIT_BYTES = 12_000;
/** The self-contained module (lit, deep-chat and the widget in one file) at most this × deep-chat alone, min+gzip. */
const SELF_CONTAINED_LIMIT = 1.1;

/** The attack targets of bench/README.md: no request stalls the event loop longer, and /healthz answers within it. */
const ATTACK_LIMIT_MS = 100;

/** The cost-growth target of bench/README.md: no shape's server CPU time grows more than this for 4× its size. */
const COST_GROWTH_LIMIT = 5;

/** The live-model targets of bench/README.md: with the streamed hop, the first row within 1.1 L of the send, and
 * the first narration character within 1.2 × the model's first word. */
const LIVE_FIRST_ROW_LIMIT = 1.1;
const LIVE_FIRST_NARRATION_LIMIT = 1.2;
/** The prompt-cache targets of bench/README.md: the share reused, and the total below the earlier layout's 78.7k. */
const PROMPT_CACHE_SHARE = 0.85;
const PROMPT_CACHE_TOTAL_CHARS = 78_700;

/** Judges this run's figures against the targets of bench/README.md; a group that did not run leaves its target unjudged. */
export function judgeTargets(results: Omit<BenchResults, 'targets'>): TargetResult[] {
  const c32 = results.server_hop?.rows.find((row) => row.concurrency === 32);
  const largest = results.layout_scaling?.rows.find((row) => row.components === 10_000);
  const ownCode = results.widget?.bundles.find((bundle) => bundle.name === 'widget-own-code');
  const detection = results.change_detection?.rows.find((row) => row.components === 10_000);
  // Judged at the full size only: the tiny run's bodies are a sixty-fourth of the limits.
  const attack = results.attack_stall?.scale === 1 ? results.attack_stall : undefined;
  // Judged at the full size only: at the tiny size a hop's fixed work hides how the rest grows.
  const cost = results.cost_growth?.scale === 1 ? results.cost_growth : undefined;
  // Judged at the full size only: the tiny run's latency is too short for ratios to L to mean anything.
  const live = results.size === 'full' ? results.live_model : undefined;
  const streamed = live?.modes.find((mode) => mode.mode === 'stream');
  const hostBundle = (bundler: 'rolldown' | 'esbuild', entry: 'element' | 'loop' = 'element') =>
    results.widget?.host_bundles.find(
      (bundle) => bundle.bundler === bundler && bundle.entry === entry && bundle.dependencies === 'external',
    );
  const gzipOf = (name: string) => results.widget?.bundles.find((bundle) => bundle.name === name)?.gzip_bytes;
  const selfContained = gzipOf('self-contained');
  const deepChat = gzipOf('deep-chat');
  return [
    target(
      'server_throughput_c32',
      'server hop throughput at concurrency 32, as a share of the bare node:http floor',
      c32?.throughput_ratio,
      0.25,
      '× floor',
      'at_least',
    ),
    target(
      'layout_10000_ratio',
      'server time per hop at 10,000 components ÷ JSON.parse + JSON.stringify',
      largest?.ratio,
      3,
      '× floor',
      'at_most',
    ),
    target(
      'widget_own_code_gzip',
      "the widget's own code, min+gzip (lit and deep-chat external)",
      ownCode?.gzip_bytes,
      WIDGET_OWN_CODE_LIMIT_BYTES,
      'bytes',
      'at_most',
    ),
    target(
      'change_detection_10000_share',
      "telling the model about the person's edits, as a share of the server's time per hop at 10,000 components",
      detection?.share_of_hop,
      0.1,
      '× hop',
      'at_most',
    ),
    ...(['rolldown', 'esbuild'] as const).map((bundler) =>
      target(
        `widget_host_bundle_${bundler}_gzip`,
        `the element as a host bundles it with ${bundler} (lit and deep-chat external), min+gzip`,
        hostBundle(bundler)?.gzip_bytes,
        HOST_BUNDLE_LIMIT_BYTES,
        'bytes',
        'at_most',
      ),
    ),
    ...(['rolldown', 'esbuild'] as const).map((bundler) =>
      target(
        `widget_host_loop_${bundler}_gzip`,
        `the framework-free loop (/loop, startTurn alone) as a host bundles it with ${bundler}, min+gzip`,
        hostBundle(bundler, 'loop')?.gzip_bytes,
        HOST_LOOP_LIMIT_BYTES,
        'bytes',
        'at_most',
      ),
    ),
    target(
      'widget_self_contained_ratio',
      'the self-contained module (lit, deep-chat and the widget in one file) ÷ deep-chat alone, min+gzip',
      selfContained !== undefined && deepChat ? selfContained / deepChat : undefined,
      SELF_CONTAINED_LIMIT,
      '× deep-chat',
      'at_most',
    ),
    target(
      'attack_single_stall_ms',
      'the longest event-loop stall one attack body at the limits causes',
      attack?.worst_stall_ms,
      ATTACK_LIMIT_MS,
      'ms',
      'at_most',
    ),
    target(
      'attack_healthz_ms',
      `the slowest /healthz answer while ${attack?.concurrent ?? 8} attack bodies are in flight`,
      attack?.worst_healthz_ms,
      ATTACK_LIMIT_MS,
      'ms',
      'at_most',
    ),
    target(
      'cost_growth_4x',
      "the server's CPU time for a request or model-reply shape at 4× its size ÷ at 1×, the worst shape",
      cost?.worst_growth,
      COST_GROWTH_LIMIT,
      '× (for 4× input)',
      'at_most',
    ),
    target(
      'live_first_row_ratio',
      'streamed hops: the first row on the page, from the send, ÷ the model latency L',
      streamed?.row_ratios[0],
      LIVE_FIRST_ROW_LIMIT,
      '× L',
      'at_most',
    ),
    target(
      'live_first_narration_ratio',
      "streamed hops: the first narration character at the client ÷ the time to the model's first word",
      streamed?.first_narration_ratio,
      LIVE_FIRST_NARRATION_LIMIT,
      '× first token',
      'at_most',
    ),
    target(
      'prompt_cache_share',
      "the cookie-shop turn's prompt characters that are a prefix of the previous call's prompt",
      results.prompt_cache?.share,
      PROMPT_CACHE_SHARE,
      '× prompt',
      'at_least',
    ),
    target(
      'prompt_cache_total_chars',
      "the cookie-shop turn's prompt characters, every model call's summed",
      results.prompt_cache?.total_chars,
      PROMPT_CACHE_TOTAL_CHARS,
      'chars',
      'at_most',
    ),
  ];
}

function target(
  id: TargetResult['id'],
  description: string,
  value: number | undefined,
  limit: number,
  unit: string,
  comparison: TargetResult['comparison'],
): TargetResult {
  const met = value === undefined ? null : comparison === 'at_least' ? value >= limit : value <= limit;
  return { id, description, value: value ?? null, limit, unit, comparison, met };
}
