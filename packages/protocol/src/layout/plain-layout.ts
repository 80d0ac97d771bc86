import { ID_PATTERN, MAX_DERIVED_PROPS, NAME_PATTERN } from '../wire/constants.js';
import type { ComponentNode, Layout } from '../wire/layout.js';
import { FORBIDDEN_KEYS } from '../wire/predicates.js';
import { LIMITS } from '../wire/limits.js';
import { runStepsNow } from '../steps/steps.js';

// The same rules as the zod schemas in wire/ids.ts and wire/layout.ts, written as one walk (with the schemas' own
// patterns). Keep the shapes and lengths in step: test/plain-layout.test.ts holds every rule against the schema.
const NODE_KEYS: ReadonlySet<string> = new Set(['uuid', 'component', 'props', 'slots', 'derived']);

/**
 * True when `value` is a layout exactly as `Layout.parse` would return it: every shape, id, name and prop value
 * valid, and no key the schema would strip. Then the schema's own walk can be skipped, which on a
 * 10,000-component layout is most of a hop's validation time (bench/README.md). False decides nothing: it means
 * "let the schema look", which also gives the precise error.
 */
export function isPlainLayout(value: unknown, options: PlainLayoutOptions = {}): value is Layout {
  return runStepsNow(plainLayoutSteps(value, options)) !== undefined;
}

/** How much of the layout {@link isPlainLayout} may take as already checked, and who else sees its walk. */
export interface PlainLayoutOptions {
  /**
   * The layout, every prop value in it included, is JSON as `JSON.parse` builds it from bytes `scanJsonBytes` passed:
   * finite numbers, plain objects, no forbidden key, no deeper than the limit. Then the walk checks the nodes only, not
   * every value in their props (a million values in one prop are a million steps saved).
   */
  jsonValuesChecked?: boolean;
  /** Sees every list and valid component as the walk meets them (it may have seen part of a layout that fails). */
  visitor?: LayoutVisitor | undefined;
}

/**
 * What rides along the validating walk, so that work which needs every component (the change detection's
 * fingerprint, spec §16.1) costs no walk of its own. Lists and components come in document order: a list when the
 * walk enters it (a region, or a slot of the component last seen), each component before its slots.
 */
export interface LayoutVisitor {
  /** A list of components is entered; answers the number it goes by in {@link node}. */
  list(name: string): number;
  /**
   * A component whose own shape is valid, with the index of its parent in document order (-1: in a region) and the
   * number of its list; answers how much work it did (characters hashed, say), by which the walk yields. Work that
   * would take more than `workLeft` (what is left of the walk's step; a component with megabytes of props) it answers
   * as steps of at most `stepWork` each, which the walk runs between its own yields.
   */
  node(
    node: ComponentNode,
    parent: number,
    list: number,
    workLeft: number,
    stepWork: number,
  ): number | Generator<undefined, number, undefined>;
}

/** What the walk of a plain layout found besides its validity: the limits of spec §13 it does not decide itself. */
export interface PlainLayoutWalk {
  /** Components, slot children included. */
  components: number;
  /** The first uuid met a second time, in document order. */
  duplicate: string | undefined;
}

/**
 * Components and work of a visitor done between two yields of {@link plainLayoutSteps}, and of the other walks that
 * fingerprint a page (`digestDocument`): a few milliseconds.
 */
export const LAYOUT_STEP_WORK = 256 * 1024;

/**
 * {@link isPlainLayout} as steps, telling `options.visitor` of every list and component as it goes: what it found,
 * or undefined when the layout is not plain. Yields after every {@link LAYOUT_STEP_WORK} of its own and the visitor's
 * work.
 */
export function* plainLayoutSteps(
  value: unknown,
  options: PlainLayoutOptions = {},
): Generator<undefined, PlainLayoutWalk | undefined, undefined> {
  if (!isPlainObject(value) || !hasOnlyKeys(value, 'regions')) return undefined;
  const regions = value.regions;
  if (!isPlainObject(regions)) return undefined;
  const walk: Walk = {
    checkValues: !options.jsonValuesChecked,
    visitor: options.visitor,
    components: 0,
    uuids: new Set(),
    componentIds: new Set(),
    duplicate: undefined,
    work: 0,
  };
  for (const [name, region] of Object.entries(regions)) {
    if (!isName(name) || !isPlainObject(region) || !hasOnlyKeys(region, 'components')) return undefined;
    const list = walk.visitor?.list(name) ?? -1;
    if (!(yield* nodeListSteps(region.components, 1, -1, list, walk))) return undefined;
  }
  return { components: walk.components, duplicate: walk.duplicate };
}

