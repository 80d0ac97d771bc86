/**
 * About how many characters `value` takes as JSON: its strings' lengths and a few per value, walked without
 * writing it (a turn with attachments is megabytes of base64 in a handful of strings; serializing it again only to
 * measure it would cost a second copy). Arrays by index, not for…in: a turn's fingerprint is arrays of ten thousand
 * numbers, whose indexes for…in would make into strings one by one.
 */
export function jsonLength(value: unknown): number {
  let length = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') length += item.length + 2;
    else if (item === null || typeof item !== 'object') length += 8;
    else if (Array.isArray(item)) {
      length += 2;
      for (let index = 0; index < item.length; index += 1) {
        const element: unknown = item[index];
        // Numbers and the like counted here: only strings and containers go on the stack.
        if (typeof element === 'string') length += element.length + 2;
        else if (element === null || typeof element !== 'object') length += 8;
        else stack.push(element);
      }
    } else {
      length += 2;
      for (const key in item as Record<string, unknown>) {
        length += key.length + 4;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return length;
}
