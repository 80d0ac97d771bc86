import { applyOutputs, type CanvasDocument, type ComponentNode } from '@canvas-ai/protocol';
import { diffDocument, digestDocument } from '@canvas-ai/protocol/server';
import type { BenchProfile } from './profiles.js';
import type { ChangeDetectionResults, LayoutScalingResults } from './results.js';
import { benchLayout } from './shared/layout.js';
import { median, round } from './shared/stats.js';

/**
 * Change detection (spec §16.1): what telling the model about the person's edits costs the server per hop. From
 * hop 2 on it compares the request's document with the fingerprint it stored (`diffDocument`) and fingerprints the
 * document the next request should carry (`digestDocument`); both run on the whole page. Measured in this process
 * on an N-component page where the person retyped one prop, against the server's whole time per hop at the same
 * size from layout scaling in the same run; and the bytes the fingerprint adds to the stored turn.
 */
export function benchChangeDetection(
  profile: BenchProfile['changeDetection'],
  scaling: LayoutScalingResults | undefined,
  log: (line: string) => void,
): ChangeDetectionResults {
  const rows: ChangeDetectionResults['rows'] = [];
  for (const components of profile.sizes) {
    const expected: CanvasDocument = { layout: benchLayout(components), page: { title: 'Crumb & Co.' } };
    const digest = digestDocument(expected);
    const actual = applyOutputs(expected, [
      {
        type: 'edit_components',
        call_id: 'person',
        component_updates: { [lastComponent(expected).uuid]: { body: 'Retyped by the person.' } },
      },
    ]);
    const once = () => {
      const changes = diffDocument(digest, actual);
      digestDocument(actual);
      return changes.length;
    };
    if (once() !== 1) throw new Error(`change detection ${components}: the person's one edit was not found`);
    const samples: number[] = [];
    for (let repetition = 0; repetition < profile.repetitions; repetition += 1) {
      let runs = 0;
      const started = performance.now();
      while (runs === 0 || performance.now() - started < profile.minRepetitionMs) {
        once();
        runs += 1;
      }
      samples.push((performance.now() - started) / runs);
    }
    const detectionMs = median(samples);
    const hopMs = scaling?.rows.find((row) => row.components === components)?.server_ms_per_hop;
    const digestBytes = Buffer.byteLength(JSON.stringify(digest));
    rows.push({
      components,
      digest_bytes: digestBytes,
      layout_bytes: Buffer.byteLength(JSON.stringify(expected.layout)),
      detection_ms: round(detectionMs),
      hop_server_ms: hopMs ?? null,
      share_of_hop: hopMs ? round(detectionMs / hopMs, 3) : null,
    });
    log(
      `change detection ${components}: ${round(detectionMs)} ms per hop${hopMs ? ` of ${hopMs} ms` : ''}, fingerprint ${digestBytes} B`,
    );
  }
  return { repetitions: profile.repetitions, rows };
}

/** The last component of the page, in document order. */
function lastComponent(document: CanvasDocument): ComponentNode {
  let last: ComponentNode | undefined;
  const visit = (nodes: readonly ComponentNode[]): void => {
    for (const node of nodes) {
      last = node;
      for (const children of Object.values(node.slots ?? {})) visit(children);
    }
  };
  for (const region of Object.values(document.layout.regions)) visit(region.components);
  if (!last) throw new Error('the bench page has no component');
  return last;
}
