import type { Catalog } from '../config/catalog.js';
import type { PageField, ToolSettings } from '../config/agents-config.js';
import { applyOutputs, type CanvasDocument } from '../layout/apply-outputs.js';
import { LayoutError } from '../layout/layout-error.js';
import { describeScanProblem, scanJson } from '../parse/scan-json.js';
import { LIMITS } from '../wire/limits.js';
import { REQUIRED_OUTPUT_TYPES, ToolOutput } from '../wire/outputs.js';
import { ToolInputError, type ToolDefinition, type ToolExecution, type WaitRequest } from './tool-definition.js';
import { errorMessage } from '../wire/errors.js';
import type { Pause } from '../steps/steps.js';
import { type SuggestionPool, suggestionPool } from './uuid-suggestions.js';

/** A tool call as the model sent it: `arguments` is the JSON text of the input. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** What {@link executeToolCalls} needs besides the calls. */
export interface ExecuteToolCallsOptions {
  /** The tools the agent may use, by name. */
  tools: Record<string, ToolDefinition>;
  /** The agent's per-tool settings; `allow_parallel` here overrides the tool's default. */
  toolSettings?: Record<string, ToolSettings>;
  catalog: Catalog;
  /** The document as the browser sent it with this hop. */
  document: CanvasDocument;
  pageFields: readonly PageField[];
  /** Makes a fresh component uuid. */
  newUuid: () => string;
  /**
   * A last word on each output before it is kept: a message refuses the call with it (no output, the document
   * unchanged), as a failed validation would. The reference server refuses an edit of a value the person changed
   * after the model decided it (spec §16.1).
   */
  refuseOutput?: ((output: ToolOutput) => string | undefined) | undefined;
  /**
   * The output types beyond the v1 three that this turn's client declared (spec §5.1). An output of a type it did not
   * declare is a bug of the tool that made it (the server offers such tools only to a client that declared them).
   */
  declaredOutputs?: readonly string[] | undefined;
  /**
   * Awaited before each call after the first, so a reply of many calls on a large page is many steps with other
   * requests served between them (spec §13.2). Default: none, the calls run at once.
   */
  pause?: Pause | undefined;
}

/**
 * The calls of one reply that run (reach their tool) in one hop: each may walk the page, so the work of a reply of
 * many calls would grow with their number times the page's size (spec §13.2); the others are told to come again.
 * Above {@link LIMITS.maxOutputsPerHop}, so a reply of that many changes still runs whole, with room for calls that
 * fail or only read.
 */
export const MAX_CALLS_RUN_PER_HOP = 128;

/** The readable outcome of one call, fed to the model. `ok` is false when nothing was executed or it was refused. */
export interface ToolCallResult {
  call_id: string;
  name: string;
  content: string;
  ok: boolean;
}

/** The outcome of running one hop's parked calls. */
export interface ExecuteToolCallsResult {
  /** The structured outputs, in call order, for the response's `outputs`. */
  outputs: ToolOutput[];
  /** One result per call, in call order. */
  results: ToolCallResult[];
  /** What the turn waits for, when a call asked (spec §20.1): the first call of the reply that makes it wait. */
  wait?: WaitRequest & { call_id: string };
  /** The document with every output applied: what the browser will hold after applying them. */
  document: CanvasDocument;
}

/** Told to the model for a call skipped by `allow_parallel: false` when the agent configures no message. */
export function defaultParallelMessage(tool: string): string {
  return (
    `This ${tool} call was not executed: only the first ${tool} call of a reply runs. ` +
    `Make one consolidated ${tool} call per reply and wait for its result.`
  );
}

/**
 * Told to the model for a call not executed because its hop already returned {@link LIMITS.maxOutputsPerHop}
 * outputs: one response carries no more, so the next request's `apply_results` stays within the same limit.
 */
export function outputLimitMessage(tool: string): string {
  return (
    `This ${tool} call was not executed: this step already made ${LIMITS.maxOutputsPerHop} page changes, the most one ` +
    "response may carry. Make this call again in your next reply, after this step's changes are applied."
  );
}

