import { runStepsNow } from '../steps/steps.js';
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
  /**
   * Where a large text can be parsed in pieces (parse-json-pieces.ts): set when the scan reached the end of the text
   * with every container closed and some container cut, so never for a small text or one that is not JSON.
   */
  pieces?: JsonPieces;
}

/** The containers of a text that {@link parseJsonPieces} builds piece by piece, in the order they close. */
export interface JsonPieces {
  containers: PiecedContainer[];
}

/** A container with members far enough apart to be cut (or holding such a container). Offsets are byte offsets. */
export interface PiecedContainer {
  open: number;
  close: number;
  /** How deep it is: 0 for the whole text's value. */
  depth: number;
  /** Its key's text in the enclosing object (after the opening quote, at the closing quote); -1 in an array. */
  keyStart: number;
  keyEnd: number;
  /** The offsets of its own commas where its members are cut, in order. */
  cuts: number[];
}

/** A container's members are cut at the first comma this many bytes after the previous cut (or its opening). */
const PIECE_BYTES = 64 * 1024;

/** Bytes scanned between two yields of {@link scanJsonBytesSteps}: a few milliseconds of work. */
const SCAN_STEP_BYTES = 256 * 1024;

/** {@link scanJsonBytes} as steps: yields after every 256 KiB, so a door can let other requests run between. */
export function* scanJsonBytesSteps(
  bytes: Uint8Array,
  limits: JsonScanLimits,
  report: ByteScanReport = {},
  pieceBytes = PIECE_BYTES,
): Generator<undefined, JsonScanProblem | undefined, undefined> {
  const scanner = new ByteScanner(bytes, limits, report, pieceBytes);
  for (;;) {
    const outcome = scanner.scan(SCAN_STEP_BYTES);
    if (outcome !== MORE) return outcome;
    yield;
  }
}

/** {@link ByteScanner.scan}'s answer when the text goes on past the step. */
const MORE = Symbol('more');

/**
 * The scan's state, kept between steps. The open objects and arrays are parallel typed arrays (a body of half a
 * million values must not make objects), and the hot loop is a plain method, which the engine optimizes fully.
 */
class ByteScanner {
  readonly #bytes: Uint8Array;
  readonly #report: ByteScanReport;
  readonly #maxDepth: number;
  readonly #maxValues: number;
  readonly #maxElsewhere: number;
  readonly #mapThreshold: number;
  readonly #maxMapKeys: number;
  readonly #roomy: Uint8Array[] | undefined;
  readonly #wholeIsRoomy: boolean;
  // Per open frame: an object (1) or an array (0); its current key's offsets; its keys so far or current index;
  // whether it is inside the roomy path; how many of the roomy path's segments the keys down to it match (-1: none).
  readonly #isObject: Uint8Array;
  readonly #keyStart: Int32Array;
  readonly #keyEnd: Int32Array;
  readonly #count: Int32Array;
  readonly #inRoomy: Uint8Array;
  readonly #prefix: Int32Array;
  // Per open frame, for parsing in pieces: where it opened, where its current piece started, whether it is cut (or
  // holds a cut container), and its cuts so far (an array only once it has one).
  readonly #pieceBytes: number;
  readonly #openAt: Int32Array;
  readonly #pieceStart: Int32Array;
  readonly #pieced: Uint8Array;
  readonly #cuts: Array<number[] | undefined>;
  readonly #pieces: PiecedContainer[] = [];
  #depth = 0;
  #values = 0;
  #valuesElsewhere = 0;
  #mapKeys = 0;
  #expectKey = false;
  #topRoomy: boolean;
  #at: number;

