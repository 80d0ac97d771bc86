import * as z from 'zod';
import { countComponents, findDuplicateUuid } from '../layout/layout-tree.js';
import { errorMessage, HopError } from '../wire/errors.js';
import { HopRequest } from '../wire/hop-request.js';
import type { Layout } from '../wire/layout.js';
import { PROTOCOL_VERSION, RequestId } from '../wire/ids.js';
import { LIMITS } from '../wire/limits.js';
import { runStepsNow } from '../steps/steps.js';
import { type LayoutVisitor, type PlainLayoutWalk, plainLayoutSteps } from '../layout/plain-layout.js';
import { layoutSteps } from './layout-steps.js';
import { type ByteScanReport, type JsonPieces, scanJsonBytesSteps } from './scan-json-bytes.js';
import { parseJsonPieces } from './parse-json-pieces.js';
import { describeScanProblem, type JsonScanLimits, scanJson } from './scan-json.js';
import { fieldName, isAbsent, toErrorIssues } from './zod-issues.js';

/**
 * The outcome of parsing a request: the typed request, or the error to answer with. `visited`: the layout visitor
 * given saw every list and component of the returned layout, in document order (the layout took the fast path).
 */
export type ParseResult = { success: true; data: HopRequest; visited: boolean } | { success: false; error: HopError };

/**
 * Parses a hop request body that is already JSON-decoded (spec §5). The error names the offending field, so a server
 * can answer "400, `request_id` is required" without re-checking anything downstream. A valid layout is returned
 * as given, not copied: do not change `input` afterwards.
 */
export function parseHopRequest(input: unknown): ParseResult {
  return runStepsNow(parseSteps(input));
}

/** The bounds every request is held to, before and after it is decoded (spec §7.1, §13). */
const REQUEST_SCAN_LIMITS: JsonScanLimits = {
  maxDepth: LIMITS.maxJsonDepth,
  maxValues: LIMITS.maxJsonValues,
  roomyPath: 'context.current_layout',
  maxValuesElsewhere: LIMITS.maxJsonValuesOutsideLayout,
  mapThresholdKeys: LIMITS.mapThresholdKeys,
  maxMapKeys: LIMITS.maxMapKeys,
};

/**
 * {@link parseHopRequest} as steps (a generator that yields between its costly parts: the scan, the schema, the
 * layout checks), so a door can let other requests run between them (`runSteps`). `scanned`: the value was decoded
 * from bytes `scanJsonBytes` passed (with what it noticed), so the scan is skipped and the layout's values trusted.
 * `visitor` rides along the layout's validating walk (see {@link ParseResult}).
 */
function* parseSteps(
  input: unknown,
  scanned?: ByteScanReport,
  visitor?: LayoutVisitor,
): Generator<undefined, ParseResult, undefined> {
  const fail = (error: HopError): ParseResult => ({ success: false, error });
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return fail(new HopError('invalid_request', 'The request body must be a JSON object.'));
  }
  // The error names the turn only when its id is valid: an invalid one is never echoed.
  const requestId = RequestId.safeParse((input as { request_id?: unknown }).request_id);
  const options = { requestId: requestId.success ? requestId.data : undefined };

  // Bytes that scanJsonBytes passed hold every bound scanJson would.
  const problem = scanned ? undefined : scanJson(input, REQUEST_SCAN_LIMITS);
  if (problem) {
    return fail(
      new HopError('invalid_request', describeScanProblem('The request', problem), { ...options, field: problem.path }),
    );
  }

  // The version first: a client of another version gets one clear answer, not a list of field errors.
  const versionError = protocolError((input as { protocol?: unknown }).protocol, options);
  if (versionError) return fail(versionError);

  yield;
  // Values decoded from scanned bytes with no overflowing number are all JSON: the layout's walk skips them.
  const jsonValuesChecked = scanned !== undefined && !scanned.nonFiniteNumber;
  const plain = yield* parseWithPlainLayout(input as Record<string, unknown>, { jsonValuesChecked, visitor });
  const parsed = plain?.parsed ?? (yield* parseNodeByNode(input as Record<string, unknown>, jsonValuesChecked));
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    const field = fieldName(first.path);
    const issues = toErrorIssues(parsed.error);
    if (isAbsent(input, first.path)) {
      return fail(new HopError('missing_field', `${field} is required.`, { ...options, field, issues }));
    }
    return fail(
      new HopError('invalid_request', `${field || 'request'}: ${first.message}`, { ...options, field, issues }),
    );
  }

  yield;
  const layoutError = layoutBoundsError(parsed.data.context.current_layout, options, plain?.walk);
  if (layoutError) return fail(layoutError);
  return { success: true, data: parsed.data, visited: plain !== undefined && visitor !== undefined };
}

