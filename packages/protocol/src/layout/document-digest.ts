import type { JsonValue } from '../wire/json.js';
import type { ComponentNode, Layout } from '../wire/layout.js';
import type { ToolOutput } from '../wire/outputs.js';
import type { CanvasDocument } from './apply-outputs.js';
import { type Pause, runSteps, runStepsNow } from '../steps/steps.js';
import { findComponentPaths, walkLayout } from './layout-tree.js';
import type { DerivedOf } from './derived-props.js';
import { DIGEST_SCHEME, DigestBuilder, hashPart, valuePrintsSteps } from './digest-builder.js';
import { LAYOUT_STEP_WORK, type LayoutVisitor } from './plain-layout.js';
import { PropsPrints } from './props-json.js';

/**
 * A fingerprint of a document, enough to tell later what the person changed in it (spec §16.1) without keeping a
 * copy of the page: for every component its uuid, where it sits, its component id and a hash of its props; for the
 * components the agent placed or edited this turn (`keepValuesOf`) a hash of each prop and its value when short,
 * so a report can name the prop and what it was; the page fields the same way; and one hash of all of it, so an
 * unchanged page is recognised without a diff (with its uuids compared as they are). Flat arrays, so a store keeps it as plain JSON cheaply.
 */
export interface DocumentDigest {
  /** Per component, in document order: its uuid, its parent's index (-1: in a region), … */
  uuids: string[];
  parents: number[];
  /** … the index in `names` of its region or slot, of its component id, and a hash of its props. */
  lists: number[];
  components: number[];
  hashes: number[];
  /** The region, slot and component names the entries point into. */
  names: string[];
  /** Per kept component, per prop: `#hash`, with `=json` after it when the value is short. */
  kept: Record<string, Record<string, string>>;
  /** Per page field, the same. */
  page: Record<string, string>;
  /** A hash of all of the above but the kept values. */
  hash: number;
  /**
   * How its hashes were made: {@link DIGEST_SCHEME}. Absent in digests stored by a server before it (props hashed
   * as their JSON text), which this one cannot compare with its own.
   */
  scheme?: number;
}

/** What {@link digestDocument} keeps besides hashes. */
export interface DigestOptions {
  /** Components whose props are fingerprinted one by one, short values kept (the agent's own, to quote back). */
  keepValuesOf?: ReadonlySet<string> | undefined;
  /** The hop's props cache, shared with its other readers (default: one for this call). */
  prints?: PropsPrints | undefined;
}

/** A coarse report lists at most this many of a component's props. */
const MAX_REPORTED_PROPS = 6;

/** What the person did to the document between two hops. */
export type DocumentChange =
  | { kind: 'added'; uuid: string; component: string; where: Place }
  | { kind: 'removed'; uuid: string; component: string; where: Place }
  | { kind: 'moved'; uuid: string; component: string; from: Place; to: Place }
  | { kind: 'prop'; uuid: string; component: string; prop: string; before: KnownValue; after: KnownValue }
  /** Props of a component the agent did not touch changed: which ones is not kept, so its props now are given. */
  | { kind: 'props'; uuid: string; component: string; now: Record<string, JsonValue> }
  | { kind: 'page'; field: string; before: KnownValue; after: KnownValue };

/** Where a component sits: a region id or `parent_uuid/slot`, and its 1-based position there. */
export interface Place {
  target: string;
  position: number;
}

/** A value as a change report knows it: the value itself, unset, or only that it was set (a hash). */
export type KnownValue = { set: false } | { set: true; value: JsonValue } | { set: true; value?: undefined };

interface Entry {
  uuid: string;
  parentLine: number;
  list: string;
  component: string;
  hash: number;
  /** Its region, or `parent_uuid/slot`. */
  target: string;
}

/** The digest of `document` (spec §16.1). */
export function digestDocument(document: CanvasDocument, options: DigestOptions = {}): DocumentDigest {
  return runStepsNow(digestSteps(document, options));
}

/**
 * {@link digestDocument} with `pause` awaited between its steps, so a page of many or large props is many short
 * steps with other requests served between them, not one long one (bench/README.md, the attack group).
 */
