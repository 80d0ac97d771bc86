import type { JsonValue } from '../wire/json.js';
import type { ComponentNode, PageValues } from '../wire/layout.js';
import type { ToolOutput } from '../wire/outputs.js';
import type { CanvasDocument } from './apply-outputs.js';

/**
 * A fingerprint of a document, enough to tell later what the person changed in it (spec §16.1) without keeping a
 * copy of the page: for every component its uuid, where it sits, its component id and a fingerprint of each prop;
 * for every page field a fingerprint. A value whose JSON is short is its own fingerprint (so a report can say what
 * it was); a longer one is a hash. Two strings, one line per component or field, so a store keeps and validates it
 * as text instead of walking a structure.
 */
export interface DocumentDigest {
  /** `uuid \t parent line (-1: a region) \t region or slot \t component id (\t prop name JSON \t fingerprint)*`. */
  components: string;
  /** `field name JSON \t fingerprint`, one per line. */
  page: string;
}

/** Values whose JSON is at most this long are kept as they are; longer ones as a hash. */
const SHORT_VALUE_CHARS = 48;

/** What the person did to the document between two hops. */
export type DocumentChange =
  | { kind: 'added'; uuid: string; component: string; where: Place }
  | { kind: 'removed'; uuid: string; component: string; where: Place }
  | { kind: 'moved'; uuid: string; component: string; from: Place; to: Place }
  | { kind: 'prop'; uuid: string; component: string; prop: string; before: KnownValue; after: KnownValue }
  | { kind: 'page'; field: string; before: KnownValue; after: KnownValue };

/** Where a component sits: a region id or `parent_uuid/slot`, and its 1-based position there. */
export interface Place {
  target: string;
  position: number;
}

/** A value as a change report knows it: the value itself, unset, or only that it was long. */
export type KnownValue = { set: false } | { set: true; value: JsonValue } | { set: true; chars: number };

interface Entry {
  uuid: string;
  parentLine: number;
  list: string;
  component: string;
  props: Map<string, string>;
}

/** The digest of `document` (spec §16.1). */
export function digestDocument(document: CanvasDocument): DocumentDigest {
  const lines: string[] = [];
  const lineOf = new Map<string, number>();
  const visit = (nodes: readonly ComponentNode[], parentLine: number, list: string): void => {
    for (const node of nodes) {
      const line = lines.length;
      lineOf.set(node.uuid, line);
      let text = `${node.uuid}\t${parentLine}\t${list}\t${node.component}`;
      for (const name of Object.keys(node.props).sort()) {
        text += `\t${JSON.stringify(name)}\t${fingerprint(node.props[name]!)}`;
      }
      lines.push(text);
      for (const [slot, children] of Object.entries(node.slots ?? {})) visit(children, line, slot);
    }
  };
  for (const [region, { components }] of Object.entries(document.layout.regions)) visit(components, -1, region);
  return { components: lines.join('\n'), page: pageLines(document.page) };
}

/**
 * What the person changed between `expected` (the digest of the document the server predicted) and `actual` (the
 * document the browser sent), in document order: removals, additions, moves, prop and page changes. Differences that
 * an output the host rejected explains (its placed components, the props or field it would have set) are left out:
 * the model hears of those as rejections.
 */
