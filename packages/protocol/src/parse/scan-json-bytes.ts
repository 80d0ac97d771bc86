import { runStepsNow } from '../door/pause.js';
import { FORBIDDEN_KEYS } from '../wire/json.js';
import type { JsonScanLimits, JsonScanProblem } from './scan-json.js';

// Byte values of JSON's structural characters.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const encoder = new TextEncoder();
const keyDecoder = new TextDecoder('utf-8');

/** One open object or array. Kept as parallel number arrays: a body of a million values must not make objects. */
interface Frames {
  isObject: boolean[];
  /** Byte offsets of the current member's key (inside the quotes), objects only. */
  keyStart: number[];
  keyEnd: number[];
  /** Keys so far (objects) or the current element's index (arrays). */
  count: number[];
  /** Inside `roomyPath`. */
  roomy: boolean[];
  /** The keys from the root to this frame are the first `prefix` segments of `roomyPath` (-1: they are not). */
  prefix: number[];
}

/**
 * {@link scanJson}'s bounds checked on the raw bytes of a JSON text, before it is decoded: nesting depth, the value
 * budgets (inside and outside `roomyPath`) and the keys of large objects. `JSON.parse` spends its time building what
 * the text holds (a million keys of one object cost it half a second), so the budget has to be held before it runs.
 * Forbidden keys (`__proto__`, …) are found too, escaped ones included: a value decoded from bytes this scan passed
 * needs no {@link scanJson} of its own (a key given twice is counted twice, so the decoded value holds no more than
 * was counted). One pass, no allocation per value; text that is not JSON is left for the parser to refuse (undefined).
 */
export function scanJsonBytes(
  bytes: Uint8Array,
  limits: JsonScanLimits,
  report: ByteScanReport = {},
): JsonScanProblem | undefined {
  return runStepsNow(scanJsonBytesSteps(bytes, limits, report));
}

/** What {@link scanJsonBytes} noticed besides problems. */
export interface ByteScanReport {
  /** A number literal that decodes to ±Infinity (`1e400`): the decoded value is then not all JSON values. */
  nonFiniteNumber?: boolean;
}

/** Bytes scanned between two yields of {@link scanJsonBytesSteps}: a few milliseconds of work. */
const SCAN_STEP_BYTES = 1024 * 1024;

/** {@link scanJsonBytes} as steps: yields after every mebibyte, so a door can let other requests run between. */
export function* scanJsonBytesSteps(
  bytes: Uint8Array,
  limits: JsonScanLimits,
  report: ByteScanReport = {},
): Generator<undefined, JsonScanProblem | undefined, undefined> {
  const maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY;
  const maxElsewhere = limits.maxValuesElsewhere ?? maxValues;
  const mapThreshold = limits.mapThresholdKeys ?? Number.POSITIVE_INFINITY;
  const maxMapKeys = limits.maxMapKeys ?? Number.POSITIVE_INFINITY;
  let mapKeys = 0;
  const roomy =
    limits.roomyPath === undefined ? undefined : limits.roomyPath.split('.').map((key) => encoder.encode(key));
  const wholeIsRoomy = roomy?.length === 1 && roomy[0]!.length === 0;
  const frames: Frames = { isObject: [], keyStart: [], keyEnd: [], count: [], roomy: [], prefix: [] };
  let depth = 0;
  let values = 0;
  let valuesElsewhere = 0;
  let expectKey = false;
  /** The innermost open frame is inside the roomy path (kept at hand: most values of a big body are in one). */
  let topRoomy = wholeIsRoomy;

  /** Whether the value about to start (in the current frame) is inside the roomy path. */
  const valueIsRoomy = (): boolean => {
    if (topRoomy) return true;
    if (depth === 0 || roomy === undefined) return false;
    const top = depth - 1;
    const prefix = frames.prefix[top]!;
    if (prefix < 0 || prefix !== roomy.length - 1 || !frames.isObject[top]) return false;
    return sameBytes(bytes, frames.keyStart[top]!, frames.keyEnd[top]!, roomy[prefix]!);
  };
  /** The prefix of the roomy path a container value starting now continues. */
  const childPrefix = (): number => {
    if (roomy === undefined) return -1;
    if (depth === 0) return 0;
    const top = depth - 1;
    const prefix = frames.prefix[top]!;
    if (prefix < 0 || prefix >= roomy.length || !frames.isObject[top]) return -1;
    return sameBytes(bytes, frames.keyStart[top]!, frames.keyEnd[top]!, roomy[prefix]!) ? prefix + 1 : -1;
  };
  const countValue = (): JsonScanProblem | undefined => {
    values += 1;
    if (values > maxValues) return { kind: 'too_many_values', path: pathOf(bytes, frames, depth), limit: maxValues };
    if (!valueIsRoomy()) {
      valuesElsewhere += 1;
      if (valuesElsewhere > maxElsewhere)
        return { kind: 'too_many_values', path: pathOf(bytes, frames, depth), limit: maxElsewhere };
    }
    return undefined;
  };

  const length = bytes.length;
  // A UTF-8 byte order mark is not part of the JSON (the decoder drops it too).
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let nextStep = at + SCAN_STEP_BYTES;
  while (at < length) {
    if (at >= nextStep) {
      nextStep = at + SCAN_STEP_BYTES;
      yield;
    }
    const byte = bytes[at]!;
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === COLON) {
      at += 1;
      continue;
    }
    if (byte === QUOTE) {
      const end = closingQuote(bytes, at + 1);
      if (end < 0) return undefined;
      const top = depth - 1;
      if (expectKey && top >= 0 && frames.isObject[top]) {
        const count = frames.count[top]! + 1;
        frames.count[top] = count;
        frames.keyStart[top] = at + 1;
        frames.keyEnd[top] = end;
        if (isForbiddenKey(bytes, at + 1, end)) {
          const key = keyText(bytes, at + 1, end);
          return { kind: 'forbidden_key', path: pathOf(bytes, frames, depth), key };
        }
        // An object becomes a map at its threshold: then every key so far counts, and each further one.
        if (count > mapThreshold) {
          mapKeys += count === mapThreshold + 1 ? count : 1;
          if (mapKeys > maxMapKeys)
            return { kind: 'too_many_map_keys', path: pathOf(bytes, frames, depth - 1), limit: maxMapKeys };
        }
        expectKey = false;
      } else {
        const problem = countValue();
        if (problem) return problem;
      }
      at = end + 1;
      continue;
    }
    if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      const problem = countValue();
      if (problem) return problem;
      const isRoomy = valueIsRoomy();
      const prefix = childPrefix();
      depth += 1;
      if (depth > limits.maxDepth)
        return { kind: 'too_deep', path: pathOf(bytes, frames, depth - 1), limit: limits.maxDepth };
      const index = depth - 1;
      frames.isObject[index] = byte === OPEN_OBJECT;
      frames.keyStart[index] = 0;
      frames.keyEnd[index] = 0;
      frames.count[index] = 0;
      frames.roomy[index] = isRoomy;
      frames.prefix[index] = prefix;
      topRoomy = isRoomy;
      expectKey = byte === OPEN_OBJECT;
      at += 1;
      continue;
    }
    if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (depth === 0) return undefined;
      depth -= 1;
      topRoomy = wholeIsRoomy || (depth > 0 && frames.roomy[depth - 1]!);
      expectKey = false;
      at += 1;
      continue;
    }
    if (byte === COMMA) {
      const top = depth - 1;
      if (top >= 0 && frames.isObject[top]) expectKey = true;
      else if (top >= 0) frames.count[top]! += 1;
      at += 1;
      continue;
    }
    // A number, true, false or null (or something JSON.parse will refuse): one value up to the next delimiter.
    const problem = countValue();
    if (problem) return problem;
    const end = endOfLiteral(bytes, at + 1);
    if (!report.nonFiniteNumber && end - at > 15 && overflows(bytes, at, end)) report.nonFiniteNumber = true;
    at = end;
  }
  return undefined;
}

