import { Composer, type CST, type Document, Lexer, LineCounter, Parser, YAMLParseError } from 'yaml';
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
  const read = readDocument(text, YAML_LIMITS.maxDepth);
  if (read === 'too_deep') {
    return fail(
      `\`${field}\` nests deeper than ${YAML_LIMITS.maxDepth} levels; write flatter data (a page row is a few levels).`,
    );
  }
  const { document, lineCounter } = read;
  const problem = document.errors[0] ?? document.warnings[0];
  if (problem) {
    const at = lineCounter.linePos(problem.pos[0]);
    return fail(`\`${field}\` is not valid YAML (line ${at.line}, column ${at.col}): ${firstLine(problem.message)}`);
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
 * The one YAML document of `text`, lexed and parsed once: the parser keeps the open collections on a stack of its own
 * (it does not recurse), so its depth is watched as it goes and the text refused as soon as it nests more than
 * `maxDepth` collections (the stack also holds the document and the node being read, hence the allowance of two),
 * before the composer, which does recurse, sees it (unbounded nesting overflowed the stack, and once aborted Node).
 * Then composed as `parseDocument` does: with the options below, and a second document an error.
 */
function readDocument(
  text: string,
  maxDepth: number,
): { document: Document.Parsed; lineCounter: LineCounter } | 'too_deep' {
  const lineCounter = new LineCounter();
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0);
  const tokens: CST.Token[] = [];
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (parser.stack.length > maxDepth + 2) return 'too_deep';
  }
  for (const token of parser.end()) tokens.push(token);
  // stringKeys: `1e5:` stays the key "1e5" instead of becoming 100000; complex keys become errors.
  // logLevel 'error', not 'silent': silent also drops the "several documents" error.
  const composer = new Composer({ stringKeys: true, uniqueKeys: true, logLevel: 'error' });
  let document: Document.Parsed | undefined;
  for (const composed of composer.compose(tokens, true, text.length)) {
    if (!document) document = composed;
    else {
      document.errors.push(
        new YAMLParseError(
          [composed.range[0], composed.range[1]],
          'MULTIPLE_DOCS',
          'Source contains multiple documents; please use YAML.parseAllDocuments()',
        ),
      );
      break;
    }
  }
  // compose(…, forceDoc = true) always ends with a document, an empty one for empty text.
  return { document: document!, lineCounter };
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
