// Shared set-up of the tools-*.test.ts suites: the demo catalog and layouts, a deterministic uuid source, and
// helpers that run one tool the way executeToolCalls does (input schema first, then execute).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { Catalog, Layout, PageField, type CanvasDocument } from '../../src/index.js';
import { ToolInputError, type ToolContext, type ToolDefinition, type ToolExecution } from '../../src/server.js';

function fixture(path: string): unknown {
  return parse(readFileSync(new URL(`../../../../fixtures/${path}`, import.meta.url), 'utf8'));
}

/** The demo catalog, validated by the protocol's schema. */
export const catalog = Catalog.parse(fixture('catalog.yaml'));
/** A page with one empty `content` region. */
export const emptyLayout = Layout.parse(fixture('layouts/empty.yaml'));
/** A page with a header and nested slots (section → two columns → grid of cards). */
export const nestedLayout = Layout.parse(fixture('layouts/nested.yaml'));
/** The page fields of the demo agents config. */
export const pageFields = PageField.array().parse((fixture('agents.yaml') as { page_fields: unknown }).page_fields);

/** A document on one of the layouts, with a page title set. */
export function documentOf(layout: Layout = nestedLayout): CanvasDocument {
  return { layout, page: { title: 'Crumb & Co.' } };
}

/** A uuid source that yields `u1`, `u2`, … so tests can name the uuids a call will assign. */
export function counterUuids(prefix = 'u'): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `${prefix}${next}`;
  };
}

/** A tool context on `document`, with deterministic uuids. */
export function contextOf(document: CanvasDocument = documentOf(), callId = 'call-1'): ToolContext {
  return { catalog, document, pageFields, callId, newUuid: counterUuids() };
}

/** Runs one tool on raw (JSON-like) input: the input schema, then execute. */
export async function run<Input>(
  tool: ToolDefinition<Input>,
  input: unknown,
  context: ToolContext = contextOf(),
): Promise<ToolExecution> {
  return tool.execute(tool.input.parse(input), context);
}

/** Asserts the tool refuses the input with a ToolInputError whose message contains every fragment; returns it. */
export async function refusal<Input>(
  tool: ToolDefinition<Input>,
  input: unknown,
  fragments: readonly string[],
  context: ToolContext = contextOf(),
): Promise<string> {
  let message: string | undefined;
  try {
    await run(tool, input, context);
  } catch (error) {
    assert.ok(error instanceof ToolInputError, `expected a ToolInputError, got ${String(error)}`);
    message = error.message;
  }
  assert.ok(message !== undefined, 'expected the tool to refuse the input, but it succeeded');
  for (const fragment of fragments)
    assert.ok(message.includes(fragment), `expected the message to contain\n  ${fragment}\ngot\n  ${message}`);
  return message;
}
