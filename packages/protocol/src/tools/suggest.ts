/**
 * How much work the "did you mean" searches have done in this process: edit distances computed and the table cells
 * they filled. Only ever added to; tests and the bench read it before and after a step to check that the search is
 * bounded by counting, never by timing (the search once compared an unknown uuid with every uuid of the page: the
 * second security review, G2).
 */
export const suggestionWork = { distances: 0, cells: 0 };

/**
 * The most edits a suggestion may be away. The band of the distance table is this wide on each side of its diagonal,
 * so one distance costs at most (2 × this + 1) cells per character of the shorter string.
 */
export const MAX_SUGGESTION_EDITS = 16;

/**
 * The edit distance between two strings (insertions, deletions, substitutions) when it is at most `max`, otherwise
 * `max + 1`. Only the band of cells within `max` of the diagonal is filled, and it stops as soon as a whole row is
 * past `max`: the cost is O(min(|a|, |b|) × max), not |a| × |b|.
 */
export function editDistanceWithin(a: string, b: string, max: number): number {
  suggestionWork.distances += 1;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a.length > b.length) [a, b] = [b, a];
  const over = max + 1;
  // previous[j] is the distance between a[0..i) and b[0..j); cells outside the band count as `over`.
  let previous = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j += 1) previous[j] = j <= max ? j : over;
  for (let i = 1; i <= a.length; i += 1) {
    const current = new Array<number>(b.length + 1).fill(over);
    const from = Math.max(1, i - max);
    const to = Math.min(b.length, i + max);
    if (i <= max) current[0] = i;
    let rowMin = current[0]!;
    for (let j = from; j <= to; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost, over);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    suggestionWork.cells += to - from + 1;
    if (rowMin > max) return over;
    previous = current;
  }
  return Math.min(previous[b.length]!, over);
}

/** The last dotted segment of an id (`sdc.demo.hero` → `hero`): models often get the prefix right and the rest wrong. */
function tail(id: string): string {
  return id.slice(id.lastIndexOf('.') + 1);
}

/**
 * How close `candidate` is to `needle` (both lower case): a small edit distance on the whole id or on its last
 * segment, or 1 when one contains the other's last segment; undefined when it is too far to suggest.
 */
export function matchScore(needle: string, candidate: string): number | undefined {
  const threshold = Math.min(
    MAX_SUGGESTION_EDITS,
    Math.max(2, Math.floor(Math.min(needle.length, tail(candidate).length) / 3)),
  );
  const contains = tail(needle).length >= 3 && (candidate.includes(tail(needle)) || needle.includes(tail(candidate)));
  if (contains) return needle === candidate ? 0 : 1;
  const whole = editDistanceWithin(needle, candidate, threshold);
  const short =
    needle.includes('.') || candidate.includes('.')
      ? editDistanceWithin(tail(needle), tail(candidate), threshold)
      : whole;
  const score = Math.min(whole, short);
  return score <= threshold ? score : undefined;
}

/** The first `max` of scored candidates, closest first; ties keep the candidates' order. */
export function closestOf(scored: ReadonlyArray<{ candidate: string; score: number; order: number }>, max: number) {
  return [...scored]
    .sort((a, b) => a.score - b.score || a.order - b.order)
    .slice(0, max)
    .map((entry) => entry.candidate);
}

/**
 * Up to `max` candidates close to `word`, closest first: a small edit distance on the whole id or on its last
 * segment, or one containing the other. Used to say "did you mean …" for unknown ids, props and slots of the
 * catalog; the uuids of a page have their own bounded search (uuid-suggestions.ts).
 */
export function closestMatches(word: string, candidates: readonly string[], max = 3): string[] {
  const needle = word.toLowerCase();
  const scored: Array<{ candidate: string; score: number; order: number }> = [];
  candidates.forEach((candidate, order) => {
    const score = matchScore(needle, candidate.toLowerCase());
    if (score !== undefined) scored.push({ candidate, score, order });
  });
  return closestOf(scored, max);
}

/** `; did you mean a or b?`, or an empty string when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const matches = closestMatches(word, candidates);
  if (matches.length === 0) return '';
  return `; did you mean ${matches.map((match) => `\`${match}\``).join(' or ')}?`;
}
