import type { JsonValue } from '../wire/json.js';
import type { ComponentNode } from '../wire/layout.js';
import type { DocumentDigest } from './document-digest.js';
import { FNV_OFFSET, fnv, type JsonHasher, type StepClock, VALUE_WORK } from './json-hash.js';
import { jsonPrefix } from './json-quote.js';
import type { LayoutVisitor } from './plain-layout.js';
import type { PropsPrints } from './props-json.js';

/**
 * How the digests built here hash, stored in each digest: 2, props hashed as values by `JsonHasher`; 3, the kept
 * values and page fields too (2 hashed each one's whole JSON text), the page's fields folded in any order.
 */
export const DIGEST_SCHEME = 3;

/** Values whose JSON is at most this long may be kept as they are. */
const SHORT_VALUE_CHARS = 48;

/**
 * What making one print costs besides hashing its value, in the hasher's work: a map of tiny members costs about 16
 * times more per member as prints than as a hash (100,000 one-number props against a map of that many values), so
 * walks that yield by the work yield as often for either.
 */
const PRINT_WORK = 16 * VALUE_WORK;

/**
 * Folds a document's components into its {@link DocumentDigest}, in document order: each component before its slots,
 * the slots in their order, a list's name met when the walk enters the list. The one fold that both the validating
 * walk of a request's layout (`plainLayoutSteps`) and the walk of a document in memory (`digestDocument`) feed, so the
 * digest of the page a request carries and the digest of the page the server predicted are built alike, and the page
 * matches its prediction when the two are equal. Its hash folds in every component's uuid-free numbers (the uuids are
 * compared as they are) and the page fields.
 */
export class DigestBuilder implements LayoutVisitor {
  readonly #digest: DocumentDigest = {
    uuids: [],
    parents: [],
    lists: [],
    components: [],
    hashes: [],
    names: [],
    kept: {},
    page: {},
    hash: FNV_OFFSET,
    scheme: DIGEST_SCHEME,
  };
  readonly #nameIndex = new Map<string, number>();
  readonly #prints: PropsPrints;
  readonly #keep: ReadonlySet<string> | undefined;
  #hash = FNV_OFFSET;

  /**
   * `prints`: the hop's props cache, whose hashes the digest holds; `keepValuesOf`: components whose props are also
   * fingerprinted one by one, short values kept (the agent's own, to quote back to the model).
   */
  constructor(prints: PropsPrints, keepValuesOf?: ReadonlySet<string>) {
    this.#prints = prints;
    this.#keep = keepValuesOf;
  }

  list(name: string): number {
    return this.#intern(name);
  }

  node(
    node: ComponentNode,
    parent: number,
    list: number,
    workLeft: number,
    stepWork: number,
  ): number | Generator<undefined, number, undefined> {
    const before = this.#prints.hashed;
    const props = this.#prints.nodeHashSteps(node, workLeft, stepWork);
    const keep = this.#keep?.has(node.uuid) === true;
    if (typeof props === 'number' && !keep) {
      this.#add(node, parent, list, props);
      return this.#prints.hashed - before;
    }
    return this.#addInSteps(node, parent, list, props, keep, before, { yieldAt: before + workLeft, stepWork });
  }

  /** A node whose props are hashed in steps, or whose values are kept (they too may be megabytes), by `clock`. */
  *#addInSteps(
    node: ComponentNode,
    parent: number,
    list: number,
    props: number | Generator<undefined, number, undefined>,
    keep: boolean,
    before: number,
    clock: StepClock,
  ): Generator<undefined, number, undefined> {
    if (typeof props !== 'number') {
      props = yield* props;
      // The props' last step is of unknown length: the kept values begin a step of their own.
      clock.yieldAt = this.#prints.hashed;
    }
    this.#add(node, parent, list, props);
    if (keep)
      this.#digest.kept[node.uuid] = yield* valuePrintsSteps(
        node.props,
        this.#prints.derivedOf(node),
        this.#prints.hasher,
        clock,
      );
    return this.#prints.hashed - before;
  }

  #add(node: ComponentNode, parent: number, list: number, props: number): void {
    const digest = this.#digest;
    const component = this.#intern(node.component);
    digest.uuids.push(node.uuid);
    digest.parents.push(parent);
    digest.lists.push(list);
    digest.components.push(component);
    digest.hashes.push(props);
    this.#hash = mix(this.#hash, parent, list, component, props);
  }

  /**
   * The digest, once every component was folded in, with the page's fields: in steps, the first of at most `workLeft`
   * (what is left of the walk's step), the others of `stepWork`.
   */
  *finishSteps(
    page: Record<string, JsonValue>,
    workLeft: number,
    stepWork: number,
  ): Generator<undefined, DocumentDigest, undefined> {
    const digest = this.#digest;
    const hasher = this.#prints.hasher;
    const clock = { yieldAt: hasher.work + workLeft, stepWork };
    digest.page = yield* valuePrintsSteps(page, NONE, hasher, clock);
    // Fields in any order fold alike, as a sum of one hash per field: no sort of what may be 50,000 names.
    let fields = 0;
    for (const field of Object.keys(digest.page)) {
      if (hasher.work >= clock.yieldAt) {
        clock.yieldAt = hasher.work + stepWork;
        yield;
      }
      hasher.work += VALUE_WORK + field.length;
      fields = (fields + fnv(hashPart(digest.page[field])!, fnv(field, FNV_OFFSET))) >>> 0;
    }
    digest.hash = Math.imul(this.#hash ^ fields, FNV_PRIME) >>> 0;
    return digest;
  }

  #intern(name: string): number {
    let index = this.#nameIndex.get(name);
    if (index === undefined) {
      index = this.#digest.names.push(name) - 1;
      this.#nameIndex.set(name, index);
    }
    return index;
  }
}

