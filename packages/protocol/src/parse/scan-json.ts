import { FORBIDDEN_KEYS } from '../wire/json.js';

/** What {@link scanJson} found wrong with a decoded JSON value, with the dotted path where. */
export type JsonScanProblem = { kind: 'too_deep'; path: string } | { kind: 'forbidden_key'; path: string; key: string };

/**
 * Finds the first place where `value` nests deeper than `maxDepth` objects/arrays or uses a prototype-polluting key.
 * Iterative, so hostile input cannot overflow the stack before the schema looks at it; and it reads own keys,
 * which is where `JSON.parse` puts a `"__proto__"` key.
 */
export function scanJson(value: unknown, maxDepth: number): JsonScanProblem | undefined {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (item.value === null || typeof item.value !== 'object') continue;
    const depth = item.depth + 1;
    if (depth > maxDepth) return { kind: 'too_deep', path: item.path || '(root)' };
    for (const key of Object.keys(item.value)) {
      const path = item.path ? `${item.path}.${key}` : key;
      if (!Array.isArray(item.value) && FORBIDDEN_KEYS.has(key)) return { kind: 'forbidden_key', path, key };
      const child = (item.value as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth, path });
    }
  }
  return undefined;
}
