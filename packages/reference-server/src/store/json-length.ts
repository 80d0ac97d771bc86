/**
 * About how many characters `value` takes as JSON: its strings' lengths and a few per value, walked without
 * writing it (a turn with attachments is megabytes of base64 in a handful of strings; serializing it again only to
 * measure it would cost a second copy).
 */
export function jsonLength(value: unknown): number {
  let length = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') length += item.length + 2;
    else if (item === null || typeof item !== 'object') length += 8;
    else {
      length += 2;
      for (const key in item as Record<string, unknown>) {
        if (!Array.isArray(item)) length += key.length + 4;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return length;
}
