// One msw service worker per test file (web-test-runner gives each file its own page); tests add handlers per case.
import type { RequestHandler } from 'msw';
import { setupWorker, type SetupWorker } from 'msw/browser';

let worker: SetupWorker | undefined;

/** Starts the page's msw worker once; the worker file is served from node_modules by the test runner config. */
async function startWorker(): Promise<SetupWorker> {
  if (!worker) {
    worker = setupWorker();
    await worker.start({ serviceWorker: { url: '/mockServiceWorker.js' }, onUnhandledFrame: 'bypass', quiet: true });
  }
  return worker;
}

/** Replaces the worker's handlers for one test. */
export async function useHandlers(...handlers: RequestHandler[]): Promise<void> {
  const started = await startWorker();
  started.resetHandlers(...handlers);
}
