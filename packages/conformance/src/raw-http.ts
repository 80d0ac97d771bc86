import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** An answer to a request sent with a `Host` header of the kit's choosing. */
export interface HostAnswer {
  status: number;
  headers: Headers;
  /** The body as text (the host checks look for an echo in it), and parsed when it is JSON. */
  text: string;
  body: unknown;
}

/**
 * Sends one request to `url`'s address with `host` as its `Host` header: `fetch` always names the URL's own host,
 * so the rules about other hosts (spec §4.5) need a request of Node's own. Resolves the answer; rejects when the
 * server cannot be reached or takes longer than `timeoutMs`.
 */
export function sendWithHost(
  url: string,
  init: { method: string; host: string; headers?: Record<string, string>; body?: string; timeoutMs: number },
): Promise<HostAnswer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      target,
      {
        method: init.method,
        headers: {
          ...init.headers,
          host: init.host,
          ...(init.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(init.body)) }),
        },
        // A TLS server is still asked by the name it has a certificate for; only the Host header differs.
        servername: target.hostname,
        timeout: init.timeoutMs,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(incoming.headers))
            for (const each of Array.isArray(value) ? value : value === undefined ? [] : [value])
              headers.append(name, each);
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // Not JSON: the text is the body.
          }
          resolve({ status: incoming.statusCode ?? 0, headers, text, body });
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${init.timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}