export function digestDocumentStepwise(
  document: CanvasDocument,
  options: DigestOptions,
  pause: Pause,
): Promise<DocumentDigest> {
  return runSteps(digestSteps(document, options), pause);
}

/** {@link digestDocument} as steps: it yields after each {@link LAYOUT_STEP_WORK} of props hashed. */
function* digestSteps(document: CanvasDocument, options: DigestOptions): Steps<DocumentDigest> {
  const prints = options.prints ?? new PropsPrints();
  const builder = new DigestBuilder(prints, options.keepValuesOf);
  const workLeft = yield* walkSteps(document.layout, builder);
  return yield* builder.finishSteps(document.page, workLeft, LAYOUT_STEP_WORK);
}

/** A piece of work in synchronous steps, run by `runSteps` (between other requests) or `runStepsNow` (at once). */
type Steps<T> = Generator<undefined, T, undefined>;

/**
 * Every list and component of a layout in memory, in the order the validating walk of a request meets them
 * (`plainLayoutSteps`: a list when entered, each component before its slots, the slots in their order), told to
 * `visitor`. Yields after every {@link LAYOUT_STEP_WORK} of the visitor's work, so a map-heavy page is no single
 * step; answers what is left of the last step's work.
 */
function* walkSteps(layout: Layout, visitor: LayoutVisitor): Steps<number> {
  let index = 0;
  let work = 0;
  // The lists being walked, innermost last; a list's name is told when the walk enters it.
  const stack: Array<{ nodes: readonly ComponentNode[]; at: number; parent: number; name: string; list: number }> = [];
  for (const [region, { components }] of Object.entries(layout.regions)) {
    stack.push({ nodes: components, at: 0, parent: -1, name: region, list: -1 });
    while (stack.length > 0) {
      const frame = stack.at(-1)!;
      if (frame.list === -1) frame.list = visitor.list(frame.name);
      const node = frame.nodes[frame.at];
      if (node === undefined) {
        stack.pop();
        continue;
      }
      frame.at += 1;
      const visited = visitor.node(node, frame.parent, frame.list, LAYOUT_STEP_WORK - work, LAYOUT_STEP_WORK);
      work += 1 + (typeof visited === 'number' ? visited : yield* visited);
      const slots = node.slots;
      if (slots) {
        // Pushed last slot first: the first slot is walked first.
        const names = Object.keys(slots);
        for (let slot = names.length - 1; slot >= 0; slot -= 1) {
          stack.push({ nodes: slots[names[slot]!]!, at: 0, parent: index, name: names[slot]!, list: -1 });
        }
      }
      index += 1;
      if (work >= LAYOUT_STEP_WORK) {
        work = 0;
        yield;
      }
    }
  }
  return LAYOUT_STEP_WORK - work;
}

/**
 * What the person changed between `expected` (the digest of the document the server predicted) and `actual` (the
 * document the browser sent): removals, additions, moves, prop and page changes, in document order. Differences that
 * an output the host rejected explains (its placed components, the props or field it would have set) are left out:
 * the model hears of those as rejections. An unchanged document costs the digest of `actual` (none when `now`, its
 * digest, is given: the validating walk of the request built it) and a comparison of the two, not a diff.
 */
export function diffDocument(
  expected: DocumentDigest,
  actual: CanvasDocument,
  rejected: readonly ToolOutput[] = [],
  prints?: PropsPrints,
  now?: DocumentDigest,
): DocumentChange[] {
  return runStepsNow(diffSteps(expected, actual, { rejected, prints: prints ?? new PropsPrints(), now }));
}

/** {@link diffDocument} with `pause` awaited between its steps (see {@link digestDocumentStepwise}). */
export function diffDocumentStepwise(
  expected: DocumentDigest,
  actual: CanvasDocument,
  {
    rejected = [],
    prints = new PropsPrints(),
    now,
    pause,
  }: { rejected?: readonly ToolOutput[]; prints?: PropsPrints; now?: DocumentDigest | undefined; pause: Pause },
): Promise<DocumentChange[]> {
  return runSteps(diffSteps(expected, actual, { rejected, prints, now }), pause);
}

