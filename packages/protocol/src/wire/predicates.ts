/**
 * The rules of the wire schemas that are not a type, a length, a bound or a pattern: tests on a value, written once
 * without zod, so the zod schemas (`refineBy` in ./refinements.ts) and the browser's checkers (../check/) run the
 * same code.
 */

/**
 * Keys that would reach an object's prototype when a parsed JSON object is copied with plain assignment.
 * Rejected wherever the wire carries a free-form map, so no consumer ever has to think about them.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A key of a free-form map: any string but the prototype-polluting ones. */
export function isSafeKey(key: string): boolean {
  return !FORBIDDEN_KEYS.has(key);
}

/**
 * Whether `text` has at most `max` characters as the protocol counts them: Unicode code points (spec §13), as JSON
 * Schema's `maxLength` does, not UTF-16 code units (`String.length`), so "😀" is one character. Counts only as far as
 * `max + 1`, and a string of at most `max` UTF-16 units is never walked: it cannot hold more code points.
 */
export function withinCodePoints(text: string, max: number): boolean {
  if (text.length <= max) return true;
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    // A high surrogate followed by a low one is one code point; a lone surrogate counts as one on its own.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
    if (count > max) return false;
  }
  return true;
}

/** Whether no item of `list` is there twice. */
export function allDifferent(list: readonly unknown[]): boolean {
  return new Set(list).size === list.length;
}

/** Token counts (spec §6.2): `input_tokens` includes the cached ones, so those are at most it. */
export function cachedWithinInput(counts: { input_tokens: number; cached_input_tokens: number }): boolean {
  return counts.cached_input_tokens <= counts.input_tokens;
}
