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
  if (typeof value !== 'object' || value === null) return primitiveJson(value, length).slice(0, length);
  const writer: PrefixWriter = { parts: [], written: 0, length };
  writeValue(writer, value);
  return writer.parts.join('').slice(0, length);
}

/** The text written so far, and how long it may get. */
interface PrefixWriter {
  parts: string[];
  written: number;
  readonly length: number;
}

/** Adds `text`; false once the writer's `length` is reached (the rest is not needed). */
function write(writer: PrefixWriter, text: string): boolean {
  writer.parts.push(text);
  writer.written += text.length;
  return writer.written < writer.length;
}

/**
 * A value that is no container, as JSON: a string longer than `length` from its start only (its cut JSON is the start
 * of its JSON; a pair of surrogates cut in two is escaped differently, but only past `length`); what JSON leaves out
 * as null, as a list writes it.
 */
function primitiveJson(value: unknown, length: number): string {
  if (typeof value === 'string') return JSON.stringify(value.length > length ? value.slice(0, length + 1) : value);
  return JSON.stringify(value) ?? 'null';
}

function leftOut(member: unknown): boolean {
  return member === undefined || typeof member === 'function' || typeof member === 'symbol';
}

/** Writes `item` as JSON until the writer is full; false once it is. */
function writeValue(writer: PrefixWriter, item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return write(writer, primitiveJson(item, writer.length));
  if (Array.isArray(item)) {
    if (!write(writer, '[')) return false;
    for (let index = 0; index < item.length; index += 1) {
      if (index > 0 && !write(writer, ',')) return false;
      if (!writeValue(writer, leftOut(item[index]) ? null : item[index])) return false;
    }
    return write(writer, ']');
  }
  if (!write(writer, '{')) return false;
  let first = true;
  for (const key of Object.keys(item)) {
    const member = (item as Record<string, unknown>)[key];
    if (leftOut(member)) continue;
    if (!first && !write(writer, ',')) return false;
    first = false;
    if (!write(writer, `${primitiveJson(key, writer.length)}:`) || !writeValue(writer, member)) return false;
  }
  return write(writer, '}');
}