/** {@link diffDocument} as steps: the walk that hashes props yields; comparing the two digests is one step. */
function* diffSteps(
  expected: DocumentDigest,
  actual: CanvasDocument,
  given: { rejected: readonly ToolOutput[]; prints: PropsPrints; now: DocumentDigest | undefined },
): Steps<DocumentChange[]> {
  // A digest another version of the server stored (its hashes made another way) tells nothing, like none at all.
  if (expected.scheme !== DIGEST_SCHEME) return [];
  const { prints } = given;
  const now = given.now ?? (yield* digestSteps(actual, { prints }));
  // The common case, the page exactly as predicted: the two digests are equal.
  if (digestsMatch(expected, now)) return [];
  yield;
  const kept = yield* keptPrints(actual, Object.keys(expected.kept), prints);
  return yield* changesBetween(expected, { ...now, kept }, actual, given.rejected, prints.derivedOf);
}

/**
 * The digest {@link digestDocument} builds of `document` keeping the values of `keepValuesOf`, from `digest`, the
 * digest of the same document that kept none (the one the validating walk of its request built): the props are not
 * hashed again, only the kept components are looked up, and their values hashed with `pause` awaited between steps.
 * A hop that changed nothing on the page reuses its request's.
 */
export async function keepingValuesStepwise(
  digest: DocumentDigest,
  document: CanvasDocument,
  keepValuesOf: ReadonlySet<string>,
  prints: PropsPrints,
  pause: Pause,
): Promise<DocumentDigest> {
  return { ...digest, kept: await runSteps(keptPrints(document, [...keepValuesOf], prints), pause) };
}

/**
 * The per-prop prints of the components `uuids` names that `document` holds, as a digest keeping their values has
 * them: the components the expected digest kept values of are compared prop by prop. In steps of
 * {@link LAYOUT_STEP_WORK}.
 */
function* keptPrints(
  document: CanvasDocument,
  uuids: readonly string[],
  prints: PropsPrints,
): Steps<DocumentDigest['kept']> {
  const kept: DocumentDigest['kept'] = {};
  if (uuids.length === 0) return kept;
  const hasher = prints.hasher;
  const clock = { yieldAt: hasher.work + LAYOUT_STEP_WORK, stepWork: LAYOUT_STEP_WORK };
  for (const [uuid, { node }] of findComponentPaths(document.layout, new Set(uuids)))
    kept[uuid] = yield* valuePrintsSteps(node.props, prints.derivedOf(node), hasher, clock);
  return kept;
}

/** Entries compared between two yields of {@link changesBetween}: a page of many changes is several steps. */
const STEP_ENTRIES = 4_096;

/** What changed between two digests, the second of `actual`; yields between its walks and every few thousand entries. */
function* changesBetween(
  expected: DocumentDigest,
  now: DocumentDigest,
  actual: CanvasDocument,
  rejected: readonly ToolOutput[],
  derivedOf: DerivedOf,
): Steps<DocumentChange[]> {
  const explained = explainedByRejections(rejected);
  if (sameStructure(expected, now)) return propChanges(expected, now, actual, explained, derivedOf);
  const before = entriesOf(expected);
  const after = entriesOf(now);
  yield;
  const beforeByUuid = new Map(before.map((entry) => [entry.uuid, entry]));
  const afterByUuid = new Map(after.map((entry) => [entry.uuid, entry]));
  const beforePlaces = placesOf(before);
  const afterPlaces = placesOf(after);
  yield;
  const nodes = nodesByUuid(actual);
  const changes: DocumentChange[] = [];
  let compared = 0;

  for (const entry of before) {
    compared += 1;
    if (compared % STEP_ENTRIES === 0) yield;
    if (afterByUuid.has(entry.uuid) || explained.uuids.has(entry.uuid)) continue;
    // A component inside a removed one went with it: the removal of the outer one says it.
    const parent = entry.parentLine === -1 ? undefined : before[entry.parentLine];
    if (parent && !afterByUuid.has(parent.uuid)) continue;
    changes.push({
      kind: 'removed',
      uuid: entry.uuid,
      component: entry.component,
      where: beforePlaces.get(entry.uuid)!,
    });
  }
  yield;
  const moved = movedWithinLists(before, after, beforeByUuid);
  for (const entry of after) {
    compared += 1;
    if (compared % STEP_ENTRIES === 0) yield;
    const old = beforeByUuid.get(entry.uuid);
    if (!old) {
      const parent = entry.parentLine === -1 ? undefined : after[entry.parentLine];
      if ((!parent || beforeByUuid.has(parent.uuid)) && !explained.uuids.has(entry.uuid))
        changes.push({
          kind: 'added',
          uuid: entry.uuid,
          component: entry.component,
          where: afterPlaces.get(entry.uuid)!,
        });
      continue;
    }
    const from = beforePlaces.get(entry.uuid)!;
    const to = afterPlaces.get(entry.uuid)!;
    if ((from.target !== to.target || moved.has(entry.uuid)) && !explained.moved.has(entry.uuid)) {
      changes.push({ kind: 'moved', uuid: entry.uuid, component: entry.component, from, to });
    }
    if (old.hash !== entry.hash)
      changes.push(...componentChanges(expected, now, entry, nodes.get(entry.uuid)!, explained, derivedOf));
  }
  changes.push(...pageChanges(expected, now, actual, explained));
  return changes;
}

