import type { AgentsResponse } from '@canvas-ai/protocol';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { fetchAgents } from './server-config.js';

/** What {@link AgentsRefresh} asks its element for. */
export interface AgentsRefreshOptions {
  /** Where to ask (`agents-endpoint`), or undefined when the host gave the agents itself. */
  url: () => string | undefined;
  credentials: () => RequestCredentials | undefined;
  /** The agents shown now. */
  current: () => AgentsResponse | undefined;
  /** Told of agents that differ from {@link current}. */
  changed: (agents: AgentsResponse) => void;
}

/** How long a turn waits for the agents before it starts with those it has. */
const TURN_WAIT_MS = 1500;

/**
 * Keeps the picker in step with the server's settings (spec §3.1): asks `GET /api/agents` again when a turn starts and
 * when the page is shown again. The browser revalidates with the `ETag` it kept (`cache: 'no-cache'`), so an unchanged
 * config is a 304 with no body; the request carries no header of its own, so a server on another origin needs no new
 * preflight grant and an older server (no `ETag`) simply answers in full. A failed ask keeps the agents shown.
 */
export class AgentsRefresh implements ReactiveController {
  private asking: Promise<void> | undefined;

  constructor(
    host: ReactiveControllerHost,
    private readonly options: AgentsRefreshOptions,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    document.addEventListener('visibilitychange', this.onVisibility);
  }

  hostDisconnected(): void {
    document.removeEventListener('visibilitychange', this.onVisibility);
  }

  /** Before a turn: the agents asked again, waited for at most {@link TURN_WAIT_MS} (a slow server delays no turn). */
  beforeTurn(): Promise<void> {
    return Promise.race([this.ask(), new Promise<void>((resolve) => setTimeout(resolve, TURN_WAIT_MS))]);
  }

  private readonly onVisibility = (): void => {
    if (document.visibilityState === 'visible') void this.ask();
  };

  /** One ask at a time: a second caller waits for the one under way. */
  private ask(): Promise<void> {
    const url = this.options.url();
    if (url === undefined) return Promise.resolve();
    this.asking ??= fetchAgents(url, this.options.credentials(), 'no-cache')
      .then((agents) => {
        if (JSON.stringify(agents) !== JSON.stringify(this.options.current())) this.options.changed(agents);
      })
      .catch(() => undefined)
      .finally(() => {
        this.asking = undefined;
      });
    return this.asking;
  }
}
