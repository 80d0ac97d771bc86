import { createContext } from '@lit/context';
import type { AgentsResponse } from '@canvas-ai/protocol';

/** The agents config (`GET /api/agents`), shared with the tools picker; undefined until known. */
export const agentsContext = createContext<AgentsResponse | undefined>(Symbol.for('canvas-ai-chat/agents'));

/** The agent picked for the next message, and how the picker changes it. */
export interface ToolPick {
  /** The picked agent's id; undefined → the main agent. */
  agent: string | undefined;
  choose(agent: string | undefined): void;
}

/** The current pick, shared with the tools picker. A new object on every change, so consumers re-render. */
export const pickContext = createContext<ToolPick>(Symbol.for('canvas-ai-chat/pick'));