type Explained = ReturnType<typeof explainedByRejections>;

/** Whether `document` is the one `digest` fingerprints: its own digest matches it ({@link digestsMatch}). */
export function matchesDigest(digest: DocumentDigest, document: CanvasDocument, prints = new PropsPrints()): boolean {
  return digestsMatch(digest, digestDocument(document, { prints }));
}

/**
 * Whether two digests fingerprint the same document: the same hash (of every component's place, component id and
 * props, and the page fields), the same names it was built from, and the same uuids in order, compared as they are.
 * The values a digest keeps of some components are left out: they only say more about what is hashed.
 */
export function digestsMatch(expected: DocumentDigest, now: DocumentDigest): boolean {
  return expected.hash === now.hash && sameList(expected.uuids, now.uuids) && sameList(expected.names, now.names);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false;
  return true;
}

/** Whether both digests hold the same components in the same places: then only props or page values changed. */
function sameStructure(a: DocumentDigest, b: DocumentDigest): boolean {
  const length = a.uuids.length;
  if (b.uuids.length !== length) return false;
  for (let index = 0; index < length; index += 1) {
    if (
      a.uuids[index] !== b.uuids[index] ||
      a.parents[index] !== b.parents[index] ||
      a.names[a.lists[index]!] !== b.names[b.lists[index]!] ||
      a.names[a.components[index]!] !== b.names[b.components[index]!]
    )
      return false;
  }
  return true;
}

/** The changes of a document whose structure stayed: compared entry by entry, no maps, no places. */
function propChanges(
  expected: DocumentDigest,
  now: DocumentDigest,
  actual: CanvasDocument,
  explained: Explained,
  derivedOf: DerivedOf,
): DocumentChange[] {
  const changes: DocumentChange[] = [];
  let nodes: Map<string, ComponentNode> | undefined;
  for (let index = 0; index < now.uuids.length; index += 1) {
    if (expected.hashes[index] === now.hashes[index]) continue;
    nodes ??= nodesByUuid(actual);
    const uuid = now.uuids[index]!;
    const entry = { uuid, component: now.names[now.components[index]!]! };
    changes.push(...componentChanges(expected, now, entry, nodes.get(uuid)!, explained, derivedOf));
  }
  changes.push(...pageChanges(expected, now, actual, explained));
  return changes;
}

