import { compareWithBaseline, WORSE_BEYOND } from './baseline.js';
import type { BenchResults } from './results.js';
import { round } from './shared/stats.js';

/**
 * Formats rows as an aligned text table: numbers right-aligned, and text columns (the first one, and any listed in
 * `textColumns`) left-aligned.
 */
export function formatTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly (string | number)[]>,
  textColumns: readonly number[] = [],
): string {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const left = new Set([0, ...textColumns]);
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => (left.has(column) ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(cells[0]!), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
/** A target's figure with its unit: bytes as B, milliseconds as ms, ratios as ×. */
const withUnit = (value: number, unit: string) =>
  `${value}${unit === 'bytes' ? ' B' : unit === 'ms' ? ' ms' : unit === 'chars' ? ' chars' : '×'}`;
const x = (ratio: number) => `${ratio}×`;

/** The whole report `pnpm bench` prints: one table per group, then the targets (beside the baseline, when given). */
export function formatResults(results: BenchResults, baseline?: { results: BenchResults; file: string }): string {
  const header =
    `Canvas AI bench (${results.size}) — ${results.machine.cpus} × ${results.machine.cpu_model}, Node ${results.machine.node}, ` +
    `${results.duration_s} s. Every ratio is against a floor measured in the same run.`;
  return [header, ...SECTIONS.flatMap((section) => section(results)), ...targetsSection(results, baseline)].join(
    '\n\n',
  );
}

/** The report's tables, in order; a group that did not run has none. */
const SECTIONS: ReadonlyArray<(results: BenchResults) => string[]> = [
  serverHopSection,
  layoutScalingSection,
  stateGrowthSection,
  changeDetectionSection,
  costGrowthSection,
  attackStallSection,
  liveModelSection,
  widgetSections,
  promptCacheSection,
];

/** The server hop overhead table. */
function serverHopSection(results: BenchResults): string[] {
  const sections: string[] = [];
  const hop = results.server_hop;
  if (hop) {
    sections.push(
      `Server hop overhead: POST /api/hop, ${hop.layout_components}-component layout, ${hop.hops_per_turn}-hop turns, scripted model ` +
        `(median of ${hop.repetitions} × ${hop.window_s} s). Floor: bare node:http, same request JSON, same response size.\n` +
        formatTable(
          [
            'concurrency',
            'server hops/s',
            'floor hops/s',
            'throughput',
            'server p50',
            'floor p50',
            'server p99',
            'floor p99',
            'p50 ×',
            'p99 ×',
            'client cpu',
          ],
          hop.rows.map((row) => [
            row.concurrency,
            row.server.hops_per_s,
            row.floor.hops_per_s,
            x(row.throughput_ratio),
            `${row.server.p50_ms} ms`,
            `${row.floor.p50_ms} ms`,
            `${row.server.p99_ms} ms`,
            `${row.floor.p99_ms} ms`,
            x(row.p50_ratio),
            x(row.p99_ratio),
            `${row.server.client_cpu} / ${row.floor.client_cpu}`,
          ]),
        ),
    );
  }
  return sections;
}

/** The layout scaling table. */
function layoutScalingSection(results: BenchResults): string[] {
  const sections: string[] = [];
  const scaling = results.layout_scaling;
  if (scaling) {
    sections.push(
      `Layout scaling: server time per hop in-process (app.fetch, no socket) vs JSON.parse + JSON.stringify of the request ` +
        `(median of ${scaling.repetitions}). Ratio ${scaling.ratio_flat_or_falling ? 'does not grow' : 'GROWS'} with size.\n` +
        formatTable(
          ['components', 'request', 'server ms/hop', 'floor ms', 'ratio', 'hop 1 ms', 'last hop ms'],
          scaling.rows.map((row) => [
            row.components.toLocaleString('en-US'),
            kb(row.request_bytes),
            row.server_ms_per_hop,
            row.floor_ms_per_hop,
            x(row.ratio),
            row.first_hop_ms,
            row.last_hop_ms,
          ]),
        ),
    );
  }
  return sections;
}

/** One state growth table per layout size. */
function stateGrowthSection(results: BenchResults): string[] {
  const sections: string[] = [];
  for (const turn of results.state_growth?.turns ?? []) {
    sections.push(
      `State growth: bytes stored for one 11-hop turn after each hop, ${turn.layout_components.toLocaleString('en-US')}-component layout ` +
        `(${turn.linear ? 'linear' : 'NOT linear'}; hop 10 keeps only the final response).\n` +
        formatTable(
          ['hop', 'kind', 'stored bytes', 'added', 'narration copies'],
          turn.rows.map((row) => [row.hop, row.kind, row.stored_bytes, row.added_bytes, row.narration_copies]),
          [1],
        ),
    );
  }
  return sections;
}

/** The change detection table. */
function changeDetectionSection(results: BenchResults): string[] {
  const sections: string[] = [];
  const detection = results.change_detection;
  if (detection) {
    sections.push(
      "Change detection (spec §16.1): comparing each request with the stored fingerprint and fingerprinting the next expected page, per hop (the hop's log line), as a share of the server's time for the same hops; unchanged pages, and the person retyping a prop before every hop; the fingerprint's bytes vs the layout's.\n" +
        formatTable(
          ['components', 'detection ms', 'share', 'with an edit ms', 'share', 'fingerprint', 'layout'],
          detection.rows.map((row) => [
            row.components.toLocaleString('en-US'),
            row.detection_ms,
            `${round(row.share_of_hop * 100, 1)}%`,
            row.detection_with_edit_ms,
            `${round(row.share_of_hop_with_edit * 100, 1)}%`,
            kb(row.digest_bytes),
            kb(row.layout_bytes),
          ]),
        ),
    );
  }
  return sections;
}

/** The cost growth table. */
function costGrowthSection(results: BenchResults): string[] {
  const sections: string[] = [];
  const cost = results.cost_growth;
  if (cost) {
    sections.push(
      `Cost growth: the server's CPU time (${cost.cpu_source}) for each request and model-reply shape at 1× and 4× ` +
        `its size, median of ${cost.repetitions} (sizes at ${cost.scale === 1 ? 'the full run' : `${cost.scale} × the full run`}). ` +
        `Worst growth ${cost.worst_growth}× for 4× the input (target at most 5×).\n` +
        formatTable(
          ['shape', 'kind', 'hops', 'request 1×', 'request 4×', 'cpu 1×', 'cpu 4×', 'growth'],
          cost.rows.map((row) => [
            row.name,
            row.kind,
            row.measured_hops.join('+'),
            kb(row.request_bytes_1x),
            kb(row.request_bytes_4x),
            `${row.cpu_ms_1x} ms`,
            `${row.cpu_ms_4x} ms`,
            `${row.growth}×${row.growth > 5 ? ' (missed)' : ''}`,
          ]),
        ),
    );
  }
  return sections;
}

/** The attack bodies table. */
function attackStallSection(results: BenchResults): string[] {
  const sections: string[] = [];
  const attack = results.attack_stall;
  if (attack) {
    sections.push(
      `Attack bodies: the server's longest event-loop stall while it answers one body (worst of ${attack.repetitions}), ` +
        `then ${attack.concurrent} at once (n: the review's cases four) with /healthz asked every ${attack.probe_every_ms} ms ` +
        `(bodies at ${attack.scale === 1 ? 'the limits' : `${attack.scale} × the limits`}` +
        `${attack.busy_core ? '; another process keeps one core busy' : ''}). ` +
        `Worst stall ${attack.worst_stall_ms} ms, slowest /healthz ${attack.worst_healthz_ms} ms.\n` +
        formatTable(
          ['body', 'size', 'status', 'stall', 'n', 'n× stall', 'n× /healthz max', 'probes'],
          attack.rows.map((row) => [
            row.name,
            mb(row.bytes),
            row.concurrent_statuses.length > 1 || row.concurrent_statuses[0] !== row.status
              ? `${row.status} (${row.concurrent_statuses.join('/')})`
              : row.status,
            `${row.stall_ms} ms`,
            row.concurrent,
            `${row.concurrent_stall_ms} ms`,
            `${row.healthz_max_ms} ms`,
            row.healthz_probes,
          ]),
        ),
    );
  }
  return sections;
}

/** The live model table. */
function liveModelSection(results: BenchResults): string[] {
  const sections: string[] = [];
  const live = results.live_model;
  if (live) {
    const rows = Math.max(...live.modes.map((mode) => mode.row_ratios.length));
    sections.push(
      `Live model: the cookie-shop turn through the real loop and server, model latency L = ${live.latency_ms} ms ` +
        `(first word at ${live.first_token_ms} ms), median of ${live.repetitions}. Rows: when each reached the page ÷ L; ` +
        'narration: the first character at the client ÷ the time to the first word.\n' +
        formatTable(
          ['answer', ...Array.from({ length: rows }, (_, row) => `row ${row + 1}`), 'narration', 'turn'],
          live.modes.map((mode) => [
            mode.mode === 'stream' ? 'streamed' : 'JSON',
            ...mode.row_ratios.map((ratio, row) => `${ratio} (${mode.rows_ms[row]} ms)`),
            `${mode.first_narration_ratio} (${mode.first_narration_ms} ms)`,
            `${mode.turn_ms} ms`,
          ]),
        ),
    );
  }
  return sections;
}

/** The entry a host bundle imports, as the host writes it. */
const HOST_IMPORTS = {
  loop: "'@canvas-ai/widget/loop'",
  'loop-undo': "'@canvas-ai/widget/loop' + undoRecording",
  root: "'@canvas-ai/widget'",
  element: "'@canvas-ai/widget/define'",
} as const;

/** The widget's three tables: its bundles, in a host's bundle, and its client time per hop. */
function widgetSections(results: BenchResults): string[] {
  const sections: string[] = [];
  const widget = results.widget;
  if (widget) {
    sections.push(
      'Widget bundles (min+gzip, each file gzipped at level 9).\n' +
        formatTable(
          ['bundle', 'min', 'min+gzip', 'what'],
          widget.bundles.map((bundle) => [
            bundle.name,
            kb(bundle.min_bytes),
            kb(bundle.gzip_bytes),
            bundle.description,
          ]),
          [3],
        ),
    );
    sections.push(
      "The widget in a host's own bundle (minified; must hold no server code): lit and deep-chat external (the app has " +
        'them) or bundled (it has neither).\n' +
        formatTable(
          ['import', 'lit, deep-chat', 'bundler', 'min', 'min+gzip', 'modules', 'forbidden modules'],
          widget.host_bundles.map((bundle) => [
            HOST_IMPORTS[bundle.entry],
            bundle.dependencies,
            bundle.bundler,
            kb(bundle.min_bytes),
            kb(bundle.gzip_bytes),
            bundle.modules,
            bundle.forbidden_modules.length === 0 ? 'none' : bundle.forbidden_modules.join('; '),
          ]),
          [0, 1, 2, 6],
        ),
    );
    sections.push(
      `Widget client per hop in ${widget.client.browser}: getLayout → build + serialize → read response → applyOutputs, ` +
        `vs JSON.stringify of the layout (median of ${widget.client.repetitions}).\n` +
        formatTable(
          ['components', 'per hop ms', 'of which apply', 'JSON.stringify ms', 'ratio'],
          widget.client.rows.map((row) => [
            row.components.toLocaleString('en-US'),
            row.per_hop_ms,
            row.apply_ms,
            row.floor_ms,
            x(row.ratio),
          ]),
        ),
    );
  }
  return sections;
}

/** The prompt cache table. */
function promptCacheSection(results: BenchResults): string[] {
  const sections: string[] = [];
  const cache = results.prompt_cache;
  if (cache) {
    const pct = (share: number) => `${round(share * 100, 1)}%`;
    sections.push(
      `Prompt cache: the ${cache.scenario} turn through the OpenAI-compatible provider (${cache.streamed ? 'streamed' : 'not streamed'}); ` +
        `per model call, the prompt (tools + messages as sent) and the part that is a prefix of the previous call's ` +
        `(call 1: of an earlier turn's, another page and question). ${cache.total_chars.toLocaleString('en-US')} ` +
        `characters in all, ${pct(cache.share)} reused (${pct(cache.share_cold)} counting call 1 as reusing nothing).\n` +
        formatTable(
          ['call', 'prompt chars', 'prefix of previous', 'share'],
          cache.calls.map((call) => [call.call, call.prompt_chars, call.prefix_chars, pct(call.share)]),
        ),
    );
  }
  return sections;
}

/** The targets, met or not, and beside the baseline's figures with the change in percent when there is one. */
function targetsSection(results: BenchResults, given: { results: BenchResults; file: string } | undefined): string[] {
  const baseline = given?.results;
  const changes = compareWithBaseline(results, baseline);
  const compared = changes.size > 0;
  const rows = results.targets.map((target) => {
    const row = [
      target.description,
      target.value === null ? '—' : withUnit(target.value, target.unit),
      `${target.comparison === 'at_least' ? '≥' : '≤'} ${withUnit(target.limit, target.unit)}`,
      target.met === null ? 'not run' : target.met ? 'yes' : 'NO',
    ];
    if (!compared) return row;
    const change = changes.get(target.id);
    const before = change?.baseline;
    return [
      ...row,
      before === null || before === undefined ? '—' : withUnit(before, target.unit),
      change?.change === null || change?.change === undefined ? '—' : percent(change.change, change.worse),
    ];
  });
  const header = ['target', 'measured', 'limit', 'met', ...(compared ? ['baseline', 'change'] : [])];
  const worse = results.targets.filter((target) => changes.get(target.id)?.worse);
  const notes = !baseline
    ? ['No baseline (bench/baseline.json): nothing to compare with.']
    : !compared
      ? [`The baseline is a ${baseline.size} run; this is a ${results.size} run: not compared.`]
      : [
          `Baseline: ${given?.file}, ${baseline.generated_at}, ${baseline.machine.cpus} × ${baseline.machine.cpu_model}.`,
          worse.length === 0
            ? `No figure is more than ${WORSE_BEYOND * 100} % worse than the baseline.`
            : `More than ${WORSE_BEYOND * 100} % worse than the baseline: ${worse.map((target) => target.id).join(', ')}.`,
        ];
  return [`Targets (bench/README.md)\n${formatTable(header, rows)}\n${notes.join('\n')}`];
}

/** A change as a signed percentage, marked when it goes against its target by more than the threshold. */
function percent(change: number, worse: boolean): string {
  const value = `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %`;
  return worse ? `${value} WORSE` : value;
}