  constructor(bytes: Uint8Array, limits: JsonScanLimits, report: ByteScanReport, pieceBytes: number) {
    this.#bytes = bytes;
    this.#pieceBytes = pieceBytes;
    this.#report = report;
    this.#maxDepth = limits.maxDepth;
    this.#maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY;
    this.#maxElsewhere = limits.maxValuesElsewhere ?? this.#maxValues;
    this.#mapThreshold = limits.mapThresholdKeys ?? Number.POSITIVE_INFINITY;
    this.#maxMapKeys = limits.maxMapKeys ?? Number.POSITIVE_INFINITY;
    this.#roomy =
      limits.roomyPath === undefined ? undefined : limits.roomyPath.split('.').map((key) => encoder.encode(key));
    this.#wholeIsRoomy = this.#roomy?.length === 1 && this.#roomy[0]!.length === 0;
    this.#topRoomy = this.#wholeIsRoomy;
    const frames = limits.maxDepth + 1;
    this.#isObject = new Uint8Array(frames);
    this.#keyStart = new Int32Array(frames);
    this.#keyEnd = new Int32Array(frames);
    this.#count = new Int32Array(frames);
    this.#inRoomy = new Uint8Array(frames);
    this.#prefix = new Int32Array(frames);
    this.#openAt = new Int32Array(frames);
    this.#pieceStart = new Int32Array(frames);
    this.#pieced = new Uint8Array(frames);
    this.#cuts = new Array<number[] | undefined>(frames);
    // A UTF-8 byte order mark is not part of the JSON (the decoder drops it too).
    this.#at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  }

  /** Scans about `stepBytes` more bytes: a problem, undefined at the end of the text, or {@link MORE}. */
  scan(stepBytes: number): JsonScanProblem | undefined | typeof MORE {
    const bytes = this.#bytes;
    const length = bytes.length;
    const until = Math.min(length, this.#at + stepBytes);
    let at = this.#at;
    while (at < until) {
      const byte = bytes[at]!;
      if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === COLON) {
        at += 1;
        continue;
      }
      if (byte === QUOTE) {
        const end = closingQuote(bytes, at + 1);
        if (end < 0) return undefined;
        const top = this.#depth - 1;
        if (this.#expectKey && top >= 0 && this.#isObject[top] === 1) {
          const problem = this.#key(top, at + 1, end);
          if (problem) return problem;
        } else {
          const problem = this.#countValue();
          if (problem) return problem;
        }
        at = end + 1;
        continue;
      }
      if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        const problem = this.#countValue() ?? this.#open(byte === OPEN_OBJECT, at);
        if (problem) return problem;
        at += 1;
        continue;
      }
      if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (this.#depth === 0) return undefined;
        if (this.#pieced[this.#depth - 1] === 1) this.#recordPieced(at);
        this.#depth -= 1;
        this.#topRoomy = this.#wholeIsRoomy || (this.#depth > 0 && this.#inRoomy[this.#depth - 1] === 1);
        this.#expectKey = false;
        at += 1;
        continue;
      }
      if (byte === COMMA) {
        const top = this.#depth - 1;
        if (top >= 0 && this.#isObject[top] === 1) this.#expectKey = true;
        else if (top >= 0) this.#count[top]! += 1;
        if (top >= 0 && at - this.#pieceStart[top]! >= this.#pieceBytes) this.#cut(top, at);
        at += 1;
        continue;
      }
      // A number, true, false or null (or something JSON.parse will refuse): one value up to the next delimiter.
      const problem = this.#countValue();
      if (problem) return problem;
      const end = endOfLiteral(bytes, at + 1);
      if (!this.#report.nonFiniteNumber && mayOverflow(bytes, at, end) && overflows(bytes, at, end))
        this.#report.nonFiniteNumber = true;
      at = end;
    }
    this.#at = at;
    if (at < length) return MORE;
    if (this.#depth === 0 && this.#pieces.at(-1)?.depth === 0) this.#report.pieces = { containers: this.#pieces };
    return undefined;
  }

  /** Cuts the members of the container at frame `top` at the comma at `at`. */
  #cut(top: number, at: number): void {
    const cuts = this.#cuts[top];
    if (cuts === undefined) this.#cuts[top] = [at];
    else cuts.push(at);
    this.#pieceStart[top] = at;
    this.#pieced[top] = 1;
  }

  /** The innermost open container, pieced, closes at `at`; the one that holds it is pieced with it. */
  #recordPieced(at: number): void {
    const index = this.#depth - 1;
    const inObject = index > 0 && this.#isObject[index - 1] === 1;
    this.#pieces.push({
      open: this.#openAt[index]!,
      close: at,
      depth: index,
      keyStart: inObject ? this.#keyStart[index - 1]! : -1,
      keyEnd: inObject ? this.#keyEnd[index - 1]! : -1,
      cuts: this.#cuts[index] ?? [],
    });
    if (index > 0) this.#pieced[index - 1] = 1;
  }

  /** A member's key, between `start` and `end`, of the object at frame `top`. */
  #key(top: number, start: number, end: number): JsonScanProblem | undefined {
    const count = this.#count[top]! + 1;
    this.#count[top] = count;
    this.#keyStart[top] = start;
    this.#keyEnd[top] = end;
    if (isForbiddenKey(this.#bytes, start, end)) {
      return { kind: 'forbidden_key', path: this.#path(this.#depth), key: keyText(this.#bytes, start, end) };
    }
    // An object becomes a map at its threshold: then every key so far counts, and each further one.
    if (count > this.#mapThreshold) {
      this.#mapKeys += count === this.#mapThreshold + 1 ? count : 1;
      if (this.#mapKeys > this.#maxMapKeys)
        return { kind: 'too_many_map_keys', path: this.#path(this.#depth - 1), limit: this.#maxMapKeys };
    }
    this.#expectKey = false;
    return undefined;
  }

  /** Opens an object or array, at `at`, as a new frame. */
  #open(isObject: boolean, at: number): JsonScanProblem | undefined {
    const isRoomy = this.#valueIsRoomy();
    const prefix = this.#childPrefix();
    this.#depth += 1;
    if (this.#depth > this.#maxDepth)
      return { kind: 'too_deep', path: this.#path(this.#depth - 1), limit: this.#maxDepth };
    const index = this.#depth - 1;
    this.#isObject[index] = isObject ? 1 : 0;
    this.#keyStart[index] = 0;
    this.#keyEnd[index] = 0;
    this.#count[index] = 0;
    this.#inRoomy[index] = isRoomy ? 1 : 0;
    this.#prefix[index] = prefix;
    this.#openAt[index] = at;
    this.#pieceStart[index] = at;
    this.#pieced[index] = 0;
    this.#cuts[index] = undefined;
    this.#topRoomy = isRoomy;
    this.#expectKey = isObject;
    return undefined;
  }

  #countValue(): JsonScanProblem | undefined {
    this.#values += 1;
    // Most values of a large body are inside the roomy path: counted without looking at the frames.
    if (this.#topRoomy && this.#values <= this.#maxValues) return undefined;
    if (this.#values > this.#maxValues)
      return { kind: 'too_many_values', path: this.#path(this.#depth), limit: this.#maxValues };
    if (!this.#valueIsRoomy()) {
      this.#valuesElsewhere += 1;
      if (this.#valuesElsewhere > this.#maxElsewhere)
        return { kind: 'too_many_values', path: this.#path(this.#depth), limit: this.#maxElsewhere };
    }
    return undefined;
  }

  /** Whether the value about to start (in the current frame) is inside the roomy path. */
  #valueIsRoomy(): boolean {
    if (this.#topRoomy) return true;
    const roomy = this.#roomy;
    if (this.#depth === 0 || roomy === undefined) return false;
    const top = this.#depth - 1;
    const prefix = this.#prefix[top]!;
    if (prefix < 0 || prefix !== roomy.length - 1 || this.#isObject[top] !== 1) return false;
    return sameBytes(this.#bytes, this.#keyStart[top]!, this.#keyEnd[top]!, roomy[prefix]!);
  }

  /** The prefix of the roomy path a container value starting now continues. */
  #childPrefix(): number {
    const roomy = this.#roomy;
    if (roomy === undefined) return -1;
    if (this.#depth === 0) return 0;
    const top = this.#depth - 1;
    const prefix = this.#prefix[top]!;
    if (prefix < 0 || prefix >= roomy.length || this.#isObject[top] !== 1) return -1;
    return sameBytes(this.#bytes, this.#keyStart[top]!, this.#keyEnd[top]!, roomy[prefix]!) ? prefix + 1 : -1;
  }

  /**
   * The dotted path of the value being read in the first `depth` frames: each object's current key, each array's
   * current index, as {@link scanJson} names them. Built only for the one place reported.
   */
  #path(depth: number): string {
    const keys: string[] = [];
    for (let index = 0; index < depth; index += 1) {
      if (this.#isObject[index] !== 1) keys.push(String(this.#count[index]));
      else keys.push(keyText(this.#bytes, this.#keyStart[index]!, this.#keyEnd[index]!));
    }
    return keys.join('.') || '(root)';
  }
}

/** The offset of the quote that closes a string whose text starts at `from`, or -1 when there is none. */
function closingQuote(bytes: Uint8Array, from: number): number {
  // Most strings of a layout (keys, ids, short props) end within a few dozen bytes: a plain loop finds their end
  // sooner than a call of indexOf; a longer one is left to indexOf.
  const near = Math.min(bytes.length, from + NEAR_QUOTE_BYTES);
  for (let at = from; at < near; at += 1) {
    const byte = bytes[at];
    if (byte === QUOTE) return at;
    if (byte === BACKSLASH) return escapedClosingQuote(bytes, from, at);
  }
  return escapedClosingQuote(bytes, from, near);
}

/** How far {@link closingQuote} looks byte by byte before it calls indexOf. */
const NEAR_QUOTE_BYTES = 32;

/** {@link closingQuote} from `at` on, where escapes may be: each quote found is checked for backslashes before it. */
function escapedClosingQuote(bytes: Uint8Array, from: number, at: number): number {
  let next = at;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, next);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let before = quote - 1; before >= from && bytes[before] === BACKSLASH; before -= 1) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    next = quote + 1;
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

/** The forbidden keys as bytes, to compare with a key as it stands in the text, without decoding it. */
const FORBIDDEN_BYTES = [...FORBIDDEN_KEYS].map((key) => encoder.encode(key));
/** The shortest forbidden key: a shorter key is ruled out at once. */
const FORBIDDEN_MIN = Math.min(...FORBIDDEN_BYTES.map((key) => key.length));

/**
 * Whether the key between `start` and `end` decodes to a forbidden key: compared byte for byte when it has no
 * escape (nothing allocated: a layout has a hundred thousand keys), decoded only when it has one.
 */
function isForbiddenKey(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start < FORBIDDEN_MIN) return false;
  // A key that starts with any other plain character decodes to one that starts with it: not a forbidden one.
  const first = bytes[start];
  if (first !== 0x5f && first !== 0x63 && first !== 0x70 && first !== BACKSLASH) return false;
  for (let at = start; at < end; at += 1) {
    if (bytes[at] === BACKSLASH) return FORBIDDEN_KEYS.has(keyText(bytes, start, end));
  }
  return FORBIDDEN_BYTES.some((key) => sameBytes(bytes, start, end, key));
}

/** Whether the literal between `start` and `end` is a number too large for a double (`1e400`, 400 digits). */
/**
 * Whether a literal can be a number too large for a double: one of more than 15 bytes, or one with an exponent at
 * any length (`1e999` is five bytes).
 */
function mayOverflow(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start > 15) return true;
  for (let at = start + 1; at < end; at += 1) if ((bytes[at]! | 0x20) === 0x65) return true;
  return false;
}

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

function keyText(bytes: Uint8Array, start: number, end: number): string {
  const raw = keyDecoder.decode(bytes.subarray(start, end));
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
