// Generates src/check/wire-checkers.ts, the browser's checkers, from the zod schemas of src/wire/: the protocol stays
// defined once, in zod, and a client's bundle holds only the small runtime of src/check/checker.ts.
import * as z from 'zod/mini';
import * as protocol from '../index.js';
import { namedRefinement } from '../wire/refinements.js';

/** The messages a client reads, each exported from the generated module as `<name>Checker`. */
export const CHECKED_MESSAGES = [
  'HopResponse',
  'HopStreamLine',
  'HopErrorBody',
  'TurnStatusResponse',
  'TokenResponse',
  'AgentsResponse',
  'ToolOutput',
  'ApplyResult',
  'RequestId',
  'Layout',
] as const satisfies ReadonlyArray<keyof typeof protocol>;

/** The module of src/wire/ each checked message's type comes from (not the package index: no import cycle). */
const TYPE_MODULES: Record<(typeof CHECKED_MESSAGES)[number], string> = {
  HopResponse: 'hop-response',
  HopStreamLine: 'hop-stream',
  HopErrorBody: 'errors',
  TurnStatusResponse: 'hop-response',
  TokenResponse: 'hop-response',
  AgentsResponse: 'agents',
  ToolOutput: 'outputs',
  ApplyResult: 'outputs',
  RequestId: 'ids',
  Layout: 'layout',
};

type AnySchema = z.ZodMiniType;
type Def = AnySchema['_zod']['def'] & Record<string, unknown>;
type CheckDef = { check: string; [key: string]: unknown };

const isSchema = (value: unknown): value is AnySchema =>
  typeof value === 'object' && value !== null && '_zod' in value && 'def' in (value as AnySchema)._zod;

/** Everything the protocol exports, by name. */
const EXPORTED = new Map<string, unknown>(Object.entries(protocol));

