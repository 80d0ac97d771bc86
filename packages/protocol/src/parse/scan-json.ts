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
 * Finds the first place where `value` nests too deep, uses a prototype-polluting key, or holds more values (or its
 * large objects more keys) than allowed. Iterative, so hostile input cannot overflow the stack; it reads own keys, which is
 * where `JSON.parse` puts a `"__proto__"` key; and its value budget bounds the schema's work that follows (a body of
 * millions of tiny values otherwise costs tens of seconds of validation). The budget bounds the scan's own work too:
 * an array is walked by index and refused from its `length` before any element is visited, so a huge array costs
 * nothing to refuse.
 */
export function scanJson(value: unknown, limits: JsonScanLimits): JsonScanProblem | undefined {
  const maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY;
  const maxElsewhere = limits.maxValuesElsewhere ?? maxValues;
  const mapThreshold = limits.mapThresholdKeys ?? Number.POSITIVE_INFINITY;
  const maxMapKeys = limits.maxMapKeys ?? Number.POSITIVE_INFINITY;
  let mapKeys = 0;
  const roomy = limits.roomyPath === undefined ? undefined : limits.roomyPath.split('.');
  let values = 1;
  let valuesElsewhere = roomy?.length === 1 && roomy[0] === '' ? 0 : 1;
  // Paths are built only for the one place reported: a body of millions of values must not make millions of strings.
  const stack: ScanItem[] = [
    { value, depth: 0, parent: undefined, key: '', roomy: valuesElsewhere === 0, pathLength: 0 },
  ];
  const child = (item: ScanItem, key: string, childValue: unknown): ScanItem => ({
    value: childValue,
    depth: item.depth + 1,
    parent: item,
    key,
    roomy: item.roomy || (roomy !== undefined && isOnRoomyPath(item, key, roomy)),
    pathLength: item.pathLength + 1,
  });
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.value === null || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > limits.maxDepth) return { kind: 'too_deep', path: pathOf(item), limit: limits.maxDepth };
    if (Array.isArray(item.value)) {
      const array: readonly unknown[] = item.value;
      // Refused from the length alone: the element that would pass the budget is named without visiting the others.
      const roomyIndex = item.roomy || roomy === undefined ? -1 : roomyElement(item, array.length, roomy);
      const elsewhere = item.roomy ? 0 : array.length - (roomyIndex >= 0 ? 1 : 0);
      if (values + array.length > maxValues || valuesElsewhere + elsewhere > maxElsewhere) {
        const overTotal = values + array.length > maxValues ? maxValues - values : Number.POSITIVE_INFINITY;
        const overElsewhere = item.roomy ? Number.POSITIVE_INFINITY : maxElsewhere - valuesElsewhere;
        // Elsewhere, the roomy element (if it comes first) does not count: the limit is passed one element later.
        const skip = roomyIndex >= 0 && roomyIndex <= overElsewhere ? 1 : 0;
        const at = Math.min(overTotal, overElsewhere + skip);
        return {
          kind: 'too_many_values',
          path: pathOf(child(item, String(at), undefined)),
          limit: at === overTotal ? maxValues : maxElsewhere,
        };
      }
      values += array.length;
      valuesElsewhere += elsewhere;
      for (let index = 0; index < array.length; index += 1) {
        const element = array[index];
        if (element !== null && typeof element === 'object') stack.push(child(item, String(index), element));
      }
      continue;
    }
    const keys = Object.keys(item.value);
    if (keys.length > mapThreshold) {
      mapKeys += keys.length;
      if (mapKeys > maxMapKeys) return { kind: 'too_many_map_keys', path: pathOf(item), limit: maxMapKeys };
    }
    for (const key of keys) {
      const next = child(item, key, (item.value as Record<string, unknown>)[key]);
      if (FORBIDDEN_KEYS.has(key)) return { kind: 'forbidden_key', path: pathOf(next), key };
      values += 1;
      if (!next.roomy) valuesElsewhere += 1;
      if (values > maxValues) return { kind: 'too_many_values', path: pathOf(next), limit: maxValues };
      if (valuesElsewhere > maxElsewhere) return { kind: 'too_many_values', path: pathOf(next), limit: maxElsewhere };
      if (next.value !== null && typeof next.value === 'object') stack.push(next);
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

/** The index of the element of `parent` (an array of `length`) that is exactly the roomy path, or -1. */
function roomyElement(parent: ScanItem, length: number, roomy: readonly string[]): number {
  const last = roomy[roomy.length - 1]!;
  if (!/^(0|[1-9][0-9]*)$/.test(last) || Number(last) >= length) return -1;
  return isOnRoomyPath(parent, last, roomy) ? Number(last) : -1;
}

function pathOf(item: ScanItem): string {
  const keys: string[] = [];
  for (let at: ScanItem | undefined = item; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.') || '(root)';
}
