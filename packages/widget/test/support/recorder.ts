// Records every request the client sends, exactly as sent, then lets the next msw handler answer it.
import type { HopRequest } from '@canvas-ai/protocol';
import { http } from 'msw';

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  contentType: string;
  headers: Headers;
  /** The raw JSON text (the `request` part for multipart). */
  json: string | undefined;
  /** The parsed JSON body (the `request` part for multipart). */
  body: HopRequest | undefined;
  /** For multipart: every part's name, and for files their file name. */
  parts: Array<{ name: string; file?: string }> | undefined;
}

/** A pass-through handler that records requests, and the list it fills. */
export function recorder() {
  const requests: RecordedRequest[] = [];
  const handler = http.all('*/api/*', async ({ request }) => {
    const contentType = (request.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const entry: RecordedRequest = {
      method: request.method,
      path: new URL(request.url).pathname,
      contentType,
      headers: request.headers,
      json: undefined,
      body: undefined,
      parts: undefined,
    };
    if (contentType === 'application/json') {
      entry.json = await request.clone().text();
      entry.body = JSON.parse(entry.json);
    } else if (contentType === 'multipart/form-data') {
      const form = await request.clone().formData();
      entry.parts = [...form.entries()].map(([name, value]) =>
        typeof value === 'string' ? { name } : { name, file: value.name },
      );
      const part = form.get('request');
      entry.json = typeof part === 'string' ? part : undefined;
      entry.body = entry.json === undefined ? undefined : JSON.parse(entry.json);
    }
    requests.push(entry);
    return undefined;
  });
  return {
    handler,
    requests,
    /** The hop POSTs only, each with the hop request it carried. */
    posts: () =>
      requests.filter(
        (entry): entry is RecordedRequest & { body: HopRequest } =>
          entry.method === 'POST' && entry.path.endsWith('/api/hop') && entry.body !== undefined,
      ),
    /**
     * The cancels only; with `requestId`, only that turn's. A chat a test's clean-up removed cancels its turn without
     * waiting, and the service worker asks the page which handler answers only when the request reaches it: on a busy
     * machine that is after the next test installed its recorder, which then sees the earlier test's cancel.
     */
    deletes: (requestId?: string) =>
      requests.filter(
        (entry) =>
          entry.method === 'DELETE' &&
          (requestId === undefined || entry.path.endsWith(`/api/hop/${encodeURIComponent(requestId)}`)),
      ),
  };
}
