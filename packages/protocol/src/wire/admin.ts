import * as z from 'zod/mini';
import { withMeta } from './meta.js';
import { AgentSummary } from './agents.js';
import { AgentId } from './ids.js';

/**
 * Who answers and what the picker offers (spec §12.4): the part of the agents config a site admin changes, in the
 * agents file or while the server runs.
 */
export const AgentSettings = withMeta(
  z.object({
    /** The agent that answers when the user picks none. */
    main_agent: AgentId,
    /** The other agents offered in the tools picker, one per message. */
    tools: z._default(z.array(AgentId), []),
  }),
  { id: 'AgentSettings', description: 'The main agent and the agents offered in the tools picker.' },
);
export type AgentSettings = z.infer<typeof AgentSettings>;

/** The path of the optional admin surface (spec §19): the settings, read with `GET` and replaced with `PUT`. */
export const ADMIN_SETTINGS_PATH = '/api/admin/settings';

/**
 * The answer of the admin surface (spec §19): the settings in force, and the canvas agents a settings screen may
 * offer (the allow-list of spec §12.4, third-party agents left out), each as the picker shows it.
 */
export const AdminSettingsResponse = withMeta(
  z.object({ settings: AgentSettings, canvas_agents: z.array(AgentSummary) }),
  {
    id: 'AdminSettingsResponse',
    description: 'The settings in force (main agent and tools) and the canvas agents they may name.',
  },
);
export type AdminSettingsResponse = z.infer<typeof AdminSettingsResponse>;