/** The offset of the quote that closes a string whose text starts at `from`, or -1 when there is none. */
function closingQuote(bytes: Uint8Array, from: number): number {
  let at = from;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let before = quote - 1; before >= from && bytes[before] === BACKSLASH; before -= 1) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

function endOfLiteral(bytes: Uint8Array, from: number): number {
  let at = from;
  while (at < bytes.length) {
    const byte = bytes[at]!;
    if (
      byte === COMMA ||
      byte === CLOSE_ARRAY ||
      byte === CLOSE_OBJECT ||
      byte === 0x20 ||
      byte === 0x0a ||
      byte === 0x0d ||
      byte === 0x09 ||
      byte === COLON ||
      byte === QUOTE ||
      byte === OPEN_ARRAY ||
      byte === OPEN_OBJECT
    )
      return at;
    at += 1;
  }
  return at;
}

/** The shortest forbidden key: a shorter key is ruled out at once. */
const FORBIDDEN_MIN = Math.min(...[...FORBIDDEN_KEYS].map((key) => key.length));

/** Whether the key between `start` and `end` (escapes included) decodes to a forbidden key. */
function isForbiddenKey(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start < FORBIDDEN_MIN) return false;
  const first = bytes[start];
  // Unescaped, a forbidden key starts with _, c or p and has one of their lengths; escaped, it has a backslash.
  if (first !== 0x5f && first !== 0x63 && first !== 0x70 && bytes.subarray(start, end).indexOf(BACKSLASH) < 0)
    return false;
  return FORBIDDEN_KEYS.has(keyText(bytes, start, end));
}

/** Whether the literal between `start` and `end` is a number too large for a double (`1e400`, 400 digits). */
function overflows(bytes: Uint8Array, start: number, end: number): boolean {
  const first = bytes[start]!;
  if (first !== 0x2d && (first < 0x30 || first > 0x39)) return false;
  const value = Number(keyDecoder.decode(bytes.subarray(start, end)));
  return value === Number.POSITIVE_INFINITY || value === Number.NEGATIVE_INFINITY;
}

function sameBytes(bytes: Uint8Array, start: number, end: number, expected: Uint8Array): boolean {
  if (end - start !== expected.length) return false;
  for (let index = 0; index < expected.length; index += 1) if (bytes[start + index] !== expected[index]) return false;
  return true;
}

/**
 * The dotted path of the value being read in the first `depth` frames: each object's current key, each array's
 * current index, as {@link scanJson} names them. Built only for the one place reported.
 */
function pathOf(bytes: Uint8Array, frames: Frames, depth: number): string {
  const keys: string[] = [];
  for (let index = 0; index < depth; index += 1) {
    if (!frames.isObject[index]) keys.push(String(frames.count[index]));
    else keys.push(keyText(bytes, frames.keyStart[index]!, frames.keyEnd[index]!));
  }
  return keys.join('.') || '(root)';
}

function keyText(bytes: Uint8Array, start: number, end: number): string {
  const raw = keyDecoder.decode(bytes.subarray(start, end));
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
