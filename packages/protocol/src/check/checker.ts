/**
 * The browser's checkers: small validators for the messages a client reads, built by ./wire-checkers.ts, which
 * `pnpm spec` generates from the zod schemas of ../wire/ (the one definition of the protocol). A host bundle that
 * checks a server's answers with these holds no zod. Each checker gives zod's answer for valid input, the same
 * data (unknown keys dropped, defaults filled in), and for invalid input the same first issue's path.
 */

/** A problem with a checked value: where (keys and indexes from the root) and what. */
export interface CheckIssue {
  path: PropertyKey[];
  message: string;
}

/** What {@link Checker.safeParse} gives: the checked data, or the issues (zod's `safeParse` shape). */
export type CheckResult<T> =
  | { success: true; data: T; error?: undefined }
  | { success: false; data?: undefined; error: { issues: CheckIssue[] } };

/** Checks `value` at `path`, adding issues to `issues`; gives the checked data (meaningful when none were added). */
type Run = (value: unknown, path: PropertyKey[], issues: CheckIssue[]) => unknown;

/** A validator of one message or part of one. */
export class Checker<T> {
  /**
   * @param optional whether an object may leave this field out (`optional`, `withDefault`)
   * @param accepts the kind of value it checks at all (a string, an array …), when it has one: a union skips an option
   * whose kind the value is not, without running it (a JSON value tries five options)
   */
  constructor(
    readonly run: Run,
    readonly optional = false,
    readonly accepts?: (value: unknown) => boolean,
  ) {}

  /** Checks a value; throws only where zod's `safeParse` does: on nesting deep enough to overflow the stack. */
  safeParse(value: unknown): CheckResult<T> {
    const issues: CheckIssue[] = [];
    const data = this.run(value, [], issues) as T;
    return issues.length === 0 ? { success: true, data } : { success: false, error: { issues } };
  }
}

/** One test beyond the type: a length, a bound, a pattern or a named predicate, with its message. */
export interface Rule {
  ok: (value: never) => boolean;
  message: string;
  /** Where under the value the issue is reported (an object's rule about one of its fields). */
  at?: PropertyKey[];
  /**
   * A length rule, which an array applies as zod does: a `max` among the length rules before any other, before its
   * items (a list too long is not walked); the other length rules after them even when they failed.
   */
  size?: 'min' | 'max';
}

const rule = (ok: Rule['ok'], message: string, at?: PropertyKey[], size?: Rule['size']): Rule => ({
  ok,
  message,
  at,
  size,
});

/** At least `min` items, or characters (UTF-16 units, as zod counts them). */
export const minLength = (min: number, message = `Too small: expected at least ${min} items or characters`) =>
  rule((value: { length: number }) => value.length >= min, message, undefined, 'min');
/** At most `max` items, or characters (UTF-16 units). */
export const maxLength = (max: number, message = `Too big: expected at most ${max} items or characters`) =>
  rule((value: { length: number }) => value.length <= max, message, undefined, 'max');
/** A string `pattern` matches. */
export const matches = (pattern: RegExp, message = `Invalid string: must match pattern ${pattern}`) =>
  rule((value: string) => pattern.test(value), message);
/** A number of at least `min`. */
export const minimum = (min: number, message = `Too small: expected number to be >=${min}`) =>
  rule((value: number) => value >= min, message);
/** A number of at most `max`. */
export const maximum = (max: number, message = `Too big: expected number to be <=${max}`) =>
  rule((value: number) => value <= max, message);
/** A named predicate of ../wire/predicates.ts, as the zod schema's refinement runs it. */
export const refine = <T>(ok: (value: T) => boolean, message: string, at?: PropertyKey[]) =>
  rule(ok as Rule['ok'], message, at);

function applyRules(rules: readonly Rule[], value: unknown, path: PropertyKey[], issues: CheckIssue[]): void {
  for (const { ok, message, at } of rules) {
    if (!(ok as (value: unknown) => boolean)(value)) issues.push({ path: at ? [...path, ...at] : path, message });
  }
}

/**
 * Issues after which nothing more is checked of a value (a wrong type, an unknown key or variant), as zod's issues
 * without `continue`: an object's or array's own rules run only when none came from its members, and a union whose
 * options all failed names the one option that failed only on its rules.
 */
const ABORTING = new WeakSet<CheckIssue>();

function abort(path: PropertyKey[], message: string, issues: CheckIssue[]): void {
  const issue = { path, message };
  ABORTING.add(issue);
  issues.push(issue);
}

