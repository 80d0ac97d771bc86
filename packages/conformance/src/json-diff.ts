/** Where two JSON values first differ, as `path: a vs b` (`outputs.0.operations.0.components.0.uuid: "…" vs "…"`), or undefined when equal. */
export function jsonDifference(a: unknown, b: unknown, path = ''): string | undefined {
  const here = path || '(the body)';
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${here}: ${a.length} entries vs ${b.length}`;
    for (let index = 0; index < a.length; index += 1) {
      const difference = jsonDifference(a[index], b[index], join(path, String(index)));
      if (difference) return difference;
    }
    return undefined;
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      if (!(key in a) || !(key in b))
        return `${join(path, key)}: ${key in a ? 'present' : 'absent'} vs ${key in b ? 'present' : 'absent'}`;
      const difference = jsonDifference(a[key], b[key], join(path, key));
      if (difference) return difference;
    }
    return undefined;
  }
  return Object.is(a, b) ? undefined : `${here}: ${show(a)} vs ${show(b)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
