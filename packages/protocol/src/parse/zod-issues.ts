import type { z } from 'zod';
import type { ErrorIssue } from '../wire/errors.js';

/** A zod issue path as the dotted field name errors carry (`context.current_layout.regions.content`). */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** Whether the value has no key at the end of `path` (the field is absent, not wrong). */
export function isAbsent(input: unknown, path: readonly PropertyKey[]): boolean {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key as string)) return true;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current === undefined;
}

/** A zod error as wire issues: no `ZodError` ever crosses the wire. */
export function toErrorIssues(error: z.core.$ZodError): ErrorIssue[] {
  return error.issues.slice(0, 20).map((issue) => ({ path: fieldName(issue.path), message: issue.message }));
}
