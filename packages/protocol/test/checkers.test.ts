// The browser's checkers (src/check/) against the zod schemas they are generated from: the same answer for valid
// messages built from the schemas and for those messages broken in one place.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as z from 'zod/mini';
import * as protocol from '../src/index.js';
import type { Checker } from '../src/check/checker.js';
import * as checkers from '../src/check/wire-checkers.js';
import { CHECKED_MESSAGES, checkersModule } from '../src/spec/checkers.js';
import { namedRefinement } from '../src/wire/refinements.js';
import { allDifferent, cachedWithinInput, isSafeKey, withinCodePoints } from '../src/wire/predicates.js';

type AnySchema = z.ZodMiniType;
type Def = Record<string, unknown> & { type: string };
type CheckDef = Record<string, unknown> & { check: string };

const defOf = (schema: AnySchema) => schema._zod.def as unknown as Def;
const checksOf = (schema: AnySchema) =>
  ((defOf(schema).checks ?? []) as Array<{ _zod: { def: CheckDef } }>).map((check) => ({
    def: check._zod.def,
    named: namedRefinement(check),
  }));

/** Below this many containers, arrays, maps and optional fields take their smallest form, so values end. */
const MAX_DEPTH = 4;

/** Values the schema accepts, built from its definition (the test's own reading of the zod schemas). */
function validValues(schema: AnySchema, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const checks = checksOf(schema);
  const bound = (name: string) => checks.find((check) => check.def.check === name)?.def;
  const passesRefinements = (value: unknown) =>
    checks.every(({ named }) => {
      if (!named) return true;
      if (named.name === 'isSafeKey') return isSafeKey(value as string);
      if (named.name === 'withinCodePoints') return withinCodePoints(value as string, named.args[0] as number);
      if (named.name === 'allDifferent') return allDifferent(value as unknown[]);
      return cachedWithinInput(value as { input_tokens: number; cached_input_tokens: number });
    });
  const deeper = depth + 1;
  switch (def.type) {
    case 'string': {
      const min = (bound('min_length')?.minimum as number | undefined) ?? 0;
      const max = Math.min((bound('max_length')?.maximum as number | undefined) ?? 12, min + 12);
      const patterns = checks
        .filter((check) => check.def.check === 'string_format')
        .map((c) => c.def.pattern as RegExp);
      const base =
        patterns.length > 0
          ? fc.stringMatching(patterns[0]!, { size: 'xsmall' })
          : fc.string({
              minLength: min,
              maxLength: max,
              unit: fc.constantFrom('a', 'Z', '0', '-', '😀', 'é', ' ', '"'),
            });
      return base.filter(
        (text) =>
          text.length >= min &&
          text.length <= ((bound('max_length')?.maximum as number | undefined) ?? Number.POSITIVE_INFINITY) &&
          patterns.every((pattern) => pattern.test(text)) &&
          passesRefinements(text),
      );
    }
    case 'number': {
      const min = bound('greater_than')?.value as number | undefined;
      const max = bound('less_than')?.value as number | undefined;
      return def.format === 'safeint'
        ? fc.integer({ min: min ?? -5, max: max ?? 1_000 })
        : fc.double({ noNaN: true, noDefaultInfinity: true, min: min ?? -1e6, max: max ?? 1e6 });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, unknown>));
    case 'optional':
    case 'default':
      if (depth >= MAX_DEPTH) return fc.constant(undefined);
      return fc.option(validValues(def.innerType as AnySchema, depth), { nil: undefined });
    case 'nullable':
      return fc.option(validValues(def.innerType as AnySchema, depth), { nil: null });
    case 'array': {
      const min = (bound('min_length')?.minimum as number | undefined) ?? 0;
      const max = Math.min((bound('max_length')?.maximum as number | undefined) ?? 3, min + 2);
      if (depth >= MAX_DEPTH && min === 0) return fc.constant([]);
      const item = validValues(def.element as AnySchema, deeper);
      const unique = checks.some(({ named }) => named?.name === 'allDifferent');
      return (
        unique
          ? fc.uniqueArray(item, { minLength: min, maxLength: max })
          : fc.array(item, { minLength: min, maxLength: max })
      ).filter((list) => list.length >= min && passesRefinements(list));
    }
    case 'record':
      if (depth >= MAX_DEPTH) return fc.constant({});
      return fc.dictionary(
        validValues(def.keyType as AnySchema, deeper) as fc.Arbitrary<string>,
        validValues(def.valueType as AnySchema, deeper),
        { maxKeys: 3 },
      );
    case 'object': {
      const shape = def.shape as Record<string, AnySchema>;
      const fields = Object.fromEntries(Object.keys(shape).map((key) => [key, validValues(shape[key]!, deeper)]));
      return fc
        .record(fields)
        .map((value) => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)))
        .filter(passesRefinements);
    }
    case 'union':
      return fc.oneof(...(def.options as AnySchema[]).map((option) => validValues(option, depth)));
    case 'lazy':
      return validValues((def.getter as () => AnySchema)(), deeper);
    case 'pipe':
      return validValues(def.out as AnySchema, depth).filter(
        (value) => z.safeParse(def.in as AnySchema, value).success,
      );
    default:
      throw new Error(`the test builds no values of ${def.type}`);
  }
}

