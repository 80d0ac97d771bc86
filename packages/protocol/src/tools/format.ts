import { stringify } from 'yaml';
import { ToolInputError } from './tool-definition.js';

/** The longest value quoted back to the model in an error or result; longer ones are cut. */
const MAX_QUOTED_CHARS = 120;

/**
 * A value as messages quote it: strings in single quotes (`'blue'`), everything else as compact YAML flow
 * (`{src: a.png, alt: ""}`), cut when long so one bad value cannot flood the model's context.
 */
export function quote(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = `'${value}'`;
  else if (value === undefined) text = '(unset)';
  else text = yamlFlow(value);
  return text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS - 1)}…` : text;
}

/** A JSON value as one line of YAML flow text (`[light, dark]`, `{src: a.png, alt: A tray}`), quoted where YAML needs it. */
export function yamlFlow(value: unknown): string {
  return stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trim();
}

/** What kind of YAML/JSON value this is, for "got …" messages. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a number';
  return `a ${typeof value}`;
}

/** Items joined with commas, the list cut after `max` with a count of the rest. */
export function listNames(items: readonly string[], max = 20): string {
  if (items.length === 0) return 'none';
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/** `n thing(s)`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Whether a value is a plain map (not null, not a list). */
export function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Throws one {@link ToolInputError} listing every problem, so the model can fix them all in its next call.
 * Does nothing when there are none.
 */
export function throwProblems(tool: string, problems: readonly string[]): void {
  if (problems.length === 0) return;
  if (problems.length === 1) throw new ToolInputError(`${tool} was not applied: ${problems[0]}`);
  throw new ToolInputError(
    `${tool} was not applied (${problems.length} problems; fix them all and call it again):\n` +
      problems.map((problem) => `- ${problem}`).join('\n'),
  );
}

/** Throws a {@link ToolInputError} for one problem; typed `never` so callers narrow after it. */
export function fail(tool: string, problem: string): never {
  throw new ToolInputError(`${tool} was not applied: ${problem}`);
}
