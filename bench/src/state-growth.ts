import { MemoryTurnStore, type TurnLock, type TurnStore } from '@canvas-ai/reference-server';
import type { BenchProfile } from './profiles.js';
import type { StateGrowthResults } from './results.js';
import { BenchTurnClient, loadBenchScenario } from './shared/bench-turn.js';
import { inProcessServer } from './shared/in-process.js';
import { benchLayout } from './shared/layout.js';
import { median } from './shared/stats.js';

/** One hop may add this much more than the median hop and still count as linear growth. */
const GROWTH_ALLOWANCE = 1.5;

/**
 * State growth: the bytes the turn store holds for one turn after each hop (the JSON a shared store such as Redis
 * would keep), read by wrapping the memory store, and how many copies of each hop's narration they contain.
 */
export async function benchStateGrowth(
  profile: BenchProfile['stateGrowth'],
  log: (line: string) => void,
): Promise<StateGrowthResults> {
  const scenario = await loadBenchScenario();
  const store = new RecordingStore(new MemoryTurnStore());
  const server = await inProcessServer(store);
  const turns: StateGrowthResults['turns'] = [];
  for (const components of profile.sizes) {
    const client = new BenchTurnClient(scenario, benchLayout(components));
    const requestId = `growth-${components}`;
    const rows: StateGrowthResults['turns'][number]['rows'] = [];
    let previous = 0;
    for (let body: string | undefined = client.start(requestId); body !== undefined; ) {
      const hop = client.hop;
      const response = await server.app.fetch(server.hopRequest(body));
      const text = await response.text();
      if (response.status !== 200) throw new Error(`state growth: hop ${hop} answered ${response.status}: ${text}`);
      body = client.next(text);
      const stored = store.lastWritten(requestId);
      if (!stored) throw new Error(`state growth: hop ${hop} stored nothing for the turn`);
      // The last hop makes no decision (it gives the answer held back for the host's report).
      const narration = scenario.replies[hop - 1]?.text ?? scenario.replies.at(-1)!.text;
      rows.push({
        hop,
        kind: stored.kind,
        stored_bytes: stored.bytes,
        added_bytes: stored.bytes - previous,
        narration_copies: countOccurrences(stored.json, JSON.stringify(narration).slice(1, -1)),
      });
      previous = stored.bytes;
    }
    // Hop 1 seeds the turn and the last hop keeps only the final response: growth is judged on hops 2 … n-1.
    const added = rows.filter((row) => row.kind === 'active' && row.hop > 1).map((row) => row.added_bytes);
    const linear = added.length === 0 || Math.max(...added) <= median(added) * GROWTH_ALLOWANCE;
    turns.push({ layout_components: components, rows, linear });
    log(`state growth ${components}: ${rows.map((row) => row.stored_bytes).join(' → ')} bytes`);
  }
  return { turns };
}

/** A turn store that remembers the size of the last value written under each key. */
class RecordingStore implements TurnStore {
  readonly #inner: TurnStore;
  readonly #written = new Map<string, { json: string; bytes: number; kind: 'active' | 'finished' }>();

  constructor(inner: TurnStore) {
    this.#inner = inner;
  }

  /**
   * The last value written for the turn whose key ends with `:requestId`, its bytes with those of the large notices
   * the turn keeps under keys of their own (`<turn key>/page/<id>`, the reference server's stored-pages.ts).
   */
  lastWritten(requestId: string) {
    let record: { json: string; bytes: number; kind: 'active' | 'finished' } | undefined;
    let pages = 0;
    for (const [key, value] of this.#written) {
      if (key.endsWith(`:${requestId}`)) record = value;
      else if (key.includes(`:${requestId}/page/`)) pages += value.bytes;
    }
    return record && { ...record, bytes: record.bytes + pages };
  }

  get(key: string): Promise<unknown> {
    return this.#inner.get(key);
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    const json = JSON.stringify(value);
    const kind = (value as { kind?: string } | null)?.kind === 'finished' ? 'finished' : 'active';
    this.#written.set(key, { json, bytes: Buffer.byteLength(json), kind });
    return this.#inner.set(key, value, ttlMs);
  }

  delete(key: string): Promise<void> {
    this.#written.delete(key);
    return this.#inner.delete(key);
  }

  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.#inner.lock(key, ttlMs);
  }
}

function countOccurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count += 1;
  return count;
}