/** The module's text: the runtime's imports, one const per named schema, then the exported checkers. */
export function checkersModule(
  messages: Readonly<Record<string, AnySchema>> = Object.fromEntries(
    CHECKED_MESSAGES.map((name) => [name, EXPORTED.get(name) as AnySchema]),
  ),
): string {
  // A schema the protocol exports gets a const of that name, shared by every place that uses it.
  const exportedNames = new Map<AnySchema, string>();
  for (const [name, value] of EXPORTED) {
    if (isSchema(value) && !exportedNames.has(value)) exportedNames.set(value, name);
  }
  const consts: string[] = [];
  const emitted = new Map<AnySchema, string>();
  const inProgress = new Set<AnySchema>();
  const runtime = new Set<string>();
  const predicates = new Set<string>();
  const use = (name: string) => {
    runtime.add(name);
    return name;
  };

  const expression = (schema: AnySchema, where: string): string => {
    const name = exportedNames.get(schema) ?? registryId(schema);
    if (name === undefined) return build(schema, where);
    const known = emitted.get(schema);
    if (known !== undefined) return known;
    // Met again inside itself: the const is not defined yet when the outer one is built.
    if (inProgress.has(schema)) return `${use('lazy')}(() => ${name})`;
    inProgress.add(schema);
    const text = build(schema, name);
    inProgress.delete(schema);
    // Built in a call marked pure, so a bundle keeps only the checkers a client uses (and what they are built from),
    // with one annotation a checker, which a bundler may keep in its output, rather than one a call.
    consts.push(`const ${name}: Checker<unknown> = /* @__PURE__ */ (() => ${text})();`);
    emitted.set(schema, name);
    return name;
  };

  const build = (schema: AnySchema, where: string): string => {
    const def = schema._zod.def as Def;
    const checks = (def.checks ?? []) as unknown as Array<{ _zod: { def: CheckDef } }>;
    const rules = (): string => {
      if (checks.length === 0) return '';
      return `[${checks.map((check) => rule(check, where)).join(', ')}]`;
    };
    const withRules = (call: string, args: string[]) => {
      const ruleList = rules();
      return `${use(call)}(${[...args, ...(ruleList ? [ruleList] : [])].join(', ')})`;
    };
    // What the runtime cannot run must fail here, not pass unchecked in a browser.
    const refuse = (what: string): never => {
      throw new Error(`${where}: the browser's checkers have no ${what} (add it to src/check/checker.ts)`);
    };
    switch (def.type) {
      case 'string':
        // z.email(), z.uuid(), z.iso.datetime() and the like carry their format on the schema itself.
        if (def.format !== undefined) refuse(`string format ${String(def.format)}`);
        return withRules('string', []);
      case 'number':
        if (def.format !== undefined && def.format !== 'safeint') refuse(`number format ${String(def.format)}`);
        return withRules(def.format === 'safeint' ? 'int' : 'number', []);
      case 'boolean':
        return `${use('boolean')}()`;
      case 'null':
        return `${use('nullValue')}()`;
      case 'literal': {
        const values = def.values as unknown[];
        return values.length === 1
          ? `${use('literal')}(${JSON.stringify(values[0])})`
          : `${use('oneOf')}(${JSON.stringify(values)})`;
      }
      case 'enum':
        // The schema's own values: a TypeScript numeric enum's entries also hold its reverse names.
        return `${use('oneOf')}(${JSON.stringify([...(schema._zod as unknown as { values: Set<unknown> }).values])})`;
      case 'optional':
        if (schema._zod.traits.has('$ZodExactOptional')) refuse('exact optional (an explicit undefined is refused)');
        return `${use('optional')}(${expression(def.innerType as AnySchema, where)})`;
      case 'nullable':
        return `${use('nullable')}(${expression(def.innerType as AnySchema, where)})`;
      case 'default':
        return `${use('withDefault')}(${expression(def.innerType as AnySchema, where)}, () => (${JSON.stringify(def.defaultValue)}))`;
      case 'array':
        return withRules('array', [expression(def.element as AnySchema, `${where}[]`)]);
      case 'record':
        if (((def.keyType as AnySchema)._zod.def as Def).type !== 'string' || def.partial) {
          refuse('record with keys other than any string (an exhaustive record)');
        }
        return `${use('record')}(${expression(def.keyType as AnySchema, `${where}{key}`)}, ${expression(def.valueType as AnySchema, `${where}{}`)})`;
      case 'object': {
        if (def.catchall !== undefined) refuse('strict or loose object (its unknown keys are not dropped)');
        const shape = def.shape as Record<string, AnySchema>;
        const fields = Object.keys(shape).map(
          (key) => `${JSON.stringify(key)}: ${expression(shape[key]!, `${where}.${key}`)}`,
        );
        return withRules('object', [`{ ${fields.join(', ')} }`]);
      }
      case 'union': {
        const options = def.options as AnySchema[];
        const key = def.discriminator as string | undefined;
        if (def.inclusive === false && key === undefined) refuse('exclusive union (z.xor)');
        if (def.unionFallback) refuse('discriminated union with a fallback');
        if (key === undefined)
          return `${use('union')}([${options.map((option) => expression(option, where)).join(', ')}])`;
        const byTag = options.map((option) => {
          const tagSchema = ((option._zod.def as Def).shape as Record<string, AnySchema> | undefined)?.[key];
          const values = (tagSchema?._zod.def as Def | undefined)?.values as unknown[] | undefined;
          if (values?.length !== 1)
            throw new Error(`${where}: an option of the union on ${key} has no single literal ${key}`);
          return `[${JSON.stringify(values[0])}, ${expression(option, `${where}(${key}=${String(values[0])})`)}]`;
        });
        return `${use('variant')}(${JSON.stringify(key)}, [${byTag.join(', ')}])`;
      }
      case 'lazy':
        return expression((def.getter as () => AnySchema)(), where);
      case 'pipe':
        return `${use('pipe')}(${expression(def.in as AnySchema, where)}, ${expression(def.out as AnySchema, where)})`;
      default:
        throw new Error(`${where}: the browser's checkers have no ${def.type} (add it to src/check/checker.ts)`);
    }
  };

  const rule = (check: { _zod: { def: CheckDef } }, where: string): string => {
    const def = check._zod.def;
    if (def.abort === true) throw new Error(`${where}: the browser's checkers cannot abort on the check ${def.check}`);
    const message = typeof def.error === 'function' ? (def.error as (issue: object) => unknown)({}) : undefined;
    const withMessage = (call: string, args: string[]) =>
      `${use(call)}(${[...args, ...(typeof message === 'string' ? [JSON.stringify(message)] : [])].join(', ')})`;
    switch (def.check) {
      case 'min_length':
        return withMessage('minLength', [String(def.minimum)]);
      case 'max_length':
        return withMessage('maxLength', [String(def.maximum)]);
      case 'string_format':
        // A global or sticky pattern keeps state between tests.
        if (def.format !== 'regex' || (def.pattern as RegExp).global || (def.pattern as RegExp).sticky) break;
        return withMessage('matches', [String(def.pattern)]);
      case 'greater_than':
        if (!def.inclusive) break;
        return withMessage('minimum', [String(def.value)]);
      case 'less_than':
        if (!def.inclusive) break;
        return withMessage('maximum', [String(def.value)]);
      case 'custom': {
        const named = namedRefinement(check);
        if (!named) break;
        if (typeof message !== 'string') throw new Error(`${where}: the refinement ${named.name} has no message`);
        predicates.add(named.name);
        const args = named.args.map((arg) => JSON.stringify(arg));
        const test =
          args.length === 0
            ? named.name
            : `(value: Parameters<typeof ${named.name}>[0]) => ${named.name}(${['value', ...args].join(', ')})`;
        const path = def.path ? `, ${JSON.stringify(def.path)}` : '';
        return `${use('refine')}(${test}, ${JSON.stringify(message)}${path})`;
      }
    }
    throw new Error(
      `${where}: the browser's checkers cannot run the check ${def.check}${def.check === 'custom' ? ' (write it with refineBy, src/wire/refinements.ts)' : ''}`,
    );
  };

  const exports = Object.entries(messages).map(([name, schema]) => {
    // The generated code's types are checked by test/checkers.test.ts holding its answers to the schema's.
    return `export const ${name}Checker = ${expression(schema, name)} as Checker<${name}Message>;`;
  });

  return [
    '// Generated by `pnpm spec` (src/spec/checkers.ts) from the zod schemas of src/wire/: do not edit.',
    "// The browser's checkers of the messages a client reads; test/checkers.test.ts holds them to the schemas.",
    ...typeImports(Object.keys(messages)),
    ...(predicates.size > 0 ? [`import { ${[...predicates].sort().join(', ')} } from '../wire/predicates.js';`] : []),
    `import { ${['Checker', ...[...runtime].sort()].join(', ')} } from './checker.js';`,
    '',
    ...consts,
    '',
    ...exports,
    '',
  ].join('\n');
}

function registryId(schema: AnySchema): string | undefined {
  const id = z.globalRegistry.get(schema)?.id;
  return typeof id === 'string' ? id : undefined;
}

/** `import type { HopResponse as HopResponseMessage } from '../wire/hop-response.js';` and the like, a line a module. */
function typeImports(names: readonly string[]): string[] {
  const byModule = new Map<string, string[]>();
  for (const name of names) {
    const module = TYPE_MODULES[name as keyof typeof TYPE_MODULES];
    if (module === undefined) throw new Error(`${name}: add the module of its type to TYPE_MODULES`);
    byModule.set(module, [...(byModule.get(module) ?? []), `${name} as ${name}Message`]);
  }
  return [...byModule]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([module, imports]) => `import type { ${imports.sort().join(', ')} } from '../wire/${module}.js';`);
}
