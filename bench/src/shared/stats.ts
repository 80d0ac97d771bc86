/** The median of a non-empty list (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('the median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The p-th percentile (0–100) by nearest rank: a value that was actually observed. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError('a percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The arithmetic mean of a non-empty list. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('the mean of no values');
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Rounds to `digits` decimals, so results.json holds readable numbers. */
export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