/** The error for a request of another protocol version, or none: `protocol` must be this server's. */
function protocolError(protocol: unknown, options: { requestId: string | undefined }): HopError | undefined {
  if (protocol === undefined) {
    return new HopError('missing_field', `protocol is required; send "${PROTOCOL_VERSION}".`, {
      ...options,
      field: 'protocol',
    });
  }
  if (protocol === PROTOCOL_VERSION) return undefined;
  return new HopError(
    'unsupported_protocol',
    `This server speaks "${PROTOCOL_VERSION}", not ${JSON.stringify(protocol)}.`,
    {
      ...options,
      field: 'protocol',
    },
  );
}

/**
 * The error for a layout past the component limit or holding a uuid twice, or none; from what the validating walk
 * found (`walked`) when it took the layout, else by walking it.
 */
function layoutBoundsError(
  layout: Layout,
  options: { requestId: string | undefined },
  walked?: PlainLayoutWalk,
): HopError | undefined {
  const count = walked ? walked.components : countComponents(layout);
  if (count > LIMITS.maxLayoutComponents) {
    return new HopError(
      'invalid_request',
      `The layout has ${count} components; the limit is ${LIMITS.maxLayoutComponents}.`,
      { ...options, field: 'context.current_layout' },
    );
  }
  const duplicate = walked ? walked.duplicate : findDuplicateUuid(layout);
  if (duplicate === undefined) return undefined;
  return new HopError('invalid_request', `The layout holds uuid "${duplicate}" twice; every component needs its own.`, {
    ...options,
    field: 'context.current_layout',
  });
}

/** Stands in for a valid layout while the schema checks the rest of a request. */
const EMPTY_LAYOUT: Layout = { regions: {} };

/**
 * The schema's result for a request whose layout the validating walk (`plainLayoutSteps`, in steps) vouches for, and
 * what the walk found: the rest of the request goes through the schema with an empty layout in its place, and the
 * layout itself is put back unchanged, so the schema never walks thousands of components. Undefined when the fast
 * path does not apply or the rest fails: then the whole request goes through the schema, whose error is the one to
 * report.
 */
function* parseWithPlainLayout(
  input: Record<string, unknown>,
  options: { jsonValuesChecked: boolean; visitor: LayoutVisitor | undefined },
): Generator<
  undefined,
  { parsed: Extract<SchemaResult, { success: true }>; walk: PlainLayoutWalk } | undefined,
  undefined
> {
  const context = input.context;
  if (typeof context !== 'object' || context === null || Array.isArray(context)) return undefined;
  const layout = (context as Record<string, unknown>).current_layout;
  const walk = yield* plainLayoutSteps(layout, options);
  if (walk === undefined) return undefined;
  const parsed = HopRequest.safeParse({ ...input, context: { ...context, current_layout: EMPTY_LAYOUT } });
  if (!parsed.success) return undefined;
  parsed.data.context.current_layout = layout as Layout;
  return { parsed, walk };
}

type SchemaResult = ReturnType<typeof HopRequest.safeParse>;

/** The fields the schema checks before `context`: their issues come before the layout's (see {@link merged}). */
const BEFORE_CONTEXT: ReadonlySet<PropertyKey> = new Set([
  'protocol',
  'request_id',
  'hop',
  'messages',
  'agent',
  'conversation_id',
]);

/**
 * The schema's result for a request whose layout missed the fast path (one unknown key is enough): the rest of the
 * request through the schema with an empty layout in its place, and the layout node by node in steps
 * ({@link layoutSteps}), so half a million values are not one step of the event loop (security review 2, G3). What
 * `HopRequest.safeParse(input)` returns: the same data, or its issues in its order.
 */
