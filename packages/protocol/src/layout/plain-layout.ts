import { FORBIDDEN_KEYS } from '../wire/json.js';
import { type Layout, MAX_DERIVED_PROPS } from '../wire/layout.js';
import { ID_PATTERN, NAME_PATTERN } from '../wire/ids.js';
import { LIMITS } from '../wire/limits.js';

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
  if (!isPlainObject(value) || !hasOnlyKeys(value, 'regions')) return false;
  const regions = value.regions;
  if (!isPlainObject(regions)) return false;
  const checkValues = !options.jsonValuesChecked;
  for (const [name, region] of Object.entries(regions)) {
    if (!isName(name) || !isPlainObject(region) || !hasOnlyKeys(region, 'components')) return false;
    if (!isNodeList(region.components, 1, checkValues)) return false;
  }
  return true;
}

/** How much of the layout {@link isPlainLayout} may take as already checked. */
export interface PlainLayoutOptions {
  /**
   * Every prop value is JSON as `JSON.parse` builds it from bytes `scanJsonBytes` passed: finite numbers, plain
   * objects, no forbidden key, no deeper than the limit. Then the walk checks the nodes only, not every value in
   * their props (a million values in one prop are a million steps saved).
   */
  jsonValuesChecked?: boolean;
}

function isNodeList(value: unknown, depth: number, checkValues: boolean): boolean {
  if (!Array.isArray(value) || depth > LIMITS.maxJsonDepth) return false;
  for (const node of value) {
    if (!isPlainObject(node)) return false;
    let keys = 0;
    for (const key in node) {
      if (!NODE_KEYS.has(key)) return false;
      keys += 1;
    }
    const { uuid, component, props, slots, derived } = node;
    if (!isId(uuid, 128) || !isId(component, 200) || !isPlainObject(props)) return false;
    if (derived !== undefined) {
      if (!isDerivedList(derived)) return false;
      keys -= 1;
    }
    if (checkValues) {
      for (const key in props) {
        if (FORBIDDEN_KEYS.has(key) || !isJsonValue(props[key], depth + 1)) return false;
      }
    }
    if (keys === 4) {
      if (!isPlainObject(slots)) return false;
      for (const name in slots) {
        if (!isName(name) || !isNodeList(slots[name], depth + 2, checkValues)) return false;
      }
    } else if (keys !== 3) return false;
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

function isId(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length >= 1 && value.length <= max && ID_PATTERN.test(value);
}

function isName(value: string): boolean {
  return value.length >= 1 && value.length <= 100 && NAME_PATTERN.test(value);
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