export function diffDocument(
  expected: DocumentDigest,
  actual: CanvasDocument,
  rejected: readonly ToolOutput[] = [],
): DocumentChange[] {
  const explained = explainedByRejections(rejected);
  const before = parseComponents(expected.components);
  const after = parseComponents(digestDocument({ layout: actual.layout, page: {} }).components);
  const beforeByUuid = new Map(before.map((entry) => [entry.uuid, entry]));
  const afterByUuid = new Map(after.map((entry) => [entry.uuid, entry]));
  const changes: DocumentChange[] = [];

  const targetOf = (entry: Entry, entries: readonly Entry[]): string =>
    entry.parentLine === -1 ? entry.list : `${entries[entry.parentLine]!.uuid}/${entry.list}`;
  const placeOf = (entries: readonly Entry[]) => {
    const positions = new Map<string, Place>();
    const counters = new Map<string, number>();
    for (const entry of entries) {
      const target = targetOf(entry, entries);
      const position = (counters.get(target) ?? 0) + 1;
      counters.set(target, position);
      positions.set(entry.uuid, { target, position });
    }
    return positions;
  };
  const beforePlaces = placeOf(before);
  const afterPlaces = placeOf(after);

  for (const entry of before) {
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
  const moved = movedWithinLists(before, after, beforeByUuid, targetOf);
  for (const entry of after) {
    const old = beforeByUuid.get(entry.uuid);
    if (!old) {
      const parent = entry.parentLine === -1 ? undefined : after[entry.parentLine];
      if (parent && !beforeByUuid.has(parent.uuid)) continue;
      if (!explained.uuids.has(entry.uuid))
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
    if (from.target !== to.target || moved.has(entry.uuid)) {
      changes.push({ kind: 'moved', uuid: entry.uuid, component: entry.component, from, to });
    }
    const names = new Set([...old.props.keys(), ...entry.props.keys()]);
    for (const nameJson of names) {
      const was = old.props.get(nameJson);
      const now = entry.props.get(nameJson);
      if (was === now) continue;
      const prop = JSON.parse(nameJson) as string;
      if (explained.props.has(`${entry.uuid}\u0000${prop}`)) continue;
      const node = findNode(actual, entry, after);
      changes.push({
        kind: 'prop',
        uuid: entry.uuid,
        component: entry.component,
        prop,
        before: knownFromFingerprint(was),
        after: knownValue(node && Object.hasOwn(node.props, prop) ? node.props[prop] : undefined),
      });
    }
  }
  const pageBefore = new Map(expected.page === '' ? [] : expected.page.split('\n').map(splitPair));
  const fields = new Set([...pageBefore.keys(), ...Object.keys(actual.page).map((field) => JSON.stringify(field))]);
  for (const fieldJson of fields) {
    const field = JSON.parse(fieldJson) as string;
    if (explained.fields.has(field)) continue;
    const was = pageBefore.get(fieldJson);
    const value = Object.hasOwn(actual.page, field) ? actual.page[field] : undefined;
    const now = value === undefined ? undefined : fingerprint(value);
    if (was === now) continue;
    changes.push({ kind: 'page', field, before: knownFromFingerprint(was), after: knownValue(value) });
  }
  return changes;
}

/** How long a digest is, in characters: what a store keeps for it. */
export function digestChars(digest: DocumentDigest): number {
  return digest.components.length + digest.page.length;
}

function pageLines(page: PageValues): string {
  return Object.keys(page)
    .sort()
    .map((field) => `${JSON.stringify(field)}\t${fingerprint(page[field]!)}`)
    .join('\n');
}

function splitPair(line: string): [string, string] {
  const tab = line.indexOf('\t');
  return [line.slice(0, tab), line.slice(tab + 1)];
}

function parseComponents(text: string): Entry[] {
  if (text === '') return [];
  return text.split('\n').map((line) => {
    const fields = line.split('\t');
    const props = new Map<string, string>();
    for (let index = 4; index + 1 < fields.length; index += 2) props.set(fields[index]!, fields[index + 1]!);
    return { uuid: fields[0]!, parentLine: Number(fields[1]), list: fields[2]!, component: fields[3]!, props };
  });
}

/**
 * Components that stayed in their list while the order changed around them: within each list the longest run
 * that kept its order stayed; the others moved. (Placing or removing siblings shifts positions, which is no move.)
 */
function movedWithinLists(
  before: readonly Entry[],
  after: readonly Entry[],
  beforeByUuid: ReadonlyMap<string, Entry>,
  targetOf: (entry: Entry, entries: readonly Entry[]) => string,
): Set<string> {
  const rank = new Map<string, number>();
  before.forEach((entry, index) => {
    rank.set(entry.uuid, index);
  });
  const lists = new Map<string, string[]>();
  for (const entry of after) {
    const old = beforeByUuid.get(entry.uuid);
    if (!old || targetOf(old, before) !== targetOf(entry, after)) continue;
    const target = targetOf(entry, after);
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

function findNode(document: CanvasDocument, entry: Entry, entries: readonly Entry[]): ComponentNode | undefined {
  // The entry's own list, found by following parent lines up to the region: no search of the whole page.
  const chain: Entry[] = [];
  for (let current: Entry | undefined = entry; current; ) {
    chain.unshift(current);
    current = current.parentLine === -1 ? undefined : entries[current.parentLine];
  }
  let nodes: readonly ComponentNode[] | undefined = document.layout.regions[chain[0]!.list]?.components;
  let node: ComponentNode | undefined;
  for (const [depth, link] of chain.entries()) {
    node = nodes?.find((candidate) => candidate.uuid === link.uuid);
    const next = chain[depth + 1];
    nodes = next ? node?.slots?.[next.list] : undefined;
  }
  return node;
}

function explainedByRejections(outputs: readonly ToolOutput[]) {
  const uuids = new Set<string>();
  const props = new Set<string>();
  const fields = new Set<string>();
  for (const output of outputs) {
    if (output.type === 'place_components') {
      const collect = (nodes: readonly ComponentNode[]): void => {
        for (const node of nodes) {
          uuids.add(node.uuid);
          for (const children of Object.values(node.slots ?? {})) collect(children);
        }
      };
      for (const operation of output.operations) collect(operation.components);
    } else if (output.type === 'edit_components') {
      for (const [uuid, updates] of Object.entries(output.component_updates)) {
        for (const prop of Object.keys(updates)) props.add(`${uuid}\u0000${prop}`);
      }
    } else {
      fields.add(output.field);
    }
  }
  return { uuids, props, fields };
}

/** A value's fingerprint: its JSON when short (object keys sorted), else `#` and a hash of that JSON. */
function fingerprint(value: JsonValue): string {
  const text = stableJson(value);
  return text.length <= SHORT_VALUE_CHARS ? text : `#${text.length.toString(36)}.${fnv1a(text).toString(36)}`;
}

function knownValue(value: JsonValue | undefined): KnownValue {
  return value === undefined ? { set: false } : { set: true, value };
}

function knownFromFingerprint(print: string | undefined): KnownValue {
  if (print === undefined) return { set: false };
  if (!print.startsWith('#')) return { set: true, value: JSON.parse(print) as JsonValue };
  return { set: true, chars: Number.parseInt(print.slice(1, print.indexOf('.')), 36) };
}

/** JSON with object keys sorted, so a host that reorders keys does not look like an edit. */
function stableJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(value[key]!)}`).join(',')}}`;
}

/** 32-bit FNV-1a over UTF-16 code units: a fingerprint, not a security boundary. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