function* parseNodeByNode(
  input: Record<string, unknown>,
  jsonValuesChecked: boolean,
): Generator<undefined, SchemaResult, undefined> {
  const context = input.context;
  // Without a context object there is no layout to walk: the schema answers at once.
  if (typeof context !== 'object' || context === null || Array.isArray(context)) return HopRequest.safeParse(input);
  const rest = HopRequest.safeParse({ ...input, context: { ...context, current_layout: EMPTY_LAYOUT } });
  yield;
  const layout = yield* layoutSteps((context as Record<string, unknown>).current_layout, jsonValuesChecked);
  if (layout.success) {
    if (rest.success) rest.data.context.current_layout = layout.data;
    return rest;
  }
  const layoutIssues = layout.issues.map((issue) => ({ ...issue, path: ['context', 'current_layout', ...issue.path] }));
  const issues = merged(rest.success ? [] : rest.error.issues, layoutIssues);
  return { success: false, error: new z.ZodError(issues) as z.ZodError<HopRequest> };
}

/** The rest's issues and the layout's, in the schema's order: the fields before `context` first, then the layout. */
function merged(rest: z.core.$ZodIssue[], layout: z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const before = rest.filter((issue) => BEFORE_CONTEXT.has(issue.path[0]!));
  const after = rest.filter((issue) => !BEFORE_CONTEXT.has(issue.path[0]!));
  return [...before, ...layout, ...after];
}

/** Parses a JSON text body: malformed JSON is `invalid_json`, everything else as {@link parseHopRequest}. */
export function parseHopRequestJson(text: string): ParseResult {
  const decoded = decodeJson(text);
  return 'failure' in decoded ? decoded.failure : parseHopRequest(decoded.value);
}

/** `JSON.parse`, with malformed JSON as the `invalid_json` refusal. */
function decodeJson(text: string): { value: unknown } | { failure: ParseResult } {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return {
      failure: {
        success: false,
        error: new HopError('invalid_json', `The body is not valid JSON: ${errorMessage(error)}`),
      },
    };
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A JSON body as bytes, in steps: the bounds of spec §13 checked on the bytes first ({@link scanJsonBytes}), so
 * `JSON.parse` only ever builds a value the budget allows; then the UTF-8 text and the JSON (a large body in pieces, the
 * scan having found where to cut it), and {@link parseSteps}, `visitor` riding along the layout's validating walk.
 */
export function* parseHopRequestBytes(
  bytes: Uint8Array,
  visitor?: LayoutVisitor,
): Generator<undefined, ParseResult, undefined> {
  const report: ByteScanReport = {};
  const problem = yield* scanJsonBytesSteps(bytes, REQUEST_SCAN_LIMITS, report);
  if (problem) {
    return {
      success: false,
      error: new HopError('invalid_request', describeScanProblem('The request', problem), { field: problem.path }),
    };
  }
  yield;
  const decoded = report.pieces ? yield* decodeJsonPieces(bytes, report.pieces) : decodeJsonBytes(bytes);
  if ('failure' in decoded) return decoded.failure;
  yield;
  return yield* parseSteps(decoded.value, report, visitor);
}

/** A small body: the UTF-8 text at once, then one `JSON.parse`. */
function decodeJsonBytes(bytes: Uint8Array): { value: unknown } | { failure: ParseResult } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return notUtf8();
  }
  return decodeJson(text);
}

/** A large body the scan cut into pieces: built piece by piece, in steps ({@link parseJsonPieces}). */
function* decodeJsonPieces(
  bytes: Uint8Array,
  pieces: JsonPieces,
): Generator<undefined, { value: unknown } | { failure: ParseResult }, undefined> {
  try {
    return { value: yield* parseJsonPieces(bytes, pieces) };
  } catch (error) {
    // One decode of the whole text refuses bytes that are not UTF-8 before any syntax: so here, whichever the pieces
    // met first (a stray byte at a seam is a syntax error to them). Only on this path, so a body is decoded whole
    // only when it is refused.
    if (error instanceof TypeError || !isUtf8(bytes)) return notUtf8();
    return {
      failure: {
        success: false,
        error: new HopError('invalid_json', `The body is not valid JSON: ${errorMessage(error)}`),
      },
    };
  }
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function notUtf8(): { failure: ParseResult } {
  return { failure: { success: false, error: new HopError('invalid_json', 'The body is not UTF-8 text.') } };
}
