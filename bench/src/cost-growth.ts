import { fileURLToPath } from 'node:url';
import {
  applyOutputsWithResults,
  type ApplyResult,
  type CanvasDocument,
  HopResponse,
  PROTOCOL_VERSION,
} from '@canvas-ai/protocol';
import type { BenchProfile } from './profiles.js';
import type { CostGrowthResults } from './results.js';
import { startChildServer } from './shared/child-server.js';
import { type CostShape, type CostSize, COST_SHAPES, costMessage } from './shared/cost-shapes.js';
import { openSession } from './shared/http-load.js';
import { median, round } from './shared/stats.js';

const COST_SERVER = fileURLToPath(new URL('./shared/cost-server.ts', import.meta.url));

/** The sizes compared: the shape at 1× and at 4×. */
const FACTORS = [1, 4] as const;

/**
 * Cost growth: every request shape and every model-reply shape of src/shared/cost-shapes.ts at 1× and 4× its size,
 * each as a whole turn against the reference server in a child process behind the fake model; the server's CPU time
 * (its own `process.cpuUsage`, user + system) over the hops the shape measures, median of the repetitions. `growth`
 * = 4× ÷ 1×: about 4 (or less: fixed work per hop) when the server's work is linear in what the request and the reply
 * carry; above 5 is a step that grows faster than its input.
 */
export async function benchCostGrowth(
  profile: BenchProfile['costGrowth'],
  log: (line: string) => void,
): Promise<CostGrowthResults> {
  const server = await startChildServer(COST_SERVER, []);
  try {
    log(`cost growth: server pid ${server.pid}`);
    const rows: CostGrowthResults['rows'] = [];
    for (const shape of COST_SHAPES) {
      // One turn first, unmeasured: the first run of any code path pays for its compilation.
      await playTurn(server.url, shape, { factor: 1, scale: profile.scale });
      const cpu: Record<number, number[]> = { 1: [], 4: [] };
      const bytes: Record<number, number> = { 1: 0, 4: 0 };
      for (let repetition = 0; repetition < profile.repetitions; repetition += 1) {
        for (const factor of FACTORS) {
          const turn = await playTurn(server.url, shape, { factor, scale: profile.scale });
          cpu[factor]!.push(turn.cpuMs);
          bytes[factor] = turn.requestBytes;
        }
      }
      const one = median(cpu[1]!);
      const four = median(cpu[4]!);
      rows.push({
        name: shape.name,
        kind: shape.kind,
        description: shape.description,
        measured_hops: [...shape.measured],
        request_bytes_1x: bytes[1]!,
        request_bytes_4x: bytes[4]!,
        cpu_ms_1x: round(one),
        cpu_ms_4x: round(four),
        growth: round(four / Math.max(one, 0.001), 2),
      });
      log(`cost ${shape.name}: ${round(one)} ms at 1×, ${round(four)} ms at 4× (${round(four / one, 2)}×)`);
    }
    return {
      repetitions: profile.repetitions,
      scale: profile.scale,
      cpu_source: 'process.cpuUsage() of the server process (user + system) over the measured hops',
      rows,
      worst_growth: round(Math.max(...rows.map((row) => row.growth)), 2),
    };
  } finally {
    await server.stop();
  }
}

/** Plays one whole turn of `shape` as a well-behaved client; the server CPU time and request bytes of its measured hops. */
async function playTurn(
  url: string,
  shape: CostShape,
  size: CostSize,
): Promise<{ cpuMs: number; requestBytes: number }> {
  const session = await openSession(url);
  const requestId = `cost-${shape.name}-${size.factor}-${crypto.randomUUID()}`;
  let document: CanvasDocument = { layout: shape.layout(size), page: {} };
  let applyResults: ApplyResult[] | undefined;
  let cpuMs = 0;
  let requestBytes = 0;
  for (let hop = 1; ; hop += 1) {
    if (hop === 2 && shape.personEdits) document = { ...document, layout: shape.personEdits(document.layout, size) };
    const request: Record<string, unknown> = {
      protocol: PROTOCOL_VERSION,
      request_id: requestId,
      hop,
      agent: 'page_builder',
      context: { current_layout: document.layout, page: document.page, selected_component: null },
    };
    if (hop === 1) {
      request.messages = [...(shape.history?.(size) ?? []), { role: 'user', text: costMessage(shape, size) }];
      request.capabilities = { outputs: ['remove_components', 'move_components'] };
    }
    if (applyResults) request.apply_results = applyResults;
    const body = encodeHop(request, hop === 1 ? (shape.attachments?.(size) ?? []) : []);
    const measured = shape.measured.includes(hop);
    const before = measured ? await serverCpuMs(url) : 0;
    const response = await fetch(`${url}/api/hop`, {
      method: 'POST',
      headers: { ...session, 'content-type': body.contentType },
      body: body.bytes,
    });
    const text = await response.text();
    if (measured) {
      cpuMs += (await serverCpuMs(url)) - before;
      requestBytes += body.bytes.byteLength;
    }
    if (response.status !== 200)
      throw new Error(
        `cost ${shape.name} ${size.factor}×: hop ${hop} answered ${response.status}: ${text.slice(0, 300)}`,
      );
    const parsed = HopResponse.parse(JSON.parse(text));
    const applied = applyOutputsWithResults(document, parsed.outputs);
    document = applied.document;
    applyResults = applied.results.length > 0 ? applied.results : undefined;
    if (!parsed.should_continue) break;
    if (hop > 10) throw new Error(`cost ${shape.name}: the turn did not end within 10 hops`);
  }
  return { cpuMs, requestBytes };
}

/** The server's CPU time so far, in milliseconds. */
async function serverCpuMs(url: string): Promise<number> {
  const response = await fetch(`${url}/__bench/cpu`);
  return ((await response.json()) as { cpu_us: number }).cpu_us / 1_000;
}

const encoder = new TextEncoder();

/** A hop as JSON, or as multipart with its attachments. */
function encodeHop(
  request: Record<string, unknown>,
  attachments: readonly Uint8Array[],
): { contentType: string; bytes: Uint8Array<ArrayBuffer> } {
  const json = JSON.stringify(request);
  if (attachments.length === 0) return { contentType: 'application/json', bytes: encoder.encode(json) };
  const boundary = `cost-${crypto.randomUUID()}`;
  const chunks: Uint8Array[] = [
    encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="request"\r\n\r\n${json}\r\n`),
  ];
  attachments.forEach((attachment, index) => {
    chunks.push(
      encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="attachments"; filename="p${index}.png"\r\n` +
          'Content-Type: image/png\r\n\r\n',
      ),
      attachment,
      encoder.encode('\r\n'),
    );
  });
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, bytes };
}
