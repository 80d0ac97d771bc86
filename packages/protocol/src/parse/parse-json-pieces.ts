import type { JsonPieces, PiecedContainer } from './scan-json-bytes.js';

// Byte values the seams between pieces are made of.
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/** Bytes parsed between two yields of {@link parseJsonPieces}: a few milliseconds of work. */
const PARSE_STEP_BYTES = 256 * 1024;

// Pieces are decoded one by one; a byte order mark inside the text is a character like any other (JSON.parse refuses
// it outside a string), so only the text's own leading one is skipped, once, as decoding the whole text would.
const pieceDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `JSON.parse(text)` of a large UTF-8 text in steps: the containers the byte scan cut ({@link JsonPieces}) are built
 * member run by member run, each run by one `JSON.parse` of at most a piece's bytes, and everything else by one
 * `JSON.parse` each; yields after every 256 KiB. One `JSON.parse` of a 3 MiB layout holds the event loop for 30 ms
 * and more; no step here parses more than a piece and one member. The value, key order and duplicate keys included,
 * is what `JSON.parse` gives, and text it refuses is refused: a `SyntaxError`, or a `TypeError` for bytes that are
 * not UTF-8.
 */
export function* parseJsonPieces(bytes: Uint8Array, pieces: JsonPieces): Generator<undefined, unknown, undefined> {
  const containers = pieces.containers;
  const root = containers.length - 1;
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const rootContainer = containers[root];
  if (rootContainer === undefined || rootContainer.depth !== 0) throw new SyntaxError('No value to parse in pieces');
  if (skipSpace(bytes, start, rootContainer.open) !== rootContainer.open)
    throw unexpected(bytes, skipSpace(bytes, start, rootContainer.open));
  if (skipSpace(bytes, rootContainer.close + 1, bytes.length) !== bytes.length)
    throw unexpected(bytes, skipSpace(bytes, rootContainer.close + 1, bytes.length));
  const builder = new PieceBuilder(bytes, containers);
  return yield* builder.container(root);
}

/** Builds pieced containers; counts the bytes parsed since the last yield. */
class PieceBuilder {
  readonly #bytes: Uint8Array;
  readonly #containers: readonly PiecedContainer[];
  /** Each container's pieced children (indexes), in text order. */
  readonly #children: number[][];
  #sinceYield = 0;

  constructor(bytes: Uint8Array, containers: readonly PiecedContainer[]) {
    this.#bytes = bytes;
    this.#containers = containers;
    this.#children = childrenOf(containers);
  }

