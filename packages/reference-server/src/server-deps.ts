import type { AgentsConfig, Catalog } from '@canvas-ai/protocol';
import type { DerivedOf } from '@canvas-ai/protocol/server';
import type { Logger } from './log.js';
import type { ModelProvider } from './providers/model-provider.js';
import type { TurnKey } from './store/keys.js';
import type { TurnStore } from './store/turn-store.js';
import type { createToolRegistry } from './tools/registry.js';

/** How long the store keeps things, in milliseconds. */
export interface TurnTtls {
  /** An active turn between hops; an abandoned turn is evicted after this. */
  turnMs: number;
  /**
   * A finished turn's final response (for a repeated last hop). A cancel marker lives the longer of this and
   * `lockMs`, so it outlasts any hop that was running when the turn was cancelled.
   */
  finishedMs: number;
  /** The per-turn lock; longer than the slowest model call. */
  lockMs: number;
  /**
   * How long a turn waits for the person's answer (spec §20.1), stated in `waiting.expires_at`; the store keeps the
   * turn `finishedMs` longer, so a late answer hears that it expired (410 `wait_expired`).
   */
  waitMs: number;
}

/** What the hop and the cancel run on: `createApp`'s options with every default filled in. */
export interface ServerDeps {
  config: AgentsConfig;
  catalog: Catalog;
  /** Which props of a node its host computes (spec §10.1): the node's list and the catalog's marks. */
  derivedOf: DerivedOf;
  /** The built-in tools and the deployment's own, by name. */
  tools: ReturnType<typeof createToolRegistry>;
  provider: ModelProvider;
  store: TurnStore;
  docs: string;
  log: Logger;
  /** Log what each model call is sent (operators debugging prompts; off by default, it holds the person's text). */
  logModelRequests: boolean;
  newUuid: () => string;
  ttl: TurnTtls;
  /**
   * Awaited between the costly steps of a hop, so other requests run in between (the app's turnstile); none for a
   * small request, whose steps are small (`pauseFor`).
   */
  pause: () => Promise<void>;
  /**
   * The turnstile's pause whatever the request's size: for work that grows with the model's reply, not the request
   * (the parked calls, the page they leave), which a small request may still carry into the hop (spec §13.2).
   */
  turnstile: () => Promise<void>;
  /** Lets a new turn start only if its session has room for it; throws 429 `quota_exceeded` otherwise. */
  admitNewTurn: (key: TurnKey, requestId: string) => Promise<void>;
}
