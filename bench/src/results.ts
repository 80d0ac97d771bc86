import * as z from 'zod';

/** One target of bench/README.md ("Targets"), with the measured value it is judged on. */
export const TargetResult = z.object({
  id: z.enum([
    'server_throughput_c32',
    'layout_10000_ratio',
    'widget_own_code_gzip',
    'widget_host_bundle_rolldown_gzip',
    'widget_host_bundle_esbuild_gzip',
    'widget_host_loop_rolldown_gzip',
    'widget_host_loop_esbuild_gzip',
    'widget_self_contained_ratio',
    'change_detection_10000_share',
    'attack_single_stall_ms',
    'attack_healthz_ms',
    'cost_growth_4x',
    'live_first_row_ratio',
    'live_first_narration_ratio',
    'prompt_cache_share',
    'prompt_cache_total_chars',
  ]),
  description: z.string(),
  /** The measured value, in `unit`. */
  value: z.number().nullable(),
  limit: z.number(),
  unit: z.string(),
  /** `value >= limit` (at_least) or `value <= limit` (at_most); null when the figure was not measured in this run. */
  comparison: z.enum(['at_least', 'at_most']),
  met: z.boolean().nullable(),
});
export type TargetResult = z.infer<typeof TargetResult>;

/** Throughput and latency of one server at one concurrency: medians over the repetitions. */
export const LoadFigures = z.object({
  hops_per_s: z.number(),
  p50_ms: z.number(),
  p99_ms: z.number(),
  errors: z.int(),
  /** The load generator's CPU use during the windows (1 = one full core): near 1, the client set the pace. */
  client_cpu: z.number(),
});

/** Server hop overhead: the reference server against the bare node:http floor. */
export const ServerHopResults = z.object({
  layout_components: z.int(),
  hops_per_turn: z.int(),
  repetitions: z.int(),
  window_s: z.number(),
  request_bytes: z.array(z.int()),
  response_bytes: z.array(z.int()),
  rows: z.array(
    z.object({
      concurrency: z.int(),
      server: LoadFigures,
      floor: LoadFigures,
      /** server hops/s ÷ floor hops/s (1 = no overhead). */
      throughput_ratio: z.number(),
      /** server p50 ÷ floor p50. */
      p50_ratio: z.number(),
      p99_ratio: z.number(),
    }),
  ),
});

/** Layout scaling: in-process server time per hop against JSON.parse + JSON.stringify of the same request. */
export const LayoutScalingResults = z.object({
  repetitions: z.int(),
  rows: z.array(
    z.object({
      components: z.int(),
      request_bytes: z.int(),
      server_ms_per_hop: z.number(),
      floor_ms_per_hop: z.number(),
      ratio: z.number(),
      /** The server time of the turn's first and last hop (the stored turn grows in between). */
      first_hop_ms: z.number(),
      last_hop_ms: z.number(),
    }),
  ),
  /** True when no size's ratio exceeds the previous size's by more than the noise allowance. */
  ratio_flat_or_falling: z.boolean(),
});

/** State growth: what the turn store holds for a turn after each hop. */
export const StateGrowthResults = z.object({
  turns: z.array(
    z.object({
      layout_components: z.int(),
      rows: z.array(
        z.object({
          hop: z.int(),
          kind: z.enum(['active', 'finished']),
          stored_bytes: z.int(),
          added_bytes: z.int(),
          /** How many times the latest hop's narration text occurs in what is stored. */
          narration_copies: z.int(),
        }),
      ),
      /** True when every hop of the active turn added about as much as the others (no hop adds a growing amount). */
      linear: z.boolean(),
    }),
  ),
});

