/** The FNV-1a offset basis: the hash of nothing. */
export const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * `String.prototype.charCodeAt`, called as `charCodeAt.call(text, i)`: once any `class … extends String` exists in
 * the process (ioredis defines one), V8 stops inlining `text.charCodeAt(i)` and each call costs about 7 times as
 * much; the method held here is inlined either way.
 */
const charCodeAt = String.prototype.charCodeAt;

/**
 * A 32-bit FNV-1a-style hash of `text`, continuing `hash`, fed two UTF-16 code units at a time (half the multiplies
 * of the classic byte-wise loop, which matters on a 10,000-component page): a fingerprint, not a security boundary.
 */
export function fnv(text: string, hash: number): number {
  let h = hash;
  const pairs = text.length - 1;
  let index = 0;
  for (; index < pairs; index += 2) {
    h = Math.imul(h ^ (charCodeAt.call(text, index) | (charCodeAt.call(text, index + 1) << 16)), FNV_PRIME);
  }
  if (index < text.length) h = Math.imul(h ^ charCodeAt.call(text, index), FNV_PRIME);
  return Math.imul(h ^ text.length, FNV_PRIME) >>> 0;
}

/**
 * What hashing one value costs, in characters hashed: a map of a thousand tiny members costs about as much per member
 * as a string of this many characters, so a walk that yields by the work done yields as often for either. So a
 * value's JSON is at least one character per `VALUE_WORK` of hashing it: a value costs this and writes one character
 * or more, a string or key also its length, which its JSON holds.
 */
export const VALUE_WORK = 8;

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
 * `work` counts {@link VALUE_WORK} per value hashed and the characters of its strings (keys included), for walks
 * that yield by the work done.
 */
export class JsonHasher {
  /** The work done so far: {@link VALUE_WORK} per value, plus the characters of strings and keys. */
  work = 0;
  /** {@link objectWithin} gives up once `work` passes this. */
  #stopAt = Number.POSITIVE_INFINITY;

  /** The hash of `value`, continuing `hash`. */
  value(value: unknown, hash: number): number {
    switch (typeof value) {
      case 'string':
        this.work += VALUE_WORK + value.length;
        return fnv(value, step(hash, STRING));
      case 'number':
        this.work += VALUE_WORK;
        // String(n) is JSON's spelling of a finite number; JSON writes the others as null.
        return Number.isFinite(value) ? fnv(String(value), step(hash, NUMBER)) : step(hash, NULL);
      case 'boolean':
        this.work += VALUE_WORK;
        return step(hash, value ? TRUE : FALSE);
      case 'object':
        this.work += VALUE_WORK;
        if (value === null) return step(hash, NULL);
        return Array.isArray(value) ? this.#array(value, hash) : this.object(value as Record<string, unknown>, hash);
      default:
        // undefined, a function or a symbol: JSON writes them as null in a list (and leaves them out of an object).
        this.work += VALUE_WORK;
        return step(hash, NULL);
    }
  }

  /**
   * The hash of an object's members (for…in: JSON-made objects have no inherited ones), `leaveOut` left out. Members
   * JSON leaves out (undefined, functions, symbols) are skipped, and count no work.
   */
  object(value: Record<string, unknown>, hash: number, leaveOut: readonly string[] = NONE): number {
    let h = step(hash, OBJECT);
    let members = 0;
    for (const key in value) {
      const member = value[key];
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      if (leaveOut.length > 0 && leaveOut.includes(key)) continue;
      if (this.work > this.#stopAt) throw GAVE_UP;
      this.work += key.length;
      h = this.value(member, fnv(key, h));
      members += 1;
    }
    return step(h, members) >>> 0;
  }

  /**
   * {@link object}, or undefined when hashing it would take more than `budget`: then what was hashed is lost (at most
   * `budget` and one string), and {@link objectSteps} hashes it without holding the thread.
   */
  objectWithin(
    value: Record<string, unknown>,
    hash: number,
    leaveOut: readonly string[],
    budget: number,
  ): number | undefined {
    this.#stopAt = this.work + budget;
    try {
      return this.object(value, hash, leaveOut);
    } catch (error) {
      if (error === GAVE_UP) return undefined;
      throw error;
    } finally {
      this.#stopAt = Number.POSITIVE_INFINITY;
    }
  }

