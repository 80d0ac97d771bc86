import { MUST_MATRIX, type MustRow } from '@canvas-ai/conformance';
import type { Fixtures } from '@canvas-ai/protocol/scenario';
import type { VariantApp } from './seams.js';

/**
 * A broken variant of the reference server: one planted bug, the MUST rows it breaks (the matrix of conformance.md §6;
 * more than one only where the spec states one rule twice), the check that must catch it (one the row claims), and
 * the other checks that see the same bug (ids, or families such as `scenario.*` for a bug every scenario runs into).
 * The kit must fail the first and may fail only these: a failure elsewhere would name the wrong rule. Each one listed
 * must fail too, except the `mayAlsoFail` ones.
 */
export interface BrokenVariant {
  bug: string;
  breaks: readonly MustRow[];
  caughtBy: string;
  alsoFailing?: readonly string[];
  /** Checks that see the bug only when the timing of a burst lets them meet it (a 409 while a hop runs). */
  mayAlsoFail?: readonly string[];
  build(fixtures: Fixtures): VariantApp;
}

/**
 * The row of the matrix for the MUST sentence of `section` (`spec §8.6`, or `conformance.md §3` for scripted mode) that
 * starts with `says`; throws unless exactly one row matches, so a variant never names a rule the matrix lost.
 */
export function must(section: string, says: string): MustRow {
  const [, where, number] = /^(spec|conformance\.md) \u00a7(\S+)$/.exec(section) ?? [];
  const document = where === 'conformance.md' ? 'conformance.md' : undefined;
  const rows = MUST_MATRIX.filter(
    (row) => row.document === document && row.section === number && row.says.startsWith(says),
  );
  if (rows.length !== 1) throw new Error(`${rows.length} MUST rows match ${section} "${says}"`);
  return rows[0]!;
}