function aborted(issues: readonly CheckIssue[], from = 0): boolean {
  for (let index = from; index < issues.length; index += 1) if (ABORTING.has(issues[index]!)) return true;
  return false;
}

/** `Invalid input: expected string, received number`, in zod's words. */
function typeIssue(expected: string, path: PropertyKey[], issues: CheckIssue[], received: unknown): void {
  abort(path, `Invalid input: expected ${expected}, received ${kindOf(received)}`, issues);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

/** A value of one type (`is`), then its rules. */
function typed<T>(expected: string, is: (value: unknown) => boolean, rules: readonly Rule[] = []): Checker<T> {
  return new Checker(
    (value, path, issues) => {
      if (!is(value)) typeIssue(expected, path, issues, value);
      else applyRules(rules, value, path, issues);
      return value;
    },
    false,
    is,
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An object literal's kind of object, as zod's record asks (a host's `getLayout()` may hand over a Map or a Date):
 * no prototype, or one whose constructor's prototype has its own `isPrototypeOf` (`Object`, of this or another realm).
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const maker = value.constructor;
  // An own `constructor` member (a map's key) is no constructor.
  if (typeof maker !== 'function') return true;
  const prototype = (maker as { prototype?: unknown }).prototype;
  return isObject(prototype) && Object.hasOwn(prototype, 'isPrototypeOf');
}

/** A string, then its rules. */
export const string = (rules?: readonly Rule[]) => typed<string>('string', (value) => typeof value === 'string', rules);
/** A finite number, then its rules. */
export const number = (rules?: readonly Rule[]) => typed<number>('number', Number.isFinite, rules);
/** A safe integer, then its rules. */
export const int = (rules: readonly Rule[] = []) =>
  // Beyond the safe range is a bound broken, not a wrong type, as in zod: a union still takes it for the option meant.
  typed<number>('int', Number.isInteger, [
    rule((value: number) => value >= Number.MIN_SAFE_INTEGER, 'Too small: expected int to be >= -9007199254740991'),
    rule((value: number) => value <= Number.MAX_SAFE_INTEGER, 'Too big: expected int to be <= 9007199254740991'),
    ...rules,
  ]);
/** `true` or `false`. */
export const boolean = () => typed<boolean>('boolean', (value) => typeof value === 'boolean');
/** `null`. */
export const nullValue = () => typed<null>('null', (value) => value === null);
/** Exactly `expected`. */
export const literal = <T>(expected: T) => typed<T>(JSON.stringify(expected), (value) => value === expected);
/** One of `values` (a zod enum, or a literal of several values). */
export const oneOf = <T>(values: readonly T[]) =>
  typed<T>(`one of ${JSON.stringify(values)}`, (value) => values.includes(value as T));

/** A field an object may leave out. */
export const optional = (inner: Checker<unknown>) =>
  new Checker<unknown>((value, path, issues) => (value === undefined ? value : inner.run(value, path, issues)), true);

/** A field an object may leave out, which then takes a fresh `fallback()`. */
export const withDefault = (inner: Checker<unknown>, fallback: () => unknown) =>
  new Checker<unknown>(
    (value, path, issues) => (value === undefined ? fallback() : inner.run(value, path, issues)),
    true,
  );

/** `null`, or what `inner` accepts. */
export const nullable = (inner: Checker<unknown>) =>
  new Checker<unknown>((value, path, issues) => (value === null ? value : inner.run(value, path, issues)));

/** Its leading maximum length, then its items, then its other rules (those not about length when the items passed). */
export const array = (item: Checker<unknown>, rules: readonly Rule[] = []) => {
  const firstOther = rules.findIndex((rule) => !rule.size);
  const leading = firstOther < 0 ? rules : rules.slice(0, firstOther);
  const maxFirst = leading.filter((rule) => rule.size === 'max');
  // After the items, in the rules' own order (as zod runs them): when the items passed, every rule not checked
  // before them; when they failed, only the length rules among those. Chosen once here, not on every array.
  const afterPassed = rules.filter((rule) => !maxFirst.includes(rule));
  const afterFailed = afterPassed.filter((rule) => rule.size);
  return new Checker<unknown>(
    (value, path, issues) => {
      if (!Array.isArray(value)) return typeIssue('array', path, issues, value);
      const tooLong = maxFirst.find((rule) => !(rule.ok as (list: unknown[]) => boolean)(value));
      if (tooLong) return abort(path, tooLong.message, issues);
      const before = issues.length;
      // An index loop, not `map`: a hole is an item (`undefined`), as zod sees it.
      const data: unknown[] = [];
      for (let index = 0; index < value.length; index += 1) data.push(item.run(value[index], [...path, index], issues));
      applyRules(aborted(issues, before) ? afterFailed : afterPassed, data, path, issues);
      return data;
    },
    false,
    Array.isArray,
  );
};

/** A map: every own key checked by `key`, every value by `value`; a `__proto__` key is left out, as zod does. */
export const record = (key: Checker<unknown>, value: Checker<unknown>) =>
  new Checker<unknown>(
    (input, path, issues) => {
      if (!isPlainObject(input)) return typeIssue('record', path, issues, input);
      const data: Record<string, unknown> = {};
      for (const name of Object.keys(input)) {
        if (name === '__proto__') continue;
        const at = [...path, name];
        const keyIssues: CheckIssue[] = [];
        key.run(name, at, keyIssues);
        if (keyIssues.length > 0) abort(at, 'Invalid key in record', issues);
        else data[name] = value.run(input[name], at, issues);
      }
      // An enumerable symbol key is no key of a JSON map (after the others, in zod's order; zod skips the others).
      for (const symbol of Object.getOwnPropertySymbols(input)) {
        if (Object.prototype.propertyIsEnumerable.call(input, symbol)) {
          abort([...path, symbol], 'Invalid key in record', issues);
        }
      }
      return data;
    },
    false,
    isPlainObject,
  );

/**
 * The fields of an object checker: for a type `T` named (`object<SavedTurn>(…)`), exactly its fields, optional ones
 * included, so a field added to the type and not to the checker does not compile.
 */
type Shape<T> = unknown extends T ? Record<string, Checker<unknown>> : { [Key in keyof T]-?: Checker<unknown> };

/** An object of these fields, in this order; others are dropped. Its own rules run when its fields passed. */
export const object = <T = unknown>(shape: NoInfer<Shape<T>>, rules: readonly Rule[] = []) =>
  new Checker<T>(
    (input, path, issues) => {
      if (!isObject(input)) return typeIssue('object', path, issues, input);
      const data: Record<string, unknown> = {};
      const before = issues.length;
      for (const name in shape) {
        const field = (shape as Record<string, Checker<unknown>>)[name]!;
        const value = input[name];
        const checked = field.run(value, [...path, name], issues);
        // A field left out stays out (one given as `undefined` stays, as zod keeps it); one with a default takes it.
        if (checked !== undefined || !field.optional || name in input) data[name] = checked;
      }
      if (!aborted(issues, before)) applyRules(rules, data, path, issues);
      return data;
    },
    false,
    isObject,
  );

/**
 * One of several objects, told apart by the value of `key`: each option with its own value (`===`, so `"false"` is
 * not `false`).
 */
export const variant = <T = unknown>(key: string, options: ReadonlyArray<readonly [unknown, Checker<unknown>]>) =>
  new Checker<T>(
    (input, path, issues) => {
      if (!isObject(input)) return typeIssue('object', path, issues, input);
      const tag = input[key];
      const option = options.find(([value]) => value === tag);
      if (!option) return abort([...path, key], `Invalid input: expected a known ${key}`, issues);
      return option[1].run(input, path, issues);
    },
    false,
    isObject,
  );

/** The first of `options` the value passes. */
export const union = <T = unknown>(options: readonly Checker<unknown>[]) =>
  new Checker<T>((value, path, issues) => {
    const failed: Array<{ data: unknown; issues: CheckIssue[] }> = [];
    for (const option of options) {
      // Not of its kind: it would fail on the type, which says nothing here.
      if (option.accepts && !option.accepts(value)) continue;
      const own: CheckIssue[] = [];
      const data = option.run(value, path, own);
      if (own.length === 0) return data;
      if (!aborted(own)) failed.push({ data, issues: own });
    }
    // One option that failed only on its rules is the one meant: its issues say more than "no option fits".
    if (failed.length === 1) {
      issues.push(...failed[0]!.issues);
      return failed[0]!.data;
    }
    abort(path, 'Invalid input', issues);
    return value;
  });

/** `first`, then `second` on what it gave, when it passed. */
export const pipe = (first: Checker<unknown>, second: Checker<unknown>) =>
  new Checker<unknown>((value, path, issues) => {
    const before = issues.length;
    const data = first.run(value, path, issues);
    return issues.length === before ? second.run(data, path, issues) : data;
  });

/** A checker defined later (a recursive message: a component's slots hold components). */
export const lazy = (get: () => Checker<unknown>) => {
  let resolved: Checker<unknown> | undefined;
  return new Checker<unknown>((value, path, issues) => {
    resolved ??= get();
    return resolved.run(value, path, issues);
  });
};
