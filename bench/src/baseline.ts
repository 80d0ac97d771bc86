import { readFile } from 'node:fs/promises';
import { errorMessage } from '@canvas-ai/protocol';
import { BenchResults, type TargetResult } from './results.js';

/** The committed baseline `pnpm bench` compares with: a full run on a quiet machine (bench/README.md, "Baseline"). */
export const BASELINE_FILE = 'baseline.json';

/** A figure this much worse than the baseline is called out (and its commit says so). */
export const WORSE_BEYOND = 0.1;

/** One target's figure beside the baseline's. */
export interface TargetChange {
  baseline: number | null;
  /** (now − baseline) ÷ baseline; null when either was not measured or the baseline is 0. */
  change: number | null;
  /** Whether the change goes against the target (up for at_most, down for at_least) by more than {@link WORSE_BEYOND}. */
  worse: boolean;
}

/**
 * Each target of this run beside the baseline's figure for it, by target id. Empty when there is no baseline or it
 * was measured at another size (a tiny run's figures say nothing about a full one's).
 */
export function compareWithBaseline(
  results: Pick<BenchResults, 'size' | 'targets'>,
  baseline: Pick<BenchResults, 'size' | 'targets'> | undefined,
): Map<TargetResult['id'], TargetChange> {
  const changes = new Map<TargetResult['id'], TargetChange>();
  if (!baseline || baseline.size !== results.size) return changes;
  for (const target of results.targets) {
    const before = baseline.targets.find((candidate) => candidate.id === target.id)?.value ?? null;
    const change = target.value === null || before === null || before === 0 ? null : (target.value - before) / before;
    const against = change === null ? 0 : target.comparison === 'at_most' ? change : -change;
    changes.set(target.id, { baseline: before, change, worse: against > WORSE_BEYOND });
  }
  return changes;
}

/** The baseline at `path`, or undefined when there is none; a file that is not a bench result is an error. */
export async function readBaseline(path: string): Promise<BenchResults | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = BenchResults.safeParse(safeJson(text));
  if (!parsed.success) {
    throw new Error(`${path} is not a bench result (results.json's shape): ${errorMessage(parsed.error)}`);
  }
  return parsed.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