/** Every place in a JSON value: the path to it. */
function placesOf(value: unknown, path: PropertyKey[] = [], into: PropertyKey[][] = []): PropertyKey[][] {
  into.push(path);
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) placesOf(item, [...path, index], into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) placesOf(item, [...path, key], into);
  }
  return into;
}

type Breakage = { kind: 'replace'; with: unknown } | { kind: 'drop' } | { kind: 'add'; key: string; with: unknown };

const breakages: fc.Arbitrary<Breakage> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), with: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({
    kind: fc.constant('replace' as const),
    with: fc.constantFrom('', -1, 1.5, '__proto__', 'x/y', true, null, [], {}),
  }),
  fc.record({ kind: fc.constant('drop' as const) }),
  fc.record({
    kind: fc.constant('add' as const),
    key: fc.constantFrom('extra', '__proto__', 'constructor', 'type', 'a b'),
    with: fc.jsonValue({ maxDepth: 1 }),
  }),
);

/** `value` (parsed JSON) with one place broken; `pick` chooses the place. */
function broken(value: unknown, pick: number, breakage: Breakage): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  const places = placesOf(copy);
  const path = places[pick % places.length]!;
  if (path.length === 0) return breakage.kind === 'replace' ? breakage.with : copy;
  const parent = path
    .slice(0, -1)
    .reduce<Record<string, unknown>>(
      (node, key) => node[key as string] as Record<string, unknown>,
      copy as Record<string, unknown>,
    ) as Record<string, unknown> & unknown[];
  const key = path.at(-1) as string;
  if (breakage.kind === 'replace') parent[key] = breakage.with;
  else if (breakage.kind === 'drop') {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else if (typeof parent[key] === 'object' && parent[key] !== null && !Array.isArray(parent[key])) {
    // As JSON.parse makes it: an own member, even `__proto__`.
    Object.defineProperty(parent[key], breakage.key, {
      value: breakage.with,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** The checker and the schema agree: both accept with equal data, or both refuse with the first issue at one path. */
function assertSameAnswer(schema: AnySchema, checker: Checker<unknown>, value: unknown): void {
  const expected = z.safeParse(schema, value);
  const actual = checker.safeParse(value);
  assert.equal(
    actual.success,
    expected.success,
    `success for ${JSON.stringify(value)}: ${JSON.stringify(expected.error?.issues[0] ?? actual.error?.issues[0])}`,
  );
  if (expected.success) assert.deepStrictEqual(actual.data, expected.data);
  else assert.deepStrictEqual(actual.error!.issues[0]!.path, expected.error.issues[0]!.path, JSON.stringify(value));
}

const EXPORTED = new Map<string, unknown>(Object.entries(protocol));
const CHECKERS = new Map<string, unknown>(Object.entries(checkers));

const checkerOf = (name: (typeof CHECKED_MESSAGES)[number]) => CHECKERS.get(`${name}Checker`) as Checker<unknown>;

describe('the browser checkers', () => {
  it('are what `pnpm spec` generates from the schemas now', () => {
    const file = readFileSync(new URL('../src/check/wire-checkers.ts', import.meta.url), 'utf8');
    assert.ok(file === checkersModule(), 'src/check/wire-checkers.ts is stale: run `pnpm spec` and commit the result');
  });

  for (const name of CHECKED_MESSAGES) {
    const schema = EXPORTED.get(name) as AnySchema;
    it(`${name}: accept what the schema accepts, with the same data`, () => {
      fc.assert(
        fc.property(validValues(schema), (value) => {
          const json = JSON.parse(JSON.stringify(value ?? null)) as unknown;
          assert.ok(
            z.safeParse(schema, json).success,
            `the test built a value the schema refuses: ${JSON.stringify(json)}`,
          );
          assertSameAnswer(schema, checkerOf(name), json);
        }),
        { numRuns: 300 },
      );
    });
    it(`${name}: broken in one place, refuse what the schema refuses, first at the same path`, () => {
      fc.assert(
        fc.property(validValues(schema), fc.nat(), breakages, (value, pick, breakage) => {
          assertSameAnswer(schema, checkerOf(name), broken(JSON.parse(JSON.stringify(value ?? null)), pick, breakage));
        }),
        { numRuns: 1000 },
      );
    });
  }

  it('leave a `__proto__` key out of a map, as zod does, and never set the prototype', () => {
    const props = JSON.parse('{"a":{"__proto__":{"polluted":1},"b":2}}');
    const maps = protocol.check.record(
      protocol.check.string(),
      protocol.check.record(protocol.check.string(), protocol.check.number()),
    );
    const result = maps.safeParse(props);
    assert.ok(result.success);
    const inner = (result.data as Record<string, object>).a!;
    assert.equal(Object.getPrototypeOf(inner), Object.prototype);
    assert.deepStrictEqual(inner, { b: 2 });
  });

  it('name the first problem by its path', () => {
    const result = checkers.HopResponseChecker.safeParse({
      status: true,
      should_continue: true,
      outputs: [{ type: 'nope' }],
    });
    assert.deepStrictEqual(result.error!.issues[0], {
      path: ['protocol'],
      message: 'Invalid input: expected "canvas-ai/1", received undefined',
    });
    const output = checkers.ToolOutputChecker.safeParse({ type: 'nope' });
    assert.deepStrictEqual(output.error!.issues[0], {
      path: ['type'],
      message: 'Invalid input: expected a known type',
    });
  });

  it('refuse what a host may hand over that JSON cannot carry, where the Layout schema does', () => {
    const layoutOf = (props: unknown, components: unknown[] = [{ uuid: 'a', component: 'c', props }]) => ({
      regions: { content: { components } },
    });
    const cases: Array<[string, unknown]> = [
      ['a hole in a list', layoutOf({}, new Array(2))],
      // biome-ignore lint/suspicious/noSparseArray: the hole is what is tested
      ['a hole in a prop', layoutOf({ list: [1, , 3] })],
      ['a Map for the regions', { regions: new Map() }],
      ['a Date prop', layoutOf({ when: new Date(0) })],
      ['a class instance prop', layoutOf({ thing: new (class Thing {})() })],
      ['a symbol key', layoutOf({ [Symbol('s')]: 1 })],
    ];
    for (const [what, layout] of cases) {
      const expected = z.safeParse(protocol.Layout as AnySchema, layout);
      const actual = checkers.LayoutChecker.safeParse(layout);
      assert.equal(expected.success, false, `zod refuses ${what}`);
      assert.equal(actual.success, false, `the checker refuses ${what}`);
      assert.deepStrictEqual(actual.error!.issues[0]!.path, expected.error.issues[0]!.path, what);
      // The fast path before the checker (plain-layout.ts) takes a prop list with a hole, as it did before the
      // checkers: JSON.stringify sends the hole as null.
      if (what === 'a hole in a prop') continue;
      assert.ok(protocol.layoutProblem(layout)?.startsWith('regions'), `layoutProblem names the place of ${what}`);
    }
    // A symbol key that is not enumerable is no key to zod either.
    const hidden = { b: 1 };
    Object.defineProperty(hidden, Symbol('s'), { value: 1, enumerable: false });
    const layout = layoutOf(hidden);
    assert.deepStrictEqual(checkers.LayoutChecker.safeParse(layout), z.safeParse(protocol.Layout as AnySchema, layout));
    // An optional field given as undefined stays in the data, as zod keeps it.
    const given = {
      regions: { content: { components: [{ uuid: 'a', component: 'c', props: {}, slots: undefined }] } },
    };
    assert.deepStrictEqual(checkers.LayoutChecker.safeParse(given), z.safeParse(protocol.Layout as AnySchema, given));
    const plain = Object.assign(Object.create(null), { title: 'x' });
    assert.ok(protocol.check.record(protocol.check.string(), protocol.check.string()).safeParse(plain).success);
  });

  it('check the length of an array where zod does: a leading maximum before the items, the rest after them', () => {
    const { array, string, minLength, maxLength, refine } = protocol.check;
    const always = () => true;
    const pairs: Array<[AnySchema, Checker<unknown>]> = [
      [z.array(z.string()).check(z.maxLength(3)), array(string(), [maxLength(3)])],
      [z.array(z.string()).check(z.minLength(5)), array(string(), [minLength(5)])],
      [z.array(z.string()).check(z.minLength(2), z.maxLength(3)), array(string(), [minLength(2), maxLength(3)])],
      [
        z.array(z.string()).check(z.maxLength(3), z.refine(always, 'r')),
        array(string(), [maxLength(3), refine(always, 'r')]),
      ],
      [
        z.array(z.string()).check(z.refine(always, 'r'), z.maxLength(3)),
        array(string(), [refine(always, 'r'), maxLength(3)]),
      ],
    ];
    for (const [schema, checker] of pairs) {
      for (const value of [[1, 2, 3, 4], ['a', 'b', 'c', 'd'], [1], ['a'], [1, 'a']])
        assertSameAnswer(schema, checker, value);
    }
  });

  it('tie an object checker to the type it names: every field, optional ones too', () => {
    const { object, string, optional, number } = protocol.check;
    interface Two {
      a: string;
      b?: number;
    }
    // @ts-expect-error `b` is missing: a field added to the type must be added to its checker
    object<Two>({ a: string() });
    const two = object<Two>({ a: string(), b: optional(number()) });
    assert.deepStrictEqual(two.safeParse({ a: 'x', c: 1 }), { success: true, data: { a: 'x' } });
  });

  it('take an integer beyond the safe range as a bound broken, not a wrong type, as zod does', () => {
    const { union, object, int, string } = protocol.check;
    const schema = z.union([z.object({ a: z.int() }), z.object({ b: z.string() })]);
    const checker = union([object({ a: int() }), object({ b: string() })]);
    for (const value of [{ a: 1e20 }, { a: -1e20 }, { a: 1.5 }, { a: 3 }, { b: 'x' }])
      assertSameAnswer(schema, checker, value);
  });

  it('tell a variant by its value and its type: "false" is not false', () => {
    const result = checkers.HopResponseChecker.safeParse({ status: 'x', should_continue: 'false' });
    assert.deepStrictEqual(result.error!.issues[0]!.path, ['should_continue']);
  });

  it('take the values of a TypeScript numeric enum, not its reverse names', () => {
    enum Level {
      Low = 0,
      High = 1,
    }
    assert.match(checkersModule({ Layout: z.enum(Level) }), /oneOf\(\[0,1\]\)/);
  });

  it('cannot be generated from a schema with a check they do not know', () => {
    assert.throws(
      () => checkersModule({ Odd: z.string().check(z.refine((text) => text !== 'odd', 'not odd')) }),
      /Odd: the browser's checkers cannot run the check custom \(write it with refineBy/,
    );
    assert.throws(
      () => checkersModule({ When: z.date() as unknown as AnySchema }),
      /When: the browser's checkers have no date/,
    );
    const refused: Array<[string, AnySchema, RegExp]> = [
      ['Email', z.email(), /Email: the browser's checkers have no string format email/],
      ['EmailCheck', z.string().check(z.email()), /cannot run the check string_format/],
      ['Int32', z.int32(), /Int32: the browser's checkers have no number format int32/],
      ['Exact', z.object({ a: z.exactOptional(z.string()) }), /have no exact optional/],
      [
        'Fallback',
        z.discriminatedUnion('t', [z.object({ t: z.literal('a') })], { unionFallback: true }),
        /have no discriminated union with a fallback/,
      ],
      ['Strict', z.strictObject({ a: z.string() }), /have no strict or loose object/],
      ['Loose', z.looseObject({ a: z.string() }), /have no strict or loose object/],
      ['Xor', z.xor([z.string(), z.number()]), /have no exclusive union/],
      ['ByEnum', z.record(z.enum(['a', 'b']), z.string()), /have no record with keys other than any string/],
      ['Aborting', z.string().check(z.maxLength(3, { abort: true })), /cannot abort on the check max_length/],
      ['Global', z.string().check(z.regex(/a/g)), /cannot run the check string_format/],
    ];
    for (const [name, schema, message] of refused)
      assert.throws(() => checkersModule({ [name]: schema }), message, name);
  });
});
