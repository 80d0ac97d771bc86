import type { ComponentNode, Props } from '../wire/layout.js';
import type { DerivedOf } from './derived-props.js';
import { FNV_OFFSET, JsonHasher } from './json-hash.js';

const NONE: readonly string[] = [];

/**
 * `JSON.stringify` and a hash of props objects, each computed once per object for as long as this cache lives. A
 * hop keeps one: its request's props objects are parsed once and never changed (the reducer copies what it
 * changes), so the validating walk of the request's layout hashes each props object once, and the document with the
 * hop's outputs applied (which shares every untouched props object) is fingerprinted from the same entries; the page
 * told to the model stringifies each once. Plain Maps dropped with the hop, not WeakMaps: ten thousand ephemerons
 * cost the collector more than the work they save.
 */
export class PropsPrints {
  readonly #json = new Map<Props, string>();
  /** Each props object's hash, of all its props (numbers: no object per node). */
  readonly #hashes = new Map<Props, number>();
  /**
   * The hashes of props whose node names derived props, without them, with the names left out: the same props with
   * another list (a host that changed it, a cache used across hops) are hashed again, not served stale.
   */
  readonly #hashesWithout = new Map<Props, { leftOut: readonly string[]; hash: number }>();
  readonly #hasher = new JsonHasher();

  /**
   * `derivedOf`: which props of a node its host computes (spec §10.1); they are left out of {@link nodeHashSteps}, so a
   * value the host recomputed is not taken for the person's change. By default the ones the node lists.
   */
  constructor(readonly derivedOf: DerivedOf = (node) => node.derived ?? NONE) {}

  /** The work of hashing so far (characters, and a few per value): walks that hash yield by it. */
  get hashed(): number {
    return this.#hasher.work;
  }

  /** The hasher of this cache, for the other hashing of the walks that use it (their work counted in one place). */
  get hasher(): JsonHasher {
    return this.#hasher;
  }

  /**
   * A hash of a node's props without its derived ones (the same for props whose JSON is the same), for a walk that
   * yields by the work done, whose props may be megabytes (a request's layout may hold such): the hash when it takes
   * at most `workLeft` (what is left of the walk's step), else steps that begin with a yield and then yield after each
   * `stepWork` hashed.
   */
  nodeHashSteps(
    node: ComponentNode,
    workLeft: number,
    stepWork: number,
  ): number | Generator<undefined, number, undefined> {
    const derived = this.derivedOf(node);
    const known = this.#known(node, derived);
    if (known !== undefined) return known;
    const hash = this.#hasher.objectWithin(node.props, FNV_OFFSET, derived, workLeft);
    if (hash !== undefined) return this.#remember(node, derived, hash);
    return this.#hashInSteps(node, derived, stepWork);
  }

  *#hashInSteps(
    node: ComponentNode,
    derived: readonly string[],
    stepWork: number,
  ): Generator<undefined, number, undefined> {
    // The attempt that gave up filled this step: the hash in steps begins with the next.
    yield;
    return this.#remember(node, derived, yield* this.#hasher.objectSteps(node.props, FNV_OFFSET, derived, stepWork));
  }

  #known(node: ComponentNode, derived: readonly string[]): number | undefined {
    if (derived.length === 0) return this.#hashes.get(node.props);
    const known = this.#hashesWithout.get(node.props);
    return known !== undefined && sameNames(known.leftOut, derived) ? known.hash : undefined;
  }

  #remember(node: ComponentNode, derived: readonly string[], hash: number): number {
    if (derived.length === 0) this.#hashes.set(node.props, hash);
    // A copy: a host may change its list in place.
    else this.#hashesWithout.set(node.props, { leftOut: derived.slice(), hash });
    return hash;
  }

  /** `JSON.stringify(props)`. */
  json(props: Props): string {
    let json = this.#json.get(props);
    if (json === undefined) {
      json = JSON.stringify(props);
      this.#json.set(props, json);
    }
    return json;
  }
}

/** Whether two lists of names left out are the same, name by name (no key built per node). */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false;
  return true;
}
