import {
  walkLayout,
  type AgentDefinition,
  type Catalog,
  type HopContext,
  type PageField,
  type Props,
} from '@canvas-ai/protocol';
import { describeCatalog, PropsPrints, uuidTree } from '@canvas-ai/protocol/server';

/** What the system prompt of one hop is made of. */
export interface SystemPromptInput {
  agent: AgentDefinition;
  catalog: Catalog;
  /** This hop's context: applied on every hop, never stored (spec §8: the document comes with every hop). */
  context: HopContext;
  pageFields: readonly PageField[];
  /** The project's documentation, added for agents with `include_docs`. */
  docs: string;
  /** The hop's props cache, so the page's props are stringified once per hop (shared with the change detection). */
  prints?: PropsPrints | undefined;
  /** The tools the model is offered this turn (default: the agent's); the catalog summary adapts to them. */
  tools?: readonly string[] | undefined;
}

/**
 * The agent's system prompt for one hop: its own prompt, the catalog, the page as the browser sent it in this hop
 * (uuid tree, props, page fields, selection, host extras), and the documentation for `include_docs` agents.
 */
export function buildSystemPrompt({
  agent,
  catalog,
  context,
  pageFields,
  docs,
  prints,
  tools,
}: SystemPromptInput): string {
  const sections = [
    agent.system_prompt.trim(),
    `# Catalog\n\n${describeCatalog(catalog, { tools: tools ?? agent.tools })}`,
    `# The page now\n\n${describePage(context, prints ?? new PropsPrints())}`,
  ];
  if (agent.tools.includes('set_page_value') && pageFields.length > 0) {
    sections.push(
      `# Page fields (set_page_value)\n\n${pageFields.map((f) => `- ${f.name}: ${f.label}${f.description ? ` — ${f.description}` : ''}`).join('\n')}`,
    );
  }
  if (agent.include_docs && docs.trim()) sections.push(`# Documentation\n\n${docs.trim()}`);
  return sections.join('\n\n');
}

function describePage(context: HopContext, prints: PropsPrints): string {
  // One line per component, `uuid: {"prop": value}`: still YAML (a JSON object is a YAML flow map) and as readable
  // to a model, at JSON.stringify's speed. The yaml library's block output of every prop took half of each hop's
  // time at 10,000 components and a quarter at 10 (bench/README.md).
  const props: string[] = [];
  walkLayout(context.current_layout, (node) => {
    props.push(`${node.uuid}: ${propsText(node.props, prints)}`);
  });
  const parts = [`Layout (uuid component_id):\n${uuidTree(context.current_layout)}`];
  if (props.length > 0) parts.push(`Props by uuid:\n${props.join('\n')}`);
  parts.push(`Page values:\n${Object.keys(context.page).length > 0 ? json(context.page) : '(none set)'}`);
  parts.push(
    context.selected_component
      ? `Selected component: ${context.selected_component} (when the user says "this", they mean it)`
      : 'Selected component: none',
  );
  const extra = context.extra;
  const hasExtra = extra !== null && !(typeof extra === 'object' && Object.keys(extra).length === 0);
  if (hasExtra) parts.push(`From the editor:\n${json(extra)}`);
  return parts.join('\n\n');
}

/** The most JSON values of one component's props the prompt shows; a component with more is summarized. */
export const PROMPT_PROPS_MAX_VALUES = 10_000;

/**
 * One component's props as JSON, or a one-line summary when they hold more than {@link PROMPT_PROPS_MAX_VALUES}
 * values: no model reads a million values of one component, and writing them out held the event loop (the request
 * limits allow that many in one prop).
 */
function propsText(props: Props, prints: PropsPrints): string {
  if (!fewerValuesThan(props, PROMPT_PROPS_MAX_VALUES)) {
    return JSON.stringify({ '(props not shown)': `more than ${PROMPT_PROPS_MAX_VALUES} JSON values` });
  }
  return prints.json(props);
}

/** Whether `value` holds at most `budget` JSON values; stops counting once it is spent, allocates only for nesting. */
function fewerValuesThan(value: unknown, budget: number): boolean {
  const stack: unknown[] = [value];
  let left = budget - 1;
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === null || typeof item !== 'object') continue;
    if (Array.isArray(item) && item.length > left) return false;
    const children = item as Record<string, unknown>;
    for (const key in children) {
      left -= 1;
      if (left < 0) return false;
      const child = children[key];
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return true;
}

/** The longest string of page values and host data the prompt shows whole; a longer one is cut, saying so. */
export const PROMPT_STRING_MAX_CHARS = 20_000;

/**
 * Host data as indented JSON (a YAML document too, as readable to a model), long strings cut. Not the yaml
 * library's output: the request's budget allows 50,000 values in `extra`, which it took a quarter of a second to
 * write; nor whole megabytes of one string, which no model reads and which held the event loop to copy.
 */
function json(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item: unknown) =>
      typeof item === 'string' && item.length > PROMPT_STRING_MAX_CHARS
        ? `${item.slice(0, PROMPT_STRING_MAX_CHARS)}… (${item.length - PROMPT_STRING_MAX_CHARS} more characters not shown)`
        : item,
    2,
  );
}