/** Told to the model for a call that would make the turn wait after an earlier call of its reply did (spec §20.1). */
export function secondWaitMessage(tool: string): string {
  return (
    `This ${tool} call was not executed: an earlier call of your reply already waits for the person, and one reply ` +
    'waits for one thing at a time. Ask it after the answer, if you still need to.'
  );
}

/** Told to the model for a call not run because its hop already ran {@link MAX_CALLS_RUN_PER_HOP} calls. */
export function callLimitMessage(tool: string): string {
  return (
    `This ${tool} call was not executed: this step already ran ${MAX_CALLS_RUN_PER_HOP} tool calls, the most one step ` +
    "runs. Make this call again in your next reply, after this step's results."
  );
}

/**
 * Runs the calls the model decided in the previous hop (spec §2, step 2), in order: THE shared step of every
 * TypeScript server's hop (the reference server's, and so its msw mock's). Each call sees the document with the outputs of the earlier calls applied.
 * A call that cannot run (unknown tool, arguments that are not JSON or fail the input schema, a
 * {@link ToolInputError}, a second call of a tool that does not allow parallel calls) becomes a readable result with
 * `ok: false` and no output; so does every call once the hop has {@link LIMITS.maxOutputsPerHop} outputs or has run
 * {@link MAX_CALLS_RUN_PER_HOP} calls. Any other exception propagates: the hop fails.
 */
export async function executeToolCalls(
  calls: ReadonlyArray<ToolCall>,
  options: ExecuteToolCallsOptions,
): Promise<ExecuteToolCallsResult> {
  const state: HopCalls = { outputs: [], document: options.document, called: new Set(), ran: 0, waits: false };
  const results: ToolCallResult[] = [];
  let wait: ExecuteToolCallsResult['wait'];
  const suggestions = suggestionPool();
  for (const [index, call] of calls.entries()) {
    if (index > 0) await options.pause?.();
    const admitted = admitCall(call, state, options);
    const outcome: CallOutcome =
      'refusal' in admitted
        ? { ok: false, content: admitted.refusal }
        : await runCall(call, admitted.tool, state, options, suggestions);
    results.push({ call_id: call.id, name: call.name, content: outcome.content, ok: outcome.ok });
    if (outcome.wait) wait = { ...outcome.wait, call_id: call.id };
  }
  return { outputs: state.outputs, results, document: state.document, ...(wait ? { wait } : {}) };
}

/** What the calls of one hop have done so far: their outputs, the document with them applied, who was called. */
interface HopCalls {
  outputs: ToolOutput[];
  document: CanvasDocument;
  /** The tools called so far, for `allow_parallel`. */
  called: Set<string>;
  /** The calls that reached their tool, for {@link MAX_CALLS_RUN_PER_HOP}. */
  ran: number;
  /** Whether a call that makes the turn wait was admitted: the first one is the reply's only wait (spec §20.1). */
  waits: boolean;
}

/** What one call came to: its result for the model and, for a call that asked, what the turn waits for. */
interface CallOutcome {
  ok: boolean;
  content: string;
  wait?: WaitRequest | undefined;
}

/** The tool a call may run, or why it may not: the checks that cost nothing, in the order the model hears them. */
function admitCall(
  call: ToolCall,
  state: HopCalls,
  options: ExecuteToolCallsOptions,
): { tool: ToolDefinition } | { refusal: string } {
  // Whether a call would add an output is known only after it ran; past the limit none runs, read-only ones too.
  if (state.outputs.length >= LIMITS.maxOutputsPerHop) return { refusal: outputLimitMessage(call.name) };
  const tool = Object.hasOwn(options.tools, call.name) ? options.tools[call.name] : undefined;
  if (!tool) {
    const names = Object.keys(options.tools);
    const available = names.length ? `Available tools: ${names.join(', ')}.` : 'No tools are available.';
    return { refusal: `Unknown tool \`${call.name}\`. ${available}` };
  }
  const settings =
    options.toolSettings && Object.hasOwn(options.toolSettings, call.name)
      ? options.toolSettings[call.name]
      : undefined;
  // Counted per call, not per success: the rule is about the shape of the model's reply.
  if (state.called.has(call.name) && !(settings?.allow_parallel ?? tool.allowParallel)) {
    return { refusal: settings?.parallel_message ?? defaultParallelMessage(call.name) };
  }
  state.called.add(call.name);
  // Counted per call, like allow_parallel: the first call that may wait is the reply's one wait.
  if (tool.waitKind !== undefined) {
    if (state.waits) return { refusal: secondWaitMessage(call.name) };
    state.waits = true;
  }
  if (state.ran >= MAX_CALLS_RUN_PER_HOP) return { refusal: callLimitMessage(call.name) };
  state.ran += 1;
  return { tool };
}

