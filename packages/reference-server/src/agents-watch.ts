import { watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { loadAgentsConfig } from '@canvas-ai/protocol/node';
import { checkAgentTools } from './agents/check-agents.js';
import type { LiveAgents } from './live-agents.js';
import type { Logger } from './log.js';

/** Options of {@link watchAgentsFile}. */
export interface AgentsWatchOptions {
  /** The tools the server has, by name (an agent naming another is refused, as at start-up). */
  toolNames: readonly string[];
  log: Logger;
  /** Milliseconds of quiet after a change before the file is read (an editor writes in several steps). Default 100. */
  settleMs?: number;
}

/**
 * Follows the agents file while the server runs (spec §12.4): a change that passes every start-up check replaces the
 * config in force (`agents_reloaded`); a broken one keeps the previous config and logs why, one line per problem
 * (`agents_reload_refused`). The folder is watched, not the file, so an editor that saves by renaming a new file
 * over the old one is followed too. Returns the function that stops watching.
 */
export function watchAgentsFile(file: string, live: LiveAgents, options: AgentsWatchOptions): () => void {
  const settleMs = options.settleMs ?? 100;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const reload = async () => {
    try {
      const config = await loadAgentsConfig(file);
      checkAgentTools(config, options.toolNames, file);
      live.replaceFile(config);
      options.log({ event: 'agents_reloaded', file, main_agent: config.main_agent, tools: config.tools });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      options.log({
        event: 'agents_reload_refused',
        file,
        kept: 'the previous agents config',
        problems: message.split('\n'),
      });
    }
  };
  const watcher = watch(dirname(file), (_event, name) => {
    if (name !== null && name !== basename(file)) return;
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), settleMs);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