  /** The value of pieced container `index`. */
  *container(index: number): Generator<undefined, unknown, undefined> {
    const bytes = this.#bytes;
    const container = this.#containers[index]!;
    const isObject = bytes[container.open] === OPEN_OBJECT;
    if (bytes[container.close] !== (isObject ? CLOSE_OBJECT : CLOSE_ARRAY)) throw unexpected(bytes, container.close);
    const target: Record<string, unknown> | unknown[] = isObject ? {} : [];
    const cuts = container.cuts;
    const children = this.#children[index]!;
    let cut = 0;
    let child = 0;
    let at = container.open + 1;
    // Whether the last thing read is a member (so a comma comes next), not the opening or a comma.
    let afterMember = false;
    while (cut < cuts.length || child < children.length) {
      const nextChild = child < children.length ? this.#containers[children[child]!]! : undefined;
      const childStart = nextChild === undefined ? Number.POSITIVE_INFINITY : memberStart(nextChild);
      if (cut < cuts.length && cuts[cut]! < childStart) {
        afterMember = this.#members(target, at, cuts[cut]!, afterMember, false);
        if (!afterMember) throw unexpected(bytes, cuts[cut]!);
        afterMember = false;
        at = cuts[cut]! + 1;
        cut += 1;
        yield* this.#breathe();
        continue;
      }
      afterMember = this.#members(target, at, childStart, afterMember, true);
      if (afterMember) throw unexpected(bytes, childStart);
      yield* this.#breathe();
      const value = yield* this.container(children[child]!);
      if (Array.isArray(target)) target.push(value);
      else setMember(target, this.#key(nextChild!), value);
      afterMember = true;
      at = nextChild!.close + 1;
      child += 1;
    }
    if (!this.#members(target, at, container.close, afterMember, false)) throw unexpected(bytes, container.close);
    yield* this.#breathe();
    return target;
  }

  /** Yields once 256 KiB were parsed since the last yield. */
  *#breathe(): Generator<undefined, void, undefined> {
    if (this.#sinceYield < PARSE_STEP_BYTES) return;
    this.#sinceYield = 0;
    yield;
  }

  /**
   * Adds the members written between `from` and `to` (a run between two seams) to `target`, by one `JSON.parse`;
   * `afterMember`: a member came before, so the run starts with its comma; `beforeChild`: a pieced member follows,
   * so a non-empty run ends with the comma before it. Answers whether the run ended on a member.
   */
  #members(
    target: Record<string, unknown> | unknown[],
    from: number,
    to: number,
    afterMember: boolean,
    beforeChild: boolean,
  ): boolean {
    const bytes = this.#bytes;
    let start = skipSpace(bytes, from, to);
    let end = trimSpaceEnd(bytes, start, to);
    if (start === end) return afterMember;
    if (afterMember) {
      if (bytes[start] !== COMMA) throw unexpected(bytes, start);
      start = skipSpace(bytes, start + 1, end);
      if (start === end) return false;
    }
    if (beforeChild) {
      if (bytes[end - 1] !== COMMA) throw unexpected(bytes, end - 1);
      end = trimSpaceEnd(bytes, start, end - 1);
      if (start === end) throw unexpected(bytes, start);
    }
    this.#sinceYield += end - start;
    const text = pieceDecoder.decode(bytes.subarray(start, end));
    if (Array.isArray(target)) {
      const run = JSON.parse(`[${text}]`) as unknown[];
      for (const value of run) target.push(value);
    } else {
      const run = JSON.parse(`{${text}}`) as Record<string, unknown>;
      for (const key of Object.keys(run)) setMember(target, key, run[key]);
    }
    return !beforeChild;
  }

  /** A pieced member's key, checked up to its value: `"key"`, a colon, the value's opening. */
  #key(container: PiecedContainer): string {
    const bytes = this.#bytes;
    const colon = skipSpace(bytes, container.keyEnd + 1, container.open);
    if (bytes[colon] !== COLON) throw unexpected(bytes, colon);
    const valueAt = skipSpace(bytes, colon + 1, container.open);
    if (valueAt !== container.open) throw unexpected(bytes, valueAt);
    return JSON.parse(pieceDecoder.decode(bytes.subarray(container.keyStart - 1, container.keyEnd + 1))) as string;
  }
}

/** Where a pieced container's member starts: its key's opening quote in an object, else its own opening. */
function memberStart(container: PiecedContainer): number {
  return container.keyStart < 0 ? container.open : container.keyStart - 1;
}

/**
 * Each container's pieced children, from the list in closing order (a child closes before its parent): one pass
 * with a stack of the containers still waiting for their parent.
 */
function childrenOf(containers: readonly PiecedContainer[]): number[][] {
  const children: number[][] = containers.map(() => []);
  const waiting: number[] = [];
  containers.forEach((container, index) => {
    const own = children[index]!;
    while (waiting.length > 0 && containers[waiting.at(-1)!]!.depth > container.depth) {
      const child = waiting.pop()!;
      if (containers[child]!.depth !== container.depth + 1 || containers[child]!.open < container.open)
        throw new SyntaxError('Unbalanced brackets');
      own.push(child);
    }
    own.reverse();
    waiting.push(index);
  });
  if (waiting.length !== 1) throw new SyntaxError('Unbalanced brackets');
  return children;
}

/** Sets a member as `JSON.parse` does: an own data property, `__proto__` included, a later duplicate winning. */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(bytes: Uint8Array, from: number, to: number): number {
  let at = from;
  while (at < to && isSpace(bytes[at])) at += 1;
  return at;
}

function trimSpaceEnd(bytes: Uint8Array, from: number, to: number): number {
  let end = to;
  while (end > from && isSpace(bytes[end - 1])) end -= 1;
  return end;
}

function unexpected(bytes: Uint8Array, at: number): SyntaxError {
  const byte = bytes[at];
  return new SyntaxError(
    byte === undefined
      ? 'Unexpected end of JSON input'
      : `Unexpected ${JSON.stringify(String.fromCharCode(byte))} in JSON at byte ${at}`,
  );
}
