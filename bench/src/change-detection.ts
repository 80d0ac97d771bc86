import type { LogEntry } from '@canvas-ai/reference-server';
import { digestChars, digestDocument } from '@canvas-ai/protocol/server';
import type { BenchProfile } from './profiles.js';
import type { ChangeDetectionResults } from './results.js';
import { BenchTurnClient, loadBenchScenario } from './shared/bench-turn.js';
import { inProcessServer } from './shared/in-process.js';
import { benchLayout } from './shared/layout.js';
import { median, round } from './shared/stats.js';

/**
 * Change detection (spec §16.1): what telling the model about the person's edits costs the server per hop. From
 * hop 2 on it compares the request's page with the fingerprint it stored and fingerprints the page the next request
 * should carry; the hop's log line says how long that took (`change_detection_ms`). Measured over whole bench turns
 * in this process, like layout scaling, once with the page exactly as predicted (every hop pays this) and once with
 * the person retyping a prop before every hop (the comparison finds it and the model is told), as a share of the
 * server's time for the same hops; and the bytes the fingerprint adds to the stored turn.
 */
export async function benchChangeDetection(
  profile: BenchProfile['changeDetection'],
  log: (line: string) => void,
): Promise<ChangeDetectionResults> {
  const scenario = await loadBenchScenario();
  const hopLines = new Map<string, LogEntry>();
  const server = await inProcessServer(undefined, (entry) => {
    if (entry.event === 'hop') hopLines.set(`${entry.request_id}#${entry.hop}`, entry);
  });
  const rows: ChangeDetectionResults['rows'] = [];
  let turns = 0;
  for (const components of profile.sizes) {
    const layout = benchLayout(components);
    const measure = async (personEdits: boolean) => {
      const client = new BenchTurnClient(scenario, layout, { personEdits });
      const shares: number[] = [];
      const detections: number[] = [];
      for (let repetition = 0; repetition <= profile.repetitions; repetition += 1) {
        let serverMs = 0;
        let detectionMs = 0;
        let changes = 0;
        turns += 1;
        const requestId = `detect-${components}-${turns}`;
        for (let body: string | undefined = client.start(requestId); body !== undefined; ) {
          const hop = client.hop;
          const started = performance.now();
          const response = await server.app.fetch(server.hopRequest(body));
          const text = await response.text();
          const elapsed = performance.now() - started;
          if (response.status !== 200) throw new Error(`change detection: hop ${hop} answered ${response.status}`);
          const line = hopLines.get(`${requestId}#${hop}`);
          if (hop > 1 && line) {
            serverMs += elapsed;
            detectionMs += Number(line.change_detection_ms);
            changes += Number(line.person_changes);
          }
          body = client.next(text);
        }
        if (changes > 0 !== personEdits)
          throw new Error(
            `change detection: ${changes} person changes told in a turn ${personEdits ? 'with' : 'without'} edits`,
          );
        // The first turn warms the JIT up; it is not counted.
        if (repetition > 0) {
          shares.push(detectionMs / serverMs);
          detections.push(detectionMs / (client.hop - 1));
        }
      }
      return { share: median(shares), ms: median(detections) };
    };
    const unchanged = await measure(false);
    const edited = await measure(true);
    const digest = digestDocument({ layout, page: {} });
    rows.push({
      components,
      digest_bytes: digestChars(digest),
      layout_bytes: Buffer.byteLength(JSON.stringify(layout)),
      detection_ms: round(unchanged.ms),
      detection_with_edit_ms: round(edited.ms),
      share_of_hop: round(unchanged.share, 3),
      share_of_hop_with_edit: round(edited.share, 3),
    });
    log(
      `change detection ${components}: ${round(unchanged.ms)} ms per hop (${round(unchanged.share * 100, 1)}%), ${round(edited.ms)} ms with an edit (${round(edited.share * 100, 1)}%)`,
    );
  }
  return { repetitions: profile.repetitions, rows };
}
