// @canvas-ai/reference-server/mock/browser: the reference server in the page, in one call, for a host's dev entry.
// Browser only (msw's service worker); the handlers themselves are `createMockHandlers` of `./mock`.
import type { PageFixtures } from '@canvas-ai/protocol/fixtures';
import { setupWorker, type SetupWorker } from 'msw/browser';
import { createMockHandlers, type MockOptions } from './mock.js';

/** Options of {@link setupCanvasAiMock}: the fixtures, and any option of `createMockHandlers`. */
export interface CanvasAiMockOptions extends Omit<MockOptions, 'scenarios' | 'agents' | 'catalog'> {
  /**
   * The catalog, agents and scenarios the scripted model plays: `repositoryFixtures` from
   * `@canvas-ai/protocol/fixtures`, or your own (`fixturesFromData(yourParsedYaml)` validates them).
   */
  fixtures: Pick<PageFixtures, 'catalog' | 'agents' | 'scenarios'>;
  /** Where the page serves msw's worker script (`npx msw init <public dir>` writes it); default `/mockServiceWorker.js`. */
  serviceWorkerUrl?: string;
  /** Log every request the mock answers to the console (msw's own log); default off. */
  log?: boolean;
}

/**
 * Starts msw's service worker with the reference server's routes (`/api/hop`, `/api/agents`, `/api/token`) played
 * by the scripted model from `fixtures`; every other request goes to the network as usual. Resolves once the worker
 * intercepts, so call it (and await it) before the chat sends anything. `worker.stop()` ends it.
 */
export async function setupCanvasAiMock(options: CanvasAiMockOptions): Promise<SetupWorker> {
  const { fixtures, serviceWorkerUrl = '/mockServiceWorker.js', log = false, ...mock } = options;
  const worker = setupWorker(
    ...createMockHandlers({
      ...mock,
      scenarios: fixtures.scenarios,
      agents: fixtures.agents,
      catalog: fixtures.catalog,
    }),
  );
  await worker.start({ serviceWorker: { url: serviceWorkerUrl }, onUnhandledFrame: 'bypass', quiet: !log });
  return worker;
}
