import type { ComponentNode, Props } from '../wire/layout.js';
import type { DerivedOf } from './derived-props.js';

interface Printed {
  json: string;
  hash: number | undefined;
}

/**
 * `JSON.stringify` and a hash of props objects, each computed once per object for as long as this cache lives. A
 * hop keeps one: its request's props objects are parsed once and never changed (the reducer copies what it
 * changes), so one stringify serves every reader of the hop, the page told to the model and the change detection, and the
 * document with the hop's outputs applied (which shares every untouched props object) is fingerprinted from the
 * same entries. A plain Map dropped with the hop, not a WeakMap: ten thousand ephemerons cost the collector more than
 * the stringify they save.
 */
export class PropsPrints {
  readonly #printed = new Map<Props, Printed>();
  /** The prints of props without their derived props, for the nodes that hold some (spec §10.1). */
  readonly #withoutDerived = new Map<Props, Printed>();

  /**
   * `derivedOf`: which props of a node its host computes (spec §10.1); they are left out of {@link nodeHash}, so a
   * value the host recomputed is not taken for the person's change. By default the ones the node lists.
   */
  constructor(readonly derivedOf: DerivedOf = (node) => node.derived ?? []) {}

  /** A hash of a node's props without its derived ones; {@link hash} of its props when it holds none. */
  nodeHash(node: ComponentNode): number {
    const derived = this.derivedOf(node);
    if (!derived.some((name) => Object.hasOwn(node.props, name))) return this.hash(node.props);
    let entry = this.#withoutDerived.get(node.props);
    if (entry === undefined) {
      const own = { ...node.props };
      for (const name of derived) delete own[name];
      entry = { json: JSON.stringify(own), hash: undefined };
      this.#withoutDerived.set(node.props, entry);
    }
    entry.hash ??= fnv(entry.json, FNV_OFFSET);
    return entry.hash;
  }

  #entry(props: Props): Printed {
    let entry = this.#printed.get(props);
    if (entry === undefined) {
      entry = { json: JSON.stringify(props), hash: undefined };
      this.#printed.set(props, entry);
    }
    return entry;
  }

  /** `JSON.stringify(props)`. */
  json(props: Props): string {
    return this.#entry(props).json;
  }

  /** A 32-bit hash of {@link json}. */
  hash(props: Props): number {
    const entry = this.#entry(props);
    entry.hash ??= fnv(entry.json, FNV_OFFSET);
    return entry.hash;
  }
}

/** The FNV-1a offset basis: the hash of nothing. */
export const FNV_OFFSET = 0x811c9dc5;

/**
 * A 32-bit FNV-1a-style hash of `text`, continuing `hash`, fed two UTF-16 code units at a time (half the multiplies
 * of the classic byte-wise loop, which matters on a 10,000-component page): a fingerprint, not a security boundary.
 */
export function fnv(text: string, hash: number): number {
  let h = hash;
  const pairs = text.length - 1;
  let index = 0;
  for (; index < pairs; index += 2) {
    h = Math.imul(h ^ (text.charCodeAt(index) | (text.charCodeAt(index + 1) << 16)), 0x01000193);
  }
  if (index < text.length) h = Math.imul(h ^ text.charCodeAt(index), 0x01000193);
  return Math.imul(h ^ text.length, 0x01000193) >>> 0;
}
