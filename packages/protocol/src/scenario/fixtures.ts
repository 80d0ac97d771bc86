import type { AgentsConfig } from '../config/agents-config.js';
import type { Catalog } from '../config/catalog.js';
import type { Layout } from '../wire/layout.js';
import type { Scenario } from './scenario.js';

/**
 * The shared test data (fixtures/) as plain values: what `loadFixtures` from `@canvas-ai/protocol/node` reads
 * from disk, and what browser code (the msw mock, `driveScenario`) receives instead of touching a file system.
 */
export interface Fixtures {
  /** The folder the fixtures were read from (informational; empty when built in memory). */
  dir: string;
  catalog: Catalog;
  agents: AgentsConfig;
  /** Layout fixtures by path relative to the fixtures folder, e.g. `layouts/empty.yaml`. */
  layouts: Record<string, Layout>;
  scenarios: Scenario[];
  /** Attachment files by path relative to the fixtures folder, e.g. `attachments/cookie.png`. */
  attachments: Record<string, Uint8Array>;
}
