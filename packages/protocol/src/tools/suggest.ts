/** The edit distance between two strings (insertions, deletions, substitutions). */
function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The last dotted segment of an id (`sdc.demo.hero` → `hero`): models often get the prefix right and the rest wrong. */
function tail(id: string): string {
  return id.slice(id.lastIndexOf('.') + 1);
}

/**
 * Up to `max` candidates close to `word`, closest first: a small edit distance on the whole id or on its last
 * segment, or one containing the other. Used to say "did you mean …" for unknown ids, props and slots.
 */
export function closestMatches(word: string, candidates: readonly string[], max = 3): string[] {
  const needle = word.toLowerCase();
  const scored: Array<{ candidate: string; score: number }> = [];
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    const whole = levenshtein(needle, lower);
    const short = levenshtein(tail(needle), tail(lower));
    const contains = tail(needle).length >= 3 && (lower.includes(tail(needle)) || needle.includes(tail(lower)));
    const score = Math.min(whole, short, contains ? 1 : Infinity);
    const threshold = Math.max(2, Math.floor(Math.min(needle.length, tail(lower).length) / 3));
    if (score <= threshold) scored.push({ candidate, score });
  }
  // Stable on ties: candidates keep their catalog order.
  return scored
    .sort((a, b) => a.score - b.score)
    .slice(0, max)
    .map((entry) => entry.candidate);
}

/** `; did you mean a or b?`, or an empty string when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const matches = closestMatches(word, candidates);
  if (matches.length === 0) return '';
  return `; did you mean ${matches.map((match) => `\`${match}\``).join(' or ')}?`;
}
