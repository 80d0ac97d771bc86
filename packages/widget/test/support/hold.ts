// msw handlers placed before the server's: hold one hop until the test releases it, or lose its response (the server
// runs the hop and stores its answer, which never reaches the page: a reload or a dropped connection).
import type { HopRequest } from '@canvas-ai/protocol';
import { http } from 'msw';
import { deferred } from './hop-server.js';

/** The hop number of a JSON hop request, or undefined. */
async function hopOf(request: Request): Promise<HopRequest | undefined> {
  if (!(request.headers.get('content-type') ?? '').startsWith('application/json')) return undefined;
  return (await request.clone().json()) as HopRequest;
}

/** Holds the first request of hop `hop` until `release()`, then lets the next handler answer it. */
export function holdHop(hop: number) {
  const arrived = deferred();
  const gate = deferred();
  let held = false;
  const handler = http.post('*/api/hop', async ({ request }) => {
    const body = await hopOf(request);
    if (body?.hop !== hop || held) return undefined;
    held = true;
    arrived.resolve();
    await gate.promise;
    return undefined;
  });
  return { handler, arrived: arrived.promise, release: () => gate.resolve() };
}

/**
 * Loses the response to the first request of hop `hop`: sends it on to the server (this same page's handlers, so
 * the server runs and stores it), and never answers the page. `answered` resolves once the server has answered.
 */
export function loseResponse(hop: number) {
  const answered = deferred();
  let lost = false;
  const handler = http.post('*/api/hop', async ({ request }) => {
    const body = await hopOf(request);
    if (body?.hop !== hop || lost) return undefined;
    lost = true;
    // Read to its end: a streamed answer's headers come before the server has run the hop.
    const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(body) });
    await response.text();
    answered.resolve();
    return new Promise<never>(() => undefined);
  });
  return { handler, answered: answered.promise };
}
