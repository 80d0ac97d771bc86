import { stringify } from 'yaml';
import { walkLayout, type AgentDefinition, type Catalog, type HopContext, type PageField } from '@canvas-ai/protocol';
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
    props.push(`${node.uuid}: ${prints.json(node.props)}`);
  });
  const parts = [`Layout (uuid component_id):\n${uuidTree(context.current_layout)}`];
  if (props.length > 0) parts.push(`Props by uuid:\n${props.join('\n')}`);
  parts.push(`Page values:\n${Object.keys(context.page).length > 0 ? yaml(context.page) : '(none set)'}`);
  parts.push(
    context.selected_component
      ? `Selected component: ${context.selected_component} (when the user says "this", they mean it)`
      : 'Selected component: none',
  );
  const extra = context.extra;
  const hasExtra = extra !== null && !(typeof extra === 'object' && Object.keys(extra).length === 0);
  if (hasExtra) parts.push(`From the editor:\n${yaml(extra)}`);
  return parts.join('\n\n');
}

function yaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 }).trimEnd();
}
