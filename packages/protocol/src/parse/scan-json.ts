import { FORBIDDEN_KEYS } from '../wire/json.js';

/** What {@link scanJson} found wrong with a decoded JSON value, with the dotted path where. */
export type JsonScanProblem =
  | { kind: 'too_deep'; path: string; limit: number }
  | { kind: 'forbidden_key'; path: string; key: string }
  | { kind: 'too_many_values'; path: string; limit: number };

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
}

/**
 * Finds the first place where `value` nests too deep, uses a prototype-polluting key, or holds more values than
 * allowed, in document order (spec §13): a depth-first walk that visits each key and its value in the order of the
 * JSON text, so "the first" is the same for every server. Every value counts one (the top-level object included,
 * keys not); the top-level container is level 1. Iterative, so hostile input cannot overflow the stack; it reads own
 * keys, which is where `JSON.parse` puts a `"__proto__"` key; and its value budget bounds the schema's work that
 * follows (a body of millions of tiny values otherwise costs tens of seconds of validation).
 */
export function scanJson(value: unknown, limits: JsonScanLimits): JsonScanProblem | undefined {
  const maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY;
  const maxElsewhere = limits.maxValuesElsewhere ?? maxValues;
  const roomy = limits.roomyPath === undefined ? undefined : limits.roomyPath.split('.');
  let values = 0;
  let valuesElsewhere = 0;
  // Paths are built only for the one place reported: a body of millions of values must not make millions of strings.
  const stack: ScanItem[] = [
    {
      value,
      depth: 0,
      parent: undefined,
      key: '',
      inArray: false,
      roomy: roomy?.length === 1 && roomy[0] === '',
      pathLength: 0,
    },
  ];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.parent !== undefined && !item.inArray && FORBIDDEN_KEYS.has(item.key))
      return { kind: 'forbidden_key', path: pathOf(item), key: item.key };
    values += 1;
    if (!item.roomy) valuesElsewhere += 1;
    if (values > maxValues) return { kind: 'too_many_values', path: pathOf(item), limit: maxValues };
    if (valuesElsewhere > maxElsewhere) return { kind: 'too_many_values', path: pathOf(item), limit: maxElsewhere };
    if (item.value === null || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > limits.maxDepth) return { kind: 'too_deep', path: pathOf(item), limit: limits.maxDepth };
    const inArray = Array.isArray(item.value);
    const keys = Object.keys(item.value);
    // Pushed last to first, so the first key is visited first.
    for (let index = keys.length - 1; index >= 0; index -= 1) {
      const key = keys[index]!;
      stack.push({
        value: (item.value as Record<string, unknown>)[key],
        depth,
        parent: item,
        key,
        inArray,
        roomy: item.roomy || (roomy !== undefined && isOnRoomyPath(item, key, roomy)),
        pathLength: item.pathLength + 1,
      });
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
  }
}

interface ScanItem {
  value: unknown;
  depth: number;
  parent: ScanItem | undefined;
  key: string;
  /** `key` is an index of an array, not an object key (so it cannot be a forbidden key). */
  inArray: boolean;
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