/** Attack bodies: the event-loop stall of one such request, and /healthz while several are in flight. */
export const AttackStallResults = z.object({
  repetitions: z.int(),
  concurrent: z.int(),
  probe_every_ms: z.number(),
  /** The bodies' size as a share of the limits. */
  scale: z.number(),
  /** Whether another process kept one core busy meanwhile. */
  busy_core: z.boolean(),
  rows: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      bytes: z.int(),
      /** Copies in flight at once for the concurrent figures. */
      concurrent: z.int(),
      /** The HTTP status of a single send. */
      status: z.int(),
      /** The distinct statuses of the concurrent sends. */
      concurrent_statuses: z.array(z.int()),
      /** The longest event-loop stall of the server while one such request was served (ms). */
      stall_ms: z.number(),
      /** The longest stall while `concurrent` of them were served at once. */
      concurrent_stall_ms: z.number(),
      /** The slowest /healthz answer meanwhile (ms, measured by the client). */
      healthz_max_ms: z.number(),
      healthz_probes: z.int(),
    }),
  ),
  worst_stall_ms: z.number(),
  worst_healthz_ms: z.number(),
});

/** Cost growth: the server's CPU time for each request and model-reply shape at 1× and 4× its size. */
export const CostGrowthResults = z.object({
  repetitions: z.int(),
  /** The shapes' base size as a share of the full run's. */
  scale: z.number(),
  /** What the CPU time is (the server process's own count). */
  cpu_source: z.string(),
  rows: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['request', 'reply']),
      description: z.string(),
      /** The hops of the turn whose server CPU time is counted. */
      measured_hops: z.array(z.int()),
      /** Bytes of the measured hops' requests at 1× and 4×. */
      request_bytes_1x: z.int(),
      request_bytes_4x: z.int(),
      /** Server CPU time over the measured hops (ms, median of the repetitions). */
      cpu_ms_1x: z.number(),
      cpu_ms_4x: z.number(),
      /** cpu_ms_4x ÷ cpu_ms_1x: at most about 4 when the work is linear in what the request and the reply carry. */
      growth: z.number(),
    }),
  ),
  worst_growth: z.number(),
});

/** The live model: one turn through the real loop and server behind a model of fixed latency, JSON against streamed. */
export const LiveModelResults = z.object({
  /** L: each model decision's latency. */
  latency_ms: z.number(),
  /** When a decision's first word comes. */
  first_token_ms: z.number(),
  repetitions: z.int(),
  modes: z.array(
    z.object({
      mode: z.enum(['json', 'stream']),
      /** When each row reached the page, from the send (ms): medians. */
      rows_ms: z.array(z.number()),
      /** The same ÷ L. */
      row_ratios: z.array(z.number()),
      /** When the first narration character reached the client, from the send (ms). */
      first_narration_ms: z.number(),
      /** When the model handed out its first word, from the send (ms). */
      first_token_ms: z.number(),
      /** first_narration_ms ÷ first_token_ms. */
      first_narration_ratio: z.number(),
      /** The whole turn (ms). */
      turn_ms: z.number(),
    }),
  ),
});

/** One bundle: minified and min+gzip bytes of the JavaScript files it is made of (each gzipped on its own). */
export const BundleSize = z.object({
  name: z.string(),
  description: z.string(),
  files: z.array(z.string()),
  min_bytes: z.int(),
  gzip_bytes: z.int(),
});

/** The widget as a host's own bundler builds it (lit and deep-chat external, or bundled too), with what it holds. */
export const HostBundleSize = z.object({
  bundler: z.enum(['rolldown', 'esbuild']),
  entry: z.enum(['loop', 'loop-undo', 'root', 'element']),
  /** `external`: the app already has lit and deep-chat; `bundled`: it has neither, so they are in the bundle. */
  dependencies: z.enum(['external', 'bundled']),
  min_bytes: z.int(),
  gzip_bytes: z.int(),
  modules: z.int(),
  /** Modules it holds that a host bundle must not (server code, yaml, zod locales): [] when clean. */
  forbidden_modules: z.array(z.string()),
});

