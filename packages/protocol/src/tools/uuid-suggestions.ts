import { walkLayout } from '../layout/layout-tree.js';
import type { Layout } from '../wire/layout.js';
import { closestOf, MAX_SUGGESTION_EDITS, matchScore } from './suggest.js';

/**
 * Bounds of the "did you mean" search for an unknown uuid. Both the page (up to 20,000 components) and the unknown
 * uuids (any number, from the model's arguments) come from outside, and comparing each with each was a product of
 * the two (the second security review, G2). Each search is one pass of cheap prefix, middle and suffix
 * comparisons over the page's uuids and a capped number of edit distances, and a hop makes at most `perHop` searches.
 */
export const UUID_SUGGESTION_LIMITS = {
  /** Unknown uuids of one tool call that get suggestions; the later ones get the plain message. */
  perCall: 5,
  /** The same over every call of one hop's parked calls. */
  perHop: 20,
  /** Candidates one search computes an edit distance for. */
  compared: 64,
} as const;

/** Characters of each key compared: the start, the middle and the end of a uuid. */
const KEY_CHARS = 4;

/**
 * Layouts are never written to (the reducer copies the path it changes, layout/tree-edit.ts), so the list stays
 * right for as long as its layout lives; the calls of one hop that change nothing share it.
 */
const pages = new WeakMap<Layout, string[]>();

/** Every uuid of a page, in page order. */
function uuidsOf(layout: Layout): string[] {
  const known = pages.get(layout);
  if (known) return known;
  const uuids: string[] = [];
  walkLayout(layout, (node) => {
    uuids.push(node.uuid);
  });
  pages.set(layout, uuids);
  return uuids;
}

/** The keys a candidate is compared on: its start, middle and end. */
function keysOf(word: string): [string, string, string] {
  const middle = middleOf(word.length);
  return [word.slice(0, KEY_CHARS), word.slice(middle, middle + KEY_CHARS), word.slice(-KEY_CHARS)];
}

/** How many of `keys` `candidate` shares (0 to 3), compared in place. */
function sharedKeys(candidate: string, [prefix, middle, suffix]: [string, string, string]): number {
  return (
    Number(candidate.startsWith(prefix)) +
    Number(candidate.startsWith(middle, middleOf(candidate.length))) +
    Number(candidate.endsWith(suffix))
  );
}

/** Where the middle key of a string of this length starts. */
function middleOf(length: number): number {
  return Math.floor((length - KEY_CHARS) / 2);
}

/**
 * Up to `max` uuids of the page close to `uuid`, closest first (ties in page order). One typo leaves the start or
 * the end of a uuid as it was, so the candidates are the uuids of a similar length that share its first, middle or
 * last characters, those sharing most first; at most {@link UUID_SUGGESTION_LIMITS}`.compared` of them get an edit
 * distance, cut off at the suggestion threshold.
 */
export function closestUuids(layout: Layout, uuid: string, max = 3): string[] {
  const uuids = uuidsOf(layout);
  const needle = uuid.toLowerCase();
  const short = needle.length < KEY_CHARS;
  // Keys of the uuid as written and in lower case: page uuids are compared as they are, without a copy each.
  const written = keysOf(uuid);
  const lower = keysOf(needle);
  // Candidates by how many keys they share (3, 2, 1), each list in page order and capped: one pass, no index.
  const byShared: number[][] = [[], [], [], []];
  const cap = UUID_SUGGESTION_LIMITS.compared;
  for (let at = 0; at < uuids.length; at += 1) {
    const candidate = uuids[at]!;
    if (Math.abs(candidate.length - needle.length) > MAX_SUGGESTION_EDITS) continue;
    const shared = short ? 1 : Math.max(sharedKeys(candidate, written), sharedKeys(candidate, lower));
    if (shared > 0 && byShared[shared]!.length < cap) byShared[shared]!.push(at);
  }
  const candidates = [...byShared[3]!, ...byShared[2]!, ...byShared[1]!].slice(0, cap);
  const scored: Array<{ candidate: string; score: number; order: number }> = [];
  for (const at of candidates) {
    const score = matchScore(needle, uuids[at]!.toLowerCase());
    if (score !== undefined) scored.push({ candidate: uuids[at]!, score, order: at });
  }
  return closestOf(scored, max);
}

/** Unknown uuids left to get suggestions in one hop; the tools of that hop's calls share it. */
export interface SuggestionPool {
  left: number;
}

/** A fresh pool for one hop. */
export function suggestionPool(): SuggestionPool {
  return { left: UUID_SUGGESTION_LIMITS.perHop };
}

/** How many more unknown uuids one tool call may get suggestions for: its own cap, within its hop's pool. */
export class SuggestionBudget {
  #left: number = UUID_SUGGESTION_LIMITS.perCall;
  readonly #pool: SuggestionPool;

  constructor(pool: SuggestionPool = suggestionPool()) {
    this.#pool = pool;
  }

  /** Whether one more unknown uuid gets suggestions; takes it from the budget if so. */
  take(): boolean {
    if (this.#left <= 0 || this.#pool.left <= 0) return false;
    this.#left -= 1;
    this.#pool.left -= 1;
    return true;
  }
}
