import * as z from 'zod/mini';
import { withMeta } from './meta.js';
import { AgentId } from './ids.js';

/** An agent as the tools picker shows it. */
export const AgentSummary = withMeta(z.object({ id: AgentId, label: z.string(), description: z.string() }), {
  id: 'AgentSummary',
});
export type AgentSummary = z.infer<typeof AgentSummary>;

/** The response to `GET /api/agents`: the main agent and the agents offered in the picker. */
export const AgentsResponse = withMeta(z.object({ main_agent: AgentSummary, tools: z.array(AgentSummary) }), {
  id: 'AgentsResponse',
  description: 'The main agent and the agents a user may pick for one message.',
});
export type AgentsResponse = z.infer<typeof AgentsResponse>;
