import type { z } from 'zod';
import type { Catalog } from '../config/catalog.js';
import type { PageField } from '../config/agents-config.js';
import type { CanvasDocument } from '../layout/apply-outputs.js';
import type { ToolOutput, ToolOutputType } from '../wire/outputs.js';
import type { Plan, Question, ScreenshotRequest, WaitKind } from '../wire/waits.js';
import type { SuggestionPool } from './uuid-suggestions.js';

/** What a tool sees when it executes: the document as the browser sent it, with earlier outputs of this hop applied. */
export interface ToolContext {
  /** The component catalog (spec §12, "The catalog"). */
  catalog: Catalog;
  /** The layout and page fields the tool acts on. */
  document: CanvasDocument;
  /** The page fields `set_page_value` may set. */
  pageFields: readonly PageField[];
  /** The id of the call being executed; outputs carry it. */
  callId: string;
  /** Makes a fresh component uuid (the server assigns every uuid, spec §10). */
  newUuid: () => string;
  /**
   * Unknown uuids left to get "did you mean" suggestions in this hop, shared by its calls (uuid-suggestions.ts); a
   * caller that gives none bounds each call on its own.
   */
  suggestions?: SuggestionPool | undefined;
}

/** The outcome of one tool call: a readable result for the model and, for page-changing tools, an output. */
export interface ToolExecution {
  /** Fed to the model before its next decision. */
  result: string;
  /** Sent to the browser in this hop's `outputs`. */
  output?: ToolOutput;
  /**
   * What the turn now waits for (spec §20.1): the hop answers without a model decision, and `result` stands in the
   * transcript until the person's answer replaces it.
   */
  wait?: WaitRequest;
}

/**
 * What a call makes its turn wait for (spec §20), by kind: a question (spec §20.2), a look at the page (spec §20.3), a
 * plan (spec §20.4).
 */
export type WaitRequest =
  | { kind: 'question'; question: Question }
  | { kind: 'screenshot'; screenshot: ScreenshotRequest }
  | { kind: 'plan'; plan: Plan };

/**
 * One tool (spec §12): a name, a zod input schema, and `execute`. Backend teams add their own by writing one module of
 * this shape. A failed validation throws {@link ToolInputError}: a readable error for the model, never an output.
 *
 * `ToolDefinition` without a type argument holds a tool of any input type (a registry, a list of tools): `execute`
 * is declared as a method, so its parameter is checked bivariantly and every `ToolDefinition<X>` is assignable.
 */
export interface ToolDefinition<Input = unknown> {
  name: string;
  /** Told to the model. */
  description: string;
  /** The JSON arguments of a call are parsed with this before `execute`. */
  input: z.ZodType<Input>;
  /** Whether several calls of this tool in one model reply all execute (spec §12); `false` for `place_components`. */
  allowParallel: boolean;
  /**
   * The type of the output this tool returns, if any. A tool whose output is of a type the client must declare
   * (`remove_components`, `move_components`) is offered only to a turn whose client declared it (spec §5.1).
   */
  outputType?: ToolOutputType;
  /**
   * The kind of wait this tool makes its turn wait for, if any: offered only to a turn whose client declared that
   * kind in `capabilities.waits` (spec §20.1).
   */
  waitKind?: WaitKind;
  execute(input: Input, context: ToolContext): ToolExecution | Promise<ToolExecution>;
}

/** A tool input the model got wrong: the message tells the model what to fix; nothing is applied. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}
