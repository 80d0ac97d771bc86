import * as z from 'zod/mini';

/**
 * The characters of a string as the protocol counts them: Unicode code points (spec §13), as JSON Schema's
 * `maxLength` does, not UTF-16 code units (`String.length`), so "😀" is one character. Counts only as far as
 * `atMost + 1`, and a string of at most `atMost` UTF-16 units is never walked: it cannot hold more code points.
 */
function codePointsOver(text: string, atMost: number): boolean {
  if (text.length <= atMost) return false;
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    // A high surrogate followed by a low one is one code point; a lone surrogate counts as one on its own.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
    if (count > atMost) return true;
  }
  return false;
}

/** A string of at most `max` characters (code points); the JSON Schema says `maxLength`, which counts the same. */
export function boundedText(max: number, message = `at most ${max} characters`) {
  return z
    .string()
    .check(z.refine((text) => !codePointsOver(text, max), { message }))
    .register(z.globalRegistry, { maxLength: max });
}