/**
 * `#hash`, and `=json` when its JSON is short, per member of a props or page object, `leaveOut` left out: each value
 * hashed by `hasher` in steps by `clock`, its JSON written only as far as a short value goes, so that a value of
 * megabytes (a prop the person pasted into the agent's component) is no single long step (spec §13.2).
 */
export function* valuePrintsSteps(
  values: Record<string, JsonValue>,
  leaveOut: readonly string[],
  hasher: JsonHasher,
  clock: StepClock,
): Generator<undefined, Record<string, string>, undefined> {
  const prints: Record<string, string> = {};
  for (const key of Object.keys(values)) {
    // Before every member: a props object of many small members is many steps too.
    if (hasher.work >= clock.yieldAt) {
      clock.yieldAt = hasher.work + clock.stepWork;
      yield;
    }
    const value = values[key];
    if (value === undefined || leaveOut.includes(key)) continue;
    const before = hasher.work;
    const hash = `#${(yield* hasher.valueSteps(value, FNV_OFFSET, clock)).toString(36)}`;
    // Its JSON is at least its work ÷ VALUE_WORK long: past this, the value is not short, and is not written at all.
    const short = hasher.work - before <= SHORT_VALUE_CHARS * VALUE_WORK;
    const json = short ? jsonPrefix(value, SHORT_VALUE_CHARS + 1) : undefined;
    hasher.work += PRINT_WORK + key.length;
    const print = json !== undefined && json.length <= SHORT_VALUE_CHARS ? `${hash}=${json}` : hash;
    // An own member whatever its name, as JSON.parse makes one: `__proto__` too.
    if (key === '__proto__')
      Object.defineProperty(prints, key, { value: print, writable: true, enumerable: true, configurable: true });
    else prints[key] = print;
  }
  return prints;
}

/** The `#hash` part of a value's print. */
export function hashPart(print: string | undefined): string | undefined {
  if (print === undefined) return undefined;
  const end = print.indexOf('=');
  return end === -1 ? print : print.slice(0, end);
}

const FNV_PRIME = 0x01000193;

/** Folds an entry's numbers into the running hash. */
function mix(hash: number, a: number, b: number, c: number, d: number): number {
  let h = Math.imul(hash ^ a, FNV_PRIME);
  h = Math.imul(h ^ b, FNV_PRIME);
  h = Math.imul(h ^ c, FNV_PRIME);
  return Math.imul(h ^ d, FNV_PRIME) >>> 0;
}

const NONE: readonly string[] = [];