/** Widget: bundle sizes and the client's per-hop work in Chromium. */
export const WidgetResults = z.object({
  bundles: z.array(BundleSize),
  host_bundles: z.array(HostBundleSize),
  client: z.object({
    browser: z.string(),
    repetitions: z.int(),
    rows: z.array(
      z.object({
        components: z.int(),
        per_hop_ms: z.number(),
        floor_ms: z.number(),
        ratio: z.number(),
        /** The part of the per-hop time spent in the host's applyOutputs (the protocol's reducer). */
        apply_ms: z.number(),
      }),
    ),
  }),
});

/** Change detection (spec §16.1): its server time per hop and the fingerprint it stores, by page size. */
export const ChangeDetectionResults = z.object({
  repetitions: z.int(),
  rows: z.array(
    z.object({
      components: z.int(),
      /** The stored fingerprint of the expected document (JSON bytes); it replaces the previous hop's. */
      digest_bytes: z.int(),
      /** The layout's own JSON bytes, for scale. */
      layout_bytes: z.int(),
      /** Per hop, on a page the person did not change (what every hop pays), as the hop's log line says. */
      detection_ms: z.number(),
      /** The same when the person retyped a prop before every hop (the comparison finds it, the model is told). */
      detection_with_edit_ms: z.number(),
      /** Detection ÷ the server's whole time for the same hops. */
      share_of_hop: z.number(),
      share_of_hop_with_edit: z.number(),
    }),
  ),
});

/** Prompt cache: per model call of one turn, its prompt and the part of it that repeats the previous call's. */
export const PromptCacheResults = z.object({
  scenario: z.string(),
  /** Whether the provider asked for streamed replies (the endpoint answers either way). */
  streamed: z.boolean(),
  calls: z.array(
    z.object({
      call: z.int(),
      /** The tool definitions and the messages as sent, in characters. */
      prompt_chars: z.int(),
      /** How many of them are a prefix of the previous call's prompt (what a prompt cache reuses). */
      prefix_chars: z.int(),
      share: z.number(),
    }),
  ),
  total_chars: z.int(),
  prefix_chars: z.int(),
  /** prefix_chars ÷ total_chars; call 1 is compared with the call of an earlier turn of the same agent. */
  share: z.number(),
  /** The same with call 1 counted as reusing nothing (no earlier turn): at most (n-1)/n for n calls. */
  share_cold: z.number(),
});

/** bench/results.json */
export const BenchResults = z.object({
  schema: z.literal(1),
  generated_at: z.string(),
  size: z.enum(['full', 'tiny']),
  machine: z.object({ node: z.string(), platform: z.string(), cpus: z.int(), cpu_model: z.string() }),
  duration_s: z.number(),
  server_hop: ServerHopResults.optional(),
  layout_scaling: LayoutScalingResults.optional(),
  change_detection: ChangeDetectionResults.optional(),
  state_growth: StateGrowthResults.optional(),
  attack_stall: AttackStallResults.optional(),
  cost_growth: CostGrowthResults.optional(),
  live_model: LiveModelResults.optional(),
  widget: WidgetResults.optional(),
  prompt_cache: PromptCacheResults.optional(),
  targets: z.array(TargetResult),
});
export type BenchResults = z.infer<typeof BenchResults>;
export type ServerHopResults = z.infer<typeof ServerHopResults>;
export type LayoutScalingResults = z.infer<typeof LayoutScalingResults>;
export type StateGrowthResults = z.infer<typeof StateGrowthResults>;
export type AttackStallResults = z.infer<typeof AttackStallResults>;
export type CostGrowthResults = z.infer<typeof CostGrowthResults>;
export type LiveModelResults = z.infer<typeof LiveModelResults>;
export type WidgetResults = z.infer<typeof WidgetResults>;
export type ChangeDetectionResults = z.infer<typeof ChangeDetectionResults>;
export type PromptCacheResults = z.infer<typeof PromptCacheResults>;
export type BundleSize = z.infer<typeof BundleSize>;
export type HostBundleSize = z.infer<typeof HostBundleSize>;
export type LoadFigures = z.infer<typeof LoadFigures>;
