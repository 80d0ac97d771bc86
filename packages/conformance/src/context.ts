import type { Fixtures } from '@canvas-ai/protocol/scenario';
import type { ConformanceLevel } from './check.js';
import type { MalformedRequestCase } from '@canvas-ai/protocol/scenario';
import { drivePromptTurn, type PromptTurn } from './drive-turn.js';
import type { ConformanceClient } from './http-client.js';

/** What every check can reach: the server (through one client session), the shared tables and fixtures. */
export interface CheckContext {
  client: ConformanceClient;
  /** The level of this run: probes shared by checks of both levels (the streamed hops) do more at level 2. */
  level: ConformanceLevel;
  /** The level-1 prompt, e.g. "Hello". */
  prompt: string;
  /** fixtures/malformed-requests.yaml. */
  malformedRequests: readonly MalformedRequestCase[];
  /** The scenario fixtures and the layouts and attachments they name; level 2 only. */
  fixtures: Fixtures | undefined;
  /** How many copies of one hop the concurrency check sends at once. */
  burst: number;
  /** Most milliseconds one request may take (for error messages). */
  timeoutMs: number;
  /** The turns the server lets one session run at once (spec §8.8), when the run was told; else the bound is not probed. */
  sessionTurns?: number;
  /**
   * Runs `work` once per run and shares its promise: several checks judge one probe (the prompt turn, the scenario
   * runs), so the server is asked once.
   */
  once<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** The turn the server runs for the prompt, every hop sent twice (shared by the level-1 checks). */
  promptTurn(): Promise<PromptTurn>;
  /** The fixtures, or an error saying level 2 needs them. */
  requireFixtures(): Fixtures;
}

/** Builds the context of one run. */
export function createContext(init: Omit<CheckContext, 'once' | 'promptTurn' | 'requireFixtures'>): CheckContext {
  const memo = new Map<string, Promise<unknown>>();
  const context: CheckContext = {
    ...init,
    once<T>(key: string, work: () => Promise<T>): Promise<T> {
      let promise = memo.get(key) as Promise<T> | undefined;
      if (promise === undefined) {
        promise = work();
        memo.set(key, promise);
      }
      return promise;
    },
    promptTurn: () => context.once('prompt-turn', () => drivePromptTurn(init.client, init.prompt)),
    requireFixtures(): Fixtures {
      if (init.fixtures === undefined) throw new Error('level 2 needs the scenario fixtures (--scenarios DIR)');
      return init.fixtures;
    },
  };
  return context;
}