/** The state of one walk. */
interface Walk {
  checkValues: boolean;
  visitor: LayoutVisitor | undefined;
  components: number;
  uuids: Set<string>;
  /** Component ids found valid: a page uses a few dozen, each up to thousands of times (one pattern test each). */
  componentIds: Set<string>;
  duplicate: string | undefined;
  /** Work since the last yield. */
  work: number;
}

function* nodeListSteps(
  value: unknown,
  depth: number,
  parent: number,
  list: number,
  walk: Walk,
): Generator<undefined, boolean, undefined> {
  if (!Array.isArray(value) || depth > LIMITS.maxJsonDepth) return false;
  for (const node of value) {
    if (!isWalkedObject(node, walk)) return false;
    let keys = 0;
    for (const key in node) {
      if (!NODE_KEYS.has(key)) return false;
      keys += 1;
    }
    const { uuid, component, props, slots, derived } = node;
    if (!isId(uuid, 128) || !isComponentId(component, walk) || !isWalkedObject(props, walk)) return false;
    if (derived !== undefined) {
      if (!isDerivedList(derived)) return false;
      keys -= 1;
    }
    if (walk.checkValues) {
      for (const key in props) {
        if (FORBIDDEN_KEYS.has(key) || !isJsonValue(props[key], depth + 1)) return false;
      }
    }
    if (keys === 4) {
      if (!isWalkedObject(slots, walk)) return false;
    } else if (keys !== 3) return false;

    const index = walk.components;
    walk.components += 1;
    if (walk.duplicate === undefined && walk.uuids.has(uuid)) walk.duplicate = uuid;
    walk.uuids.add(uuid);
    const visited =
      walk.visitor?.node(node as ComponentNode, parent, list, LAYOUT_STEP_WORK - walk.work, LAYOUT_STEP_WORK) ?? 0;
    walk.work += 1 + (typeof visited === 'number' ? visited : yield* visited);
    if (walk.work >= LAYOUT_STEP_WORK) {
      walk.work = 0;
      yield;
    }
    if (keys === 4) {
      // Object.entries, not for…in with a keyed read: in this generator that read deoptimized on every call.
      for (const [name, children] of Object.entries(slots as Record<string, unknown>)) {
        if (!isName(name)) return false;
        const slot = walk.visitor?.list(name) ?? -1;
        if (!(yield* nodeListSteps(children, depth + 2, index, slot, walk))) return false;
      }
    }
  }
  return true;
}

function isJsonValue(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth > LIMITS.maxJsonDepth) return false;
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  if (!isPlainObject(value)) return false;
  for (const key in value) {
    if (FORBIDDEN_KEYS.has(key) || !isJsonValue(value[key], depth + 1)) return false;
  }
  return true;
}

/** A node's `derived`: at most {@link MAX_DERIVED_PROPS} prop names of 1–200 characters, none a forbidden key. */
function isDerivedList(value: unknown): boolean {
  if (!Array.isArray(value) || value.length > MAX_DERIVED_PROPS) return false;
  return value.every(
    (name) => typeof name === 'string' && name.length >= 1 && name.length <= 200 && !FORBIDDEN_KEYS.has(name),
  );
}

function isId(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= max && ID_PATTERN.test(value);
}

function isComponentId(value: unknown, walk: Walk): value is string {
  if (typeof value === 'string' && walk.componentIds.has(value)) return true;
  if (!isId(value, 200)) return false;
  walk.componentIds.add(value);
  return true;
}

function isName(value: string): boolean {
  return value.length >= 1 && value.length <= 100 && NAME_PATTERN.test(value);
}

/**
 * {@link isPlainObject}, taken on trust for values JSON.parse made (`checkValues` off: the walk of a request's
 * layout), whose objects are plain by construction: the test of each component's objects for symbols costs an array
 * apiece.
 */
function isWalkedObject(value: unknown, walk: Walk): value is Record<string, unknown> {
  if (walk.checkValues) return isPlainObject(value);
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object made by `{}` or JSON.parse, with only own enumerable string keys (what a zod record accepts). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (prototype === Object.prototype || prototype === null) && Object.getOwnPropertySymbols(value).length === 0;
}

function hasOnlyKeys(value: Record<string, unknown>, key: string): boolean {
  let count = 0;
  for (const own in value) {
    if (own !== key) return false;
    count += 1;
  }
  return count === 1;
}