/** What changed in one component's props: prop by prop when the agent touched it, else its props now. */
function componentChanges(
  expected: DocumentDigest,
  now: DocumentDigest,
  entry: Pick<Entry, 'uuid' | 'component'>,
  node: ComponentNode,
  explained: Explained,
  derivedOf: DerivedOf,
): DocumentChange[] {
  const keptBefore = Object.hasOwn(expected.kept, entry.uuid) ? expected.kept[entry.uuid] : undefined;
  if (!keptBefore) {
    // Without per-prop hashes a rejected edit of it cannot be told apart from the person's: leave it to the rejection.
    if (explained.edited.has(entry.uuid)) return [];
    return [
      { kind: 'props', uuid: entry.uuid, component: entry.component, now: someProps(node.props, derivedOf(node)) },
    ];
  }
  const keptNow = now.kept[entry.uuid] ?? {};
  const changes: DocumentChange[] = [];
  for (const prop of new Set([...Object.keys(keptBefore), ...Object.keys(keptNow)])) {
    const was = Object.hasOwn(keptBefore, prop) ? keptBefore[prop] : undefined;
    const is = Object.hasOwn(keptNow, prop) ? keptNow[prop] : undefined;
    if (hashPart(was) === hashPart(is) || explained.props.has(`${entry.uuid}\u0000${prop}`)) continue;
    changes.push({
      kind: 'prop',
      uuid: entry.uuid,
      component: entry.component,
      prop,
      before: knownFromPrint(was),
      after: knownValue(Object.hasOwn(node.props, prop) ? node.props[prop] : undefined),
    });
  }
  return changes;
}

/** The page fields that changed. */
function pageChanges(
  expected: DocumentDigest,
  now: DocumentDigest,
  actual: CanvasDocument,
  explained: Explained,
): DocumentChange[] {
  const changes: DocumentChange[] = [];
  for (const field of new Set([...Object.keys(expected.page), ...Object.keys(now.page)])) {
    const was = Object.hasOwn(expected.page, field) ? expected.page[field] : undefined;
    const is = Object.hasOwn(now.page, field) ? now.page[field] : undefined;
    if (explained.fields.has(field) || hashPart(was) === hashPart(is)) continue;
    const value = Object.hasOwn(actual.page, field) ? actual.page[field] : undefined;
    changes.push({ kind: 'page', field, before: knownFromPrint(was), after: knownValue(value) });
  }
  return changes;
}

/** How big a digest is, as the JSON a store keeps. */
export function digestChars(digest: DocumentDigest): number {
  return JSON.stringify(digest).length;
}

/** Whether `value` has the shape of a {@link DocumentDigest} (a store's copy is checked before it is used). */
export function isDocumentDigest(value: unknown): value is DocumentDigest {
  if (value === null || typeof value !== 'object') return false;
  const digest = value as Record<string, unknown>;
  const arrays = ['uuids', 'parents', 'lists', 'components', 'hashes'].map((key) => digest[key]);
  if (!arrays.every(Array.isArray)) return false;
  const [uuids, parents, lists, components, hashes] = arrays as unknown[][];
  const length = uuids!.length;
  if (![parents, lists, components, hashes].every((array) => array!.length === length)) return false;
  const names = digest.names;
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) return false;
  for (let index = 0; index < length; index += 1) {
    const parent = parents![index];
    if (
      typeof uuids![index] !== 'string' ||
      !Number.isInteger(parent) ||
      (parent as number) < -1 ||
      (parent as number) >= index ||
      typeof names[lists![index] as number] !== 'string' ||
      typeof names[components![index] as number] !== 'string' ||
      typeof hashes![index] !== 'number'
    )
      return false;
  }
  return isPrintMap(digest.page) && typeof digest.hash === 'number' && isKept(digest.kept);
}

function isPrintMap(value: unknown): value is Record<string, string> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((print) => typeof print === 'string' && print.startsWith('#'))
  );
}

function isKept(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every(isPrintMap);
}

/** At most {@link MAX_REPORTED_PROPS} of a component's props but the derived ones, for a coarse report. */
function someProps(props: Record<string, JsonValue>, derived: readonly string[]): Record<string, JsonValue> {
  const own =
    derived.length === 0 ? Object.entries(props) : Object.entries(props).filter(([name]) => !derived.includes(name));
  return Object.fromEntries(own.slice(0, MAX_REPORTED_PROPS));
}