  /**
   * {@link object} in steps, yielding each time another `stepWork` was hashed: one props object of megabytes (a
   * request's layout may hold one) would otherwise hold the event loop for as long as it takes. The same hash, walked
   * with a stack of its own instead of recursion.
   */
  objectSteps(
    value: Record<string, unknown>,
    hash: number,
    leaveOut: readonly string[],
    stepWork: number,
  ): Generator<undefined, number, undefined> {
    return this.#steps(objectFrame(value, hash, leaveOut), { yieldAt: this.work + stepWork, stepWork });
  }

  /**
   * {@link value} in steps, by `clock`: it yields once `work` reaches `clock.yieldAt`, then after each
   * `clock.stepWork`, before a member or item (a string, however long, is hashed in one step). Several values hashed
   * with one clock share its steps (the props of a component, one by one).
   */
  *valueSteps(value: unknown, hash: number, clock: StepClock): Generator<undefined, number, undefined> {
    if (typeof value !== 'object' || value === null) return this.value(value, hash);
    this.work += VALUE_WORK;
    return yield* this.#steps(
      Array.isArray(value) ? arrayFrame(value, hash) : objectFrame(value as Record<string, unknown>, hash, NONE),
      clock,
    );
  }

  *#steps(root: Frame, clock: StepClock): Generator<undefined, number, undefined> {
    const stack: Frame[] = [root];
    // The hash of the container last finished, handed to the frame below it.
    let finished = 0;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      let child: Frame | undefined;
      while (frame.index < frame.end) {
        // Before every member, whatever the one before was (a string, an empty list, a whole nested object).
        if (this.work >= clock.yieldAt) {
          clock.yieldAt = this.work + clock.stepWork;
          yield;
        }
        const index = frame.index;
        frame.index += 1;
        let h = frame.hash;
        let member: unknown;
        if (frame.keys === undefined) member = (frame.items as readonly unknown[])[index];
        else {
          const key = frame.keys[index]!;
          member = (frame.items as Record<string, unknown>)[key];
          if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
          if (frame.leaveOut.length > 0 && frame.leaveOut.includes(key)) continue;
          this.work += key.length;
          h = fnv(key, h);
          frame.members += 1;
        }
        if (typeof member === 'object' && member !== null) {
          this.work += VALUE_WORK;
          child = Array.isArray(member)
            ? arrayFrame(member, h)
            : objectFrame(member as Record<string, unknown>, h, NONE);
          break;
        }
        frame.hash = this.value(member, h);
      }
      if (child !== undefined) {
        stack.push(child);
        continue;
      }
      stack.pop();
      finished = step(frame.hash, frame.keys === undefined ? frame.end : frame.members) >>> 0;
      const parent = stack[stack.length - 1];
      if (parent !== undefined) parent.hash = finished;
    }
    return finished;
  }

  #array(value: readonly unknown[], hash: number): number {
    let h = step(hash, ARRAY);
    for (let index = 0; index < value.length; index += 1) {
      if (this.work > this.#stopAt) throw GAVE_UP;
      h = this.value(value[index], h);
    }
    return step(h, value.length) >>> 0;
  }
}

/**
 * When a walk in steps yields: once the hasher's `work` reaches `yieldAt`, which then moves `stepWork` on. Shared by
 * the values one walk hashes in turn.
 */
export interface StepClock {
  yieldAt: number;
  stepWork: number;
}

/** One object or array a walk in steps of {@link JsonHasher} is inside of: where it is and its running hash. */
interface Frame {
  /** An object's keys; undefined for an array, whose items are `items` itself. */
  keys: string[] | undefined;
  items: readonly unknown[] | Record<string, unknown>;
  /** How many items or keys. */
  end: number;
  index: number;
  hash: number;
  members: number;
  leaveOut: readonly string[];
}

function arrayFrame(items: readonly unknown[], hash: number): Frame {
  return { keys: undefined, items, end: items.length, index: 0, hash: step(hash, ARRAY), members: 0, leaveOut: NONE };
}

function objectFrame(value: Record<string, unknown>, hash: number, leaveOut: readonly string[]): Frame {
  // The keys for…in gives, as JsonHasher.object reads them: the same hash for any object, JSON-made or not.
  const keys: string[] = [];
  for (const key in value) keys.push(key);
  return { keys, items: value, end: keys.length, index: 0, hash: step(hash, OBJECT), members: 0, leaveOut };
}

/** Thrown through the recursion of a hash that passed its budget; never leaves {@link JsonHasher.objectWithin}. */
const GAVE_UP = Symbol('gave up');

const NONE: readonly string[] = [];
