import { FORBIDDEN_KEYS } from '../wire/json.js';

/** What {@link scanJson} found wrong with a decoded JSON value, with the dotted path where. */
export type JsonScanProblem =
  | { kind: 'too_deep'; path: string; limit: number }
  | { kind: 'forbidden_key'; path: string; key: string }
  | { kind: 'too_many_values'; path: string; limit: number }
  | { kind: 'too_many_map_keys'; path: string; limit: number };

/** The bounds {@link scanJson} holds a value to. */
export interface JsonScanLimits {
  /** Nesting of objects and arrays. */
  maxDepth: number;
  /** Values (scalars, objects, arrays) in the whole value. */
  maxValues?: number;
  /** A dotted path whose subtree may hold more values than the rest (a layout): the rest gets `maxValuesElsewhere`. */
  roomyPath?: string;
  /** Values outside `roomyPath`. */
  maxValuesElsewhere?: number;
  /** An object of more keys than this is a map, whose keys count towards `maxMapKeys`. */
  mapThresholdKeys?: number;
  /** Keys of all maps, summed. */
  maxMapKeys?: number;
}

/**
 * Finds the first place where `value` nests too deep, uses a prototype-polluting key, holds more values than
 * allowed, or whose large objects hold more keys than allowed, in document order (spec §13): a depth-first walk that
 * visits each key and its value in the order of the JSON text, so "the first" is the same for every server. Every
 * value counts one (the top-level object included, keys not); the top-level container is level 1. Iterative, so
 * hostile input cannot overflow the stack; it reads own keys, which is where `JSON.parse` puts a `"__proto__"` key;
 * and its value budget bounds the schema's work that follows (a body of millions of tiny values otherwise costs tens
 * of seconds of validation). The budget bounds the scan's own work too: arrays are walked by index, one element at a
 * time, never enumerated whole, so a huge array costs no more than the budget to refuse.
 */
export function scanJson(value: unknown, limits: JsonScanLimits): JsonScanProblem | undefined {
  const maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY;
  const maxElsewhere = limits.maxValuesElsewhere ?? maxValues;
  const mapThreshold = limits.mapThresholdKeys ?? Number.POSITIVE_INFINITY;
  const maxMapKeys = limits.maxMapKeys ?? Number.POSITIVE_INFINITY;
  const roomy = limits.roomyPath === undefined ? undefined : limits.roomyPath.split('.');
  let mapKeys = 0;
  // Paths are built only for the one place reported: a body of millions of values must not make millions of strings.
  const root: ScanItem = {
    value,
    depth: 0,
    parent: undefined,
    key: '',
    roomy: roomy?.length === 1 && roomy[0] === '',
    pathLength: 0,
  };
  let values = 1;
  let valuesElsewhere = root.roomy ? 0 : 1;
  if (values > maxValues) return { kind: 'too_many_values', path: pathOf(root), limit: maxValues };
  if (valuesElsewhere > maxElsewhere) return { kind: 'too_many_values', path: pathOf(root), limit: maxElsewhere };
  const frames: ScanFrame[] = [];
  /** Opens a container: its level is checked, a large object's keys are counted, its children come next. */
  const enter = (item: ScanItem): JsonScanProblem | undefined => {
    if (item.depth + 1 > limits.maxDepth) return { kind: 'too_deep', path: pathOf(item), limit: limits.maxDepth };
    if (Array.isArray(item.value)) {
      frames.push({ item, keys: undefined, size: item.value.length, next: 0 });
      return undefined;
    }
    const keys = Object.keys(item.value as object);
    if (keys.length > mapThreshold) {
      mapKeys += keys.length;
      if (mapKeys > maxMapKeys) return { kind: 'too_many_map_keys', path: pathOf(item), limit: maxMapKeys };
    }
    frames.push({ item, keys, size: keys.length, next: 0 });
    return undefined;
  };
  if (value !== null && typeof value === 'object') {
    const problem = enter(root);
    if (problem) return problem;
  }
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    if (frame.next >= frame.size) {
      frames.pop();
      continue;
    }
    const index = frame.next;
    frame.next += 1;
    const key = frame.keys === undefined ? String(index) : frame.keys[index]!;
    const parent = frame.item;
    const childValue =
      frame.keys === undefined
        ? (parent.value as readonly unknown[])[index]
        : (parent.value as Record<string, unknown>)[key];
    const item: ScanItem = {
      value: childValue,
      depth: parent.depth + 1,
      parent,
      key,
      roomy: parent.roomy || (roomy !== undefined && isOnRoomyPath(parent, key, roomy)),
      pathLength: parent.pathLength + 1,
    };
    if (frame.keys !== undefined && FORBIDDEN_KEYS.has(key)) return { kind: 'forbidden_key', path: pathOf(item), key };
    values += 1;
    if (!item.roomy) valuesElsewhere += 1;
    if (values > maxValues) return { kind: 'too_many_values', path: pathOf(item), limit: maxValues };
    if (valuesElsewhere > maxElsewhere) return { kind: 'too_many_values', path: pathOf(item), limit: maxElsewhere };
    if (childValue !== null && typeof childValue === 'object') {
      const problem = enter(item);
      if (problem) return problem;
    }
  }
  return undefined;
}

/**
 * A {@link JsonScanProblem} as one sentence about `subject` ("The request", "The arguments of edit_components"):
 * the one wording of the parser's 400 and of a tool call's refusal.
 */
export function describeScanProblem(subject: string, problem: JsonScanProblem): string {
  switch (problem.kind) {
    case 'too_deep':
      return `${subject}: JSON nested deeper than ${problem.limit} levels (at ${problem.path}).`;
    case 'forbidden_key':
      return `${subject}: the key "${problem.key}" is not allowed anywhere (at ${problem.path}).`;
    case 'too_many_values':
      return `${subject}: more than ${problem.limit} JSON values (counted up to ${problem.path}); send less.`;
    case 'too_many_map_keys':
      return `${subject}: its large objects hold more than ${problem.limit} keys in all (counted up to ${problem.path}); send less.`;
  }
}

/** A container being walked: its keys (an object) or its length (an array), and the next child to visit. */
interface ScanFrame {
  item: ScanItem;
  keys: readonly string[] | undefined;
  size: number;
  next: number;
}

interface ScanItem {
  value: unknown;
  depth: number;
  parent: ScanItem | undefined;
  key: string;
  /** Inside the roomy subtree. */
  roomy: boolean;
  pathLength: number;
}

/** Whether `parent.key` is exactly the roomy path (its ancestors' keys being the path's first segments). */
function isOnRoomyPath(parent: ScanItem, key: string, roomy: readonly string[]): boolean {
  if (parent.pathLength + 1 !== roomy.length || roomy[roomy.length - 1] !== key) return false;
  let at: ScanItem | undefined = parent;
  for (let index = roomy.length - 2; index >= 0; index -= 1) {
    if (at === undefined || at.key !== roomy[index]) return false;
    at = at.parent;
  }
  return true;
}

function pathOf(item: ScanItem): string {
  const keys: string[] = [];
  for (let at: ScanItem | undefined = item; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.') || '(root)';
}