/**
 * Runs one admitted call against the document the earlier calls left, keeping its output when it has one that
 * applies. A refusal of the model's input is a readable result; any other exception fails the hop.
 */
async function runCall(
  call: ToolCall,
  tool: ToolDefinition,
  state: HopCalls,
  options: ExecuteToolCallsOptions,
  suggestions: SuggestionPool,
): Promise<CallOutcome> {
  const input = parseArguments(call, tool);
  if (!input.ok) return { ok: false, content: input.message };
  let execution: ToolExecution;
  try {
    execution = await tool.execute(input.value, {
      catalog: options.catalog,
      document: state.document,
      pageFields: options.pageFields,
      callId: call.id,
      newUuid: options.newUuid,
      suggestions,
    });
  } catch (error) {
    if (!(error instanceof ToolInputError)) throw error;
    return { ok: false, content: error.message };
  }
  if (execution.wait) return { ok: true, content: execution.result, wait: execution.wait };
  if (!execution.output) return { ok: true, content: execution.result };
  const output = checkOutput(execution.output, call, options.declaredOutputs ?? []);
  const refusal = options.refuseOutput?.(output);
  if (refusal !== undefined) return { ok: false, content: refusal };
  try {
    state.document = applyOutputs(state.document, [output]);
  } catch (error) {
    if (!(error instanceof LayoutError)) throw error;
    // A tool that does not check the layout itself: the model hears why, the browser gets nothing.
    return {
      ok: false,
      content: `${call.name} produced a change that cannot be applied to the page: ${error.message}`,
    };
  }
  state.outputs.push(output);
  return { ok: true, content: execution.result };
}

function parseArguments(
  call: ToolCall,
  tool: ToolDefinition,
): { ok: true; value: unknown } | { ok: false; message: string } {
  let json: unknown;
  try {
    // Some providers send no text at all for a call without arguments.
    json = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return {
      ok: false,
      message: `The arguments of ${call.name} are not valid JSON (${errorMessage(error)}). Send one JSON object that matches the tool's parameters.`,
    };
  }
  // Checked before the schema walks it: hostile nesting must not overflow the stack and fail the hop.
  const problem = scanJson(json, { maxDepth: LIMITS.maxJsonDepth, maxValues: LIMITS.maxJsonValuesOutsideLayout });
  if (problem) return { ok: false, message: describeScanProblem(`The arguments of ${call.name}`, problem) };
  const parsed = tool.input.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 10)
    .map((issue) => `- ${issue.path.length ? issue.path.map(String).join('.') : '(arguments)'}: ${issue.message}`);
  return { ok: false, message: `The arguments of ${call.name} do not match its parameters:\n${issues.join('\n')}` };
}

/**
 * An output that breaks the wire schema, names another call or is of a type the client did not declare is a bug in
 * the tool, not the model's mistake.
 */
function checkOutput(output: ToolOutput, call: ToolCall, declared: readonly string[]): ToolOutput {
  const parsed = ToolOutput.safeParse(output);
  if (!parsed.success) {
    throw new Error(`tool ${call.name} returned an output that breaks the ToolOutput schema: ${parsed.error.message}`);
  }
  if (!(REQUIRED_OUTPUT_TYPES as readonly string[]).includes(output.type) && !declared.includes(output.type)) {
    throw new Error(
      `tool ${call.name} returned a ${output.type} output, which this turn's client did not declare (spec §5.1)`,
    );
  }
  if (output.call_id !== call.id) {
    throw new Error(
      `tool ${call.name} returned an output for call "${output.call_id}" while executing call "${call.id}"`,
    );
  }
  return output;
}
