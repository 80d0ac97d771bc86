import { Lexer, Parser, parseDocument } from 'yaml';
import { FORBIDDEN_KEYS, type JsonValue } from '../wire/json.js';
import { LIMITS } from '../wire/limits.js';
import { kindOf } from './format.js';

/** The limits on YAML a model sends in a tool argument. */
export const YAML_LIMITS = {
  /** Characters of one YAML argument; a page row is a few hundred, a whole page a few thousand. */
  maxChars: 50_000,
  /**
   * Alias expansions yaml may perform (its own accounting: uses × nested aliases). Low, so a "billion laughs"
   * document is refused after a handful of expansions instead of building an exponential value.
   */
  maxAliasCount: 20,
  /** Nesting of maps and lists, as for any JSON in a request. */
  maxDepth: LIMITS.maxJsonDepth,
} as const;

/** The outcome of {@link parseYamlData}: plain JSON data, or a message the model can act on. */
export type YamlParseResult = { ok: true; value: JsonValue } | { ok: false; message: string };

/**
 * Parses YAML that a model wrote into plain JSON data, safely: a length cap, a low alias budget, one document,
 * no custom tags, only strings/finite numbers/booleans/null/lists/maps (no dates, sets, binary), string keys only,
 * and none of the prototype-polluting keys. `field` names the argument in messages (`components`).
 */
export function parseYamlData(text: string, field: string): YamlParseResult {
  const fail = (message: string): YamlParseResult => ({ ok: false, message });
  if (text.length > YAML_LIMITS.maxChars) {
    return fail(
      `\`${field}\` is ${text.length} characters long; at most ${YAML_LIMITS.maxChars} are accepted. Split the work into several calls.`,
    );
  }
  // The composer that parseDocument runs is recursive: nesting it has not bounded overflows the stack (and, in a
  // process that has not compiled yaml's regexps yet, a second overflow aborted Node). Bounded first, in one pass.
  if (nestsDeeperThan(text, YAML_LIMITS.maxDepth)) {
    return fail(
      `\`${field}\` nests deeper than ${YAML_LIMITS.maxDepth} levels; write flatter data (a page row is a few levels).`,
    );
  }
  // stringKeys: `1e5:` stays the key "1e5" instead of becoming 100000; complex keys become errors.
  // logLevel 'error', not 'silent': silent also drops the "several documents" error.
  const document = parseDocument(text, { stringKeys: true, uniqueKeys: true, prettyErrors: true, logLevel: 'error' });
  const problem = document.errors[0] ?? document.warnings[0];
  if (problem) {
    const where = problem.linePos?.[0] ? ` (line ${problem.linePos[0].line}, column ${problem.linePos[0].col})` : '';
    return fail(`\`${field}\` is not valid YAML${where}: ${firstLine(problem.message)}`);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: YAML_LIMITS.maxAliasCount });
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    // yaml signals alias trouble (an alias bomb, an unknown anchor) with a ReferenceError.
    return fail(
      `\`${field}\` could not be read: ${error.message}. Write the data out without YAML anchors and aliases.`,
    );
  }
  const notJson = findNonJson(value);
  return notJson
    ? fail(`\`${field}\` must hold plain data only: ${notJson}.`)
    : { ok: true, value: value as JsonValue };
}

/**
 * Whether YAML text nests more than `maxDepth` collections deep, found with yaml's own lexer and parser, which
 * keep the open collections on a stack of their own instead of recursing: the stack holds the document and the
 * node being read besides the collections, hence the allowance of two, and the scan stops as soon as it is passed.
 */
function nestsDeeperThan(text: string, maxDepth: number): boolean {
  const parser = new Parser();
  for (const lexeme of new Lexer().lex(text)) {
    for (const _token of parser.next(lexeme)) {
      // Top-level tokens are not needed: only how deep the parser's stack goes.
    }
    if (parser.stack.length > maxDepth + 2) return true;
  }
  return false;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * Describes the first value that is not plain JSON, or returns undefined. Iterative with a depth cap, so hostile
 * nesting cannot overflow the stack.
 */
function findNonJson(root: unknown): string | undefined {
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value: root, depth: 0, path: '(root)' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (value === null || typeof value === 'string' || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return `${path} is ${String(value)}, which is not a JSON number`;
      continue;
    }
    if (typeof value !== 'object') return `${path} is ${kindOf(value)}`;
    if (depth >= YAML_LIMITS.maxDepth) return `${path} nests deeper than ${YAML_LIMITS.maxDepth} levels`;
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        stack.push({ value: item, depth: depth + 1, path: `${path}[${index}]` });
      });
      continue;
    }
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) {
      const name = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      return `${path} is a ${name} (YAML tags such as !!timestamp, !!set or !!binary are not accepted)`;
    }
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) return `the key \`${key}\` is not allowed (at ${path})`;
      stack.push({
        value: (value as Record<string, unknown>)[key],
        depth: depth + 1,
        path: path === '(root)' ? key : `${path}.${key}`,
      });
    }
  }
  return undefined;
}
