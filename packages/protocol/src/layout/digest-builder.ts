import type { JsonValue } from '../wire/json.js';
import type { ComponentNode } from '../wire/layout.js';
import type { DocumentDigest } from './document-digest.js';
import { FNV_OFFSET, fnv } from './json-hash.js';
import type { LayoutVisitor } from './plain-layout.js';
import type { PropsPrints } from './props-json.js';

/** How the digests built here hash (2: props hashed as values, by `JsonHasher`); stored in each digest. */
export const DIGEST_SCHEME = 2;

/** Values whose JSON is at most this long may be kept as they are. */
const SHORT_VALUE_CHARS = 48;

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
    if (typeof props !== 'number') return this.#addInSteps(node, parent, list, props, before);
    this.#add(node, parent, list, props);
    return this.#prints.hashed - before;
  }

  *#addInSteps(
    node: ComponentNode,
    parent: number,
    list: number,
    propsSteps: Generator<undefined, number, undefined>,
    before: number,
  ): Generator<undefined, number, undefined> {
    this.#add(node, parent, list, yield* propsSteps);
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
    if (this.#keep?.has(node.uuid)) digest.kept[node.uuid] = valuePrints(node.props, this.#prints.derivedOf(node));
  }

  /** The digest, once every component was folded in, with the page's fields. */
  finish(page: Record<string, JsonValue>): DocumentDigest {
    const digest = this.#digest;
    digest.page = valuePrints(page);
    let hash = this.#hash;
    for (const field of Object.keys(digest.page).sort()) hash = fnv(hashPart(digest.page[field])!, fnv(field, hash));
    digest.hash = hash;
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

/** `#hash`, and `=json` when short, per key of a props or page object. */
export function valuePrints(
  values: Record<string, JsonValue>,
  leaveOut: readonly string[] = [],
): Record<string, string> {
  const prints: Record<string, string> = {};
  for (const key of Object.keys(values)) {
    if (leaveOut.includes(key)) continue;
    const json = JSON.stringify(values[key]);
    const hash = `#${fnv(json, FNV_OFFSET).toString(36)}`;
    prints[key] = json.length <= SHORT_VALUE_CHARS ? `${hash}=${json}` : hash;
  }
  return prints;
}

/** The `#hash` part of a value's print. */
export function hashPart(print: string | undefined): string | undefined {
  if (print === undefined) return undefined;
  const end = print.indexOf('=');
  return end === -1 ? print : print.slice(0, end);
}

/** Folds an entry's numbers into the running hash. */
function mix(hash: number, a: number, b: number, c: number, d: number): number {
  let h = Math.imul(hash ^ a, 0x01000193);
  h = Math.imul(h ^ b, 0x01000193);
  h = Math.imul(h ^ c, 0x01000193);
  return Math.imul(h ^ d, 0x01000193) >>> 0;
}
