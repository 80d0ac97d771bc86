import { AgentSettings, type AgentsConfig, settingsProblems } from '@canvas-ai/protocol';
import { HopError } from '@canvas-ai/protocol/server';
import type { Logger } from './log.js';
import type { TurnStore } from './store/turn-store.js';

/** The store key of the settings every instance reads (spec §12.4): not a turn key (it has a `/`), not a session's. */
const SETTINGS_KEY = 'settings/agents';
/** Stored settings outlive any restart; a year without a save drops them, and the agents file's settings apply. */
const SETTINGS_TTL_MS = 365 * 24 * 60 * 60_000;
/** How long an instance answers from the settings it read last: two instances agree within this and one read. */
const DEFAULT_SETTINGS_REFRESH_MS = 500;

/** Options of {@link LiveAgents}. */
export interface LiveAgentsOptions {
  /**
   * Where the settings are shared: the turn store (memory for one instance, Redis for several). Absent (no admin
   * surface: nothing can save settings), the store is never read and the agents file's settings apply.
   */
  store?: TurnStore | undefined;
  log: Logger;
  /** Milliseconds an instance reuses the settings it read. Default {@link DEFAULT_SETTINGS_REFRESH_MS}. */
  refreshMs?: number;
  now?: () => number;
}

/**
 * The agents config in force while the server runs: the agents file's (replaced when the file changes) with the
 * settings saved through the admin surface (spec §19) over its own `main_agent` and `tools`. The saved settings live
 * in the store, so every instance of a deployment reads the same; each instance re-reads them at most every
 * `refreshMs`. Saved settings that the current file no longer allows (an agent it dropped) are not applied, and why is
 * logged. A store that cannot answer keeps the settings read last.
 */
export class LiveAgents {
  private file: AgentsConfig;
  private saved: AgentSettings | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private ignoredWhy: string | undefined;
  private readonly refreshMs: number;
  private readonly now: () => number;

  constructor(
    file: AgentsConfig,
    private readonly options: LiveAgentsOptions,
  ) {
    this.file = file;
    this.refreshMs = options.refreshMs ?? DEFAULT_SETTINGS_REFRESH_MS;
    this.now = options.now ?? Date.now;
  }

  /** The config in force now: what a new turn and `GET /api/agents` use. */
  async current(): Promise<AgentsConfig> {
    if (this.options.store && this.now() - this.readAt >= this.refreshMs) {
      this.reading ??= this.readSaved().finally(() => {
        this.reading = undefined;
      });
      await this.reading;
    }
    return this.apply(this.file, this.saved);
  }

  /** The agents file's config (the rules the settings are checked against). */
  get fileConfig(): AgentsConfig {
    return this.file;
  }

  /**
   * Checks settings against the rules of spec §12.4 and the agents file, stores them for every instance, and answers
   * the config they make. Throws 400 `invalid_request` with one issue per broken rule, and changes nothing then.
   */
  async save(settings: AgentSettings): Promise<AgentsConfig> {
    const problems = settingsProblems(settings, this.file);
    if (problems.length > 0) {
      throw new HopError('invalid_request', problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('\n'), {
        field: problems[0]!.path.join('.'),
        issues: problems.map((p) => ({ path: p.path.join('.'), message: p.message })),
      });
    }
    const stored = { main_agent: settings.main_agent, tools: [...settings.tools] };
    await this.options.store?.set(SETTINGS_KEY, stored, SETTINGS_TTL_MS);
    this.saved = stored;
    this.readAt = this.now();
    this.options.log({ event: 'settings_saved', main_agent: stored.main_agent, tools: stored.tools });
    return this.apply(this.file, stored);
  }

  /** Takes a changed agents file's config (already validated): the saved settings apply over it if it allows them. */
  replaceFile(config: AgentsConfig): void {
    this.file = config;
    this.ignoredWhy = undefined;
  }

  private async readSaved(): Promise<void> {
    try {
      const value = await this.options.store?.get(SETTINGS_KEY);
      const parsed = value === undefined ? undefined : AgentSettings.safeParse(value);
      this.saved = parsed?.success ? parsed.data : undefined;
      this.readAt = this.now();
    } catch (error) {
      // Keep what was read last, and try again at the next request.
      this.options.log({
        event: 'settings_unavailable',
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** `config` with `settings` over its own, unless they break a rule of it (then logged once, and not applied). */
  private apply(config: AgentsConfig, settings: AgentSettings | undefined): AgentsConfig {
    if (!settings) return config;
    const problems = settingsProblems(settings, config);
    if (problems.length === 0) return { ...config, main_agent: settings.main_agent, tools: settings.tools };
    const why = problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; ');
    if (why !== this.ignoredWhy) {
      this.ignoredWhy = why;
      this.options.log({ event: 'settings_ignored', reason: `the agents file no longer allows them: ${why}` });
    }
    return config;
  }
}
