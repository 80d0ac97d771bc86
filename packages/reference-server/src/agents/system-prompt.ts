import type { AgentDefinition, Catalog, PageField } from '@canvas-ai/protocol';
import { describeCatalog } from '@canvas-ai/protocol/server';

/** What the system prompt of a turn is made of: nothing of the page, which comes as messages. */
export interface SystemPromptInput {
  agent: AgentDefinition;
  catalog: Catalog;
  pageFields: readonly PageField[];
  /** The project's documentation, added for agents with `include_docs`. */
  docs: string;
  /** The tools the model is offered this turn (default: the agent's); the catalog summary adapts to them. */
  tools?: readonly string[] | undefined;
}

/** How the page reaches the model, for agents that work on it; the same words on every call. */
const HOW_THE_PAGE_IS_TOLD =
  '# The page\n\n' +
  'The message after the person’s request shows the page as it is: its layout (uuid and component of every ' +
  'component), the props of each, the page values, the selected component and what the editor adds. After that you ' +
  'are told only what changes: your own changes in the results of your tool calls, the person’s edits and a new ' +
  'selection in editor notices. When the whole page is shown again, it replaces what you knew of it.';

/** For an agent that plans first, when its turn offers `propose_plan` (spec §20.4). */
const PLAN_FIRST =
  '# Plan first\n\n' +
  'When the request builds more than two rows, first propose them with propose_plan (a short title and the catalog ' +
  'components of each row, in order) and place nothing in that reply. The person approves the plan or tells you ' +
  'what to change; build only an approved plan, one row per place_components call, in its order.';

/**
 * The agent's system prompt: its own prompt, the catalog, how the page is told, the page fields and the
 * documentation for `include_docs` agents. The same for every call of a turn and for every turn of the agent, so a
 * provider's prompt cache reuses it; the page comes as messages (hop.ts, page-notice.ts).
 */
export function buildSystemPrompt({ agent, catalog, pageFields, docs, tools }: SystemPromptInput): string {
  const sections = [
    agent.system_prompt.trim(),
    `# Catalog\n\n${describeCatalog(catalog, { tools: tools ?? agent.tools })}`,
    HOW_THE_PAGE_IS_TOLD,
  ];
  if (agent.tools.includes('set_page_value') && pageFields.length > 0) {
    sections.push(
      `# Page fields (set_page_value)\n\n${pageFields.map((f) => `- ${f.name}: ${f.label}${f.description ? ` — ${f.description}` : ''}`).join('\n')}`,
    );
  }
  if ((tools ?? agent.tools).includes('propose_plan')) sections.push(PLAN_FIRST);
  if (agent.include_docs && docs.trim()) sections.push(`# Documentation\n\n${docs.trim()}`);
  return sections.join('\n\n');
}
