import type { JsonValue } from '../wire/json.js';

/**
 * A value as a message quotes it (a conflict's reason, a notice to the model): its JSON, cut to `maxChars` with "…"
 * at its end when longer. Only the text shown is built: a value of megabytes (a prop the person pasted) costs what
 * its first characters cost, not one `JSON.stringify` of the whole, which would hold the event loop as long
 * (spec §13.2).
 */
export function quoteJson(value: JsonValue, maxChars: number): string {
  const text = jsonPrefix(value, maxChars + 1);
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** `JSON.stringify(value).slice(0, length)` of a JSON value, written only as far as `length` characters. */
export function jsonPrefix(value: unknown, length: number): string {
  const parts: string[] = [];
  let written = 0;
  /** Adds `text`; false once `length` characters are written (the rest is not needed). */
  const write = (text: string): boolean => {
    parts.push(text);
    written += text.length;
    return written < length;
  };
  // A string longer than what is left is written from its start only: its cut JSON is the start of its JSON (a pair
  // of surrogates cut in two is escaped differently, but only past `length`).
  const string = (text: string) => JSON.stringify(text.length > length ? text.slice(0, length + 1) : text);
  const skipped = (member: unknown) =>
    member === undefined || typeof member === 'function' || typeof member === 'symbol';
  const walk = (item: unknown): boolean => {
    if (typeof item === 'string') return write(string(item));
    if (item === null || typeof item !== 'object') return write(JSON.stringify(item) ?? 'null');
    if (Array.isArray(item)) {
      if (!write('[')) return false;
      for (let index = 0; index < item.length; index += 1) {
        if (index > 0 && !write(',')) return false;
        if (!walk(skipped(item[index]) ? null : item[index])) return false;
      }
      return write(']');
    }
    if (!write('{')) return false;
    let first = true;
    for (const key of Object.keys(item)) {
      const member = (item as Record<string, unknown>)[key];
      if (skipped(member)) continue;
      if (!first && !write(',')) return false;
      first = false;
      if (!write(`${string(key)}:`) || !walk(member)) return false;
    }
    return write('}');
  };
  walk(value);
  return parts.join('').slice(0, length);
}
