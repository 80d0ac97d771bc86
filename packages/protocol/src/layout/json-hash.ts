/** The FNV-1a offset basis: the hash of nothing. */
export const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * A 32-bit FNV-1a-style hash of `text`, continuing `hash`, fed two UTF-16 code units at a time (half the multiplies
 * of the classic byte-wise loop, which matters on a 10,000-component page): a fingerprint, not a security boundary.
 */
export function fnv(text: string, hash: number): number {
  let h = hash;
  const pairs = text.length - 1;
  let index = 0;
  for (; index < pairs; index += 2) {
    h = Math.imul(h ^ (text.charCodeAt(index) | (text.charCodeAt(index + 1) << 16)), FNV_PRIME);
  }
  if (index < text.length) h = Math.imul(h ^ text.charCodeAt(index), FNV_PRIME);
  return Math.imul(h ^ text.length, FNV_PRIME) >>> 0;
}

/** Folds a small number (a tag, a count) into the running hash. */
function step(hash: number, value: number): number {
  return Math.imul(hash ^ value, FNV_PRIME);
}

// What each kind of value starts with, so that `"1"` and `1`, `[]` and `{}`, `[[]]` and `[]` differ.
const STRING = 1;
const NUMBER = 2;
const TRUE = 3;
const FALSE = 4;
const NULL = 5;
const ARRAY = 6;
const OBJECT = 7;

/**
 * Hashes JSON values as they are in memory, without writing them out: two values hash alike when their
 * `JSON.stringify` texts are the same (keys in their order; a key whose value is undefined left out, an undefined
 * item as null), and the hash folds in the kind, length and count of everything, so values that print differently
 * hash differently but for the chance of a 32-bit collision. Cheaper than stringifying then hashing (no text is
 * built), which on a 10,000-component page is most of telling the person's edits apart (bench/README.md).
 * `chars` counts the characters of strings and the values hashed, for walks that yield by the work done.
 */
export class JsonHasher {
  /** The work done so far: characters of strings (keys included) plus one per value. */
  chars = 0;

  /** The hash of `value`, continuing `hash`. */
  value(value: unknown, hash: number): number {
    switch (typeof value) {
      case 'string':
        this.chars += value.length;
        return fnv(value, step(hash, STRING));
      case 'number':
        this.chars += 1;
        // String(n) is JSON's spelling of a finite number; JSON writes the others as null.
        return Number.isFinite(value) ? fnv(String(value), step(hash, NUMBER)) : step(hash, NULL);
      case 'boolean':
        this.chars += 1;
        return step(hash, value ? TRUE : FALSE);
      case 'object':
        this.chars += 1;
        if (value === null) return step(hash, NULL);
        return Array.isArray(value) ? this.#array(value, hash) : this.object(value as Record<string, unknown>, hash);
      default:
        // undefined, a function or a symbol: JSON writes them as null in a list (and leaves them out of an object).
        this.chars += 1;
        return step(hash, NULL);
    }
  }

  /** The hash of an object's own members (for…in: JSON-made objects have no inherited ones), `leaveOut` left out. */
  object(value: Record<string, unknown>, hash: number, leaveOut: readonly string[] = NONE): number {
    let h = step(hash, OBJECT);
    let members = 0;
    for (const key in value) {
      const member = value[key];
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      if (leaveOut.length > 0 && leaveOut.includes(key)) continue;
      this.chars += key.length;
      h = this.value(member, fnv(key, h));
      members += 1;
    }
    return step(h, members) >>> 0;
  }

  #array(value: readonly unknown[], hash: number): number {
    let h = step(hash, ARRAY);
    for (let index = 0; index < value.length; index += 1) h = this.value(value[index], h);
    return step(h, value.length) >>> 0;
  }
}

const NONE: readonly string[] = [];