function entriesOf(digest: DocumentDigest): Entry[] {
  return digest.uuids.map((uuid, index) => {
    const parentLine = digest.parents[index]!;
    const list = digest.names[digest.lists[index]!]!;
    return {
      uuid,
      parentLine,
      list,
      component: digest.names[digest.components[index]!]!,
      hash: digest.hashes[index]!,
      target: parentLine === -1 ? list : `${digest.uuids[parentLine]}/${list}`,
    };
  });
}

function nodesByUuid(document: CanvasDocument): Map<string, ComponentNode> {
  const nodes = new Map<string, ComponentNode>();
  walkLayout(document.layout, (node) => nodes.set(node.uuid, node));
  return nodes;
}

function placesOf(entries: readonly Entry[]): Map<string, Place> {
  const places = new Map<string, Place>();
  const counters = new Map<string, number>();
  for (const entry of entries) {
    const target = entry.target;
    const position = (counters.get(target) ?? 0) + 1;
    counters.set(target, position);
    places.set(entry.uuid, { target, position });
  }
  return places;
}

/**
 * Components that stayed in their list while the order changed around them: within each list the longest run
 * that kept its order stayed; the others moved. (Placing or removing siblings shifts positions, which is no move.)
 */
function movedWithinLists(
  before: readonly Entry[],
  after: readonly Entry[],
  beforeByUuid: ReadonlyMap<string, Entry>,
): Set<string> {
  const rank = new Map<string, number>();
  before.forEach((entry, index) => {
    rank.set(entry.uuid, index);
  });
  const lists = new Map<string, string[]>();
  for (const entry of after) {
    const old = beforeByUuid.get(entry.uuid);
    if (!old || old.target !== entry.target) continue;
    const target = entry.target;
    const list = lists.get(target) ?? [];
    list.push(entry.uuid);
    lists.set(target, list);
  }
  const moved = new Set<string>();
  for (const uuids of lists.values()) {
    const kept = longestIncreasingRun(uuids.map((uuid) => rank.get(uuid)!));
    uuids.forEach((uuid, index) => {
      if (!kept.has(index)) moved.add(uuid);
    });
  }
  return moved;
}

/** The indexes of one longest strictly increasing subsequence of `values` (patience sorting, O(n log n)). */
function longestIncreasingRun(values: readonly number[]): Set<number> {
  const tails: number[] = [];
  const previous: number[] = new Array(values.length).fill(-1);
  values.forEach((value, index) => {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (values[tails[middle]!]! < value) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[index] = tails[low - 1]!;
    tails[low] = index;
  });
  const kept = new Set<number>();
  for (let index = tails.at(-1) ?? -1; index !== -1; index = previous[index]!) kept.add(index);
  return kept;
}

function explainedByRejections(outputs: readonly ToolOutput[]) {
  const uuids = new Set<string>();
  const edited = new Set<string>();
  const props = new Set<string>();
  const fields = new Set<string>();
  const moved = new Set<string>();
  for (const output of outputs) {
    if (output.type === 'place_components') {
      for (const { components } of output.operations) {
        walkLayout({ regions: { placed: { components } } }, (node) => uuids.add(node.uuid));
      }
    } else if (output.type === 'edit_components') {
      for (const [uuid, updates] of Object.entries(output.component_updates)) {
        edited.add(uuid);
        for (const prop of Object.keys(updates)) props.add(`${uuid}\u0000${prop}`);
      }
    } else if (output.type === 'set_page_value') {
      fields.add(output.field);
    } else if (output.type === 'remove_components') {
      // Still on the page because the removal was rejected: the components the server expected gone.
      for (const uuid of output.uuids) uuids.add(uuid);
    } else {
      for (const operation of output.operations) for (const uuid of operation.uuids) moved.add(uuid);
    }
  }
  return { uuids, edited, props, fields, moved };
}

function knownValue(value: JsonValue | undefined): KnownValue {
  return value === undefined ? { set: false } : { set: true, value };
}

function knownFromPrint(print: string | undefined): KnownValue {
  if (print === undefined) return { set: false };
  const kept = print.indexOf('=');
  return kept === -1 ? { set: true } : { set: true, value: JSON.parse(print.slice(kept + 1)) as JsonValue };
}
