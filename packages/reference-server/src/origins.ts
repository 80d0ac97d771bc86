/**
 * Which hosts the server answers to and which origins may change state (spec §4.5): the guard against DNS
 * rebinding (a page whose own name resolves to the server's address is same-origin with it, as far as a browser
 * knows, so only the `Host` header tells it apart) and against cross-site requests, whatever the CSRF setting.
 */

import type { Logger } from './log.js';

/** What the log line of an origin the server does not serve says to do: the setting, by each of its names. */
const ALLOWED_ORIGINS_FIX =
  "to serve pages of this origin, add it to --allowed-origins (CANVAS_AI_ALLOWED_ORIGINS; createApp's security.allowedOrigins)";

/** How many refused origins are remembered, so each is logged once; past it the memory starts again. */
const REMEMBERED_ORIGINS = 1_000;

/** The longest origin a log line repeats: the header is the client's to write. */
const MAX_LOGGED_ORIGIN = 200;

/** How the server answered a request of an origin it does not serve. */
type OriginRefusal = 'refused' | 'not_granted';

/**
 * Logs one `origin_not_allowed` line per origin the server refuses (403: a preflight, a `POST` or `DELETE`) or
 * answers without a CORS grant (spec §4.5, §4.6), naming the origin and the setting that allows it: the page's
 * developer sees only "Failed to fetch", since a refused CORS answer is unreadable. Once per origin (a page retries
 * and polls), within a bounded memory.
 */
export function originRefusalLog(log: Logger): (origin: string, request: Request, answer: OriginRefusal) => void {
  const told = new Set<string>();
  return (origin, request, answer) => {
    const shown = origin.slice(0, MAX_LOGGED_ORIGIN);
    if (told.has(shown)) return;
    if (told.size >= REMEMBERED_ORIGINS) told.clear();
    told.add(shown);
    log({
      event: 'origin_not_allowed',
      origin: shown,
      method: request.method,
      path: new URL(request.url).pathname,
      answer: answer === 'refused' ? '403 origin_not_allowed' : 'no CORS grant: the page cannot read the answer',
      fix: ALLOWED_ORIGINS_FIX,
    });
  };
}

/** The names of the loopback interface: what a server bound to loopback answers to by default. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Host names a server answers to: exact names (`example.com`, `10.0.0.5`, `[::1]`), `.example.com` for the domain
 * and every name under it, or `'*'` for any (behind a proxy that checks the host itself).
 */
export type AllowedHosts = readonly string[] | '*';

/** Whether `hostname` (as `URL.hostname` gives it: lower case, IPv6 in brackets, no port) is allowed. */
export function isAllowedHost(hostname: string, allowed: AllowedHosts): boolean {
  if (allowed === '*') return true;
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return allowed.some((entry) => {
    const wanted = entry.toLowerCase();
    if (wanted === '*') return true;
    if (wanted.startsWith('.')) return name === wanted.slice(1) || name.endsWith(wanted);
    return name === wanted;
  });
}

/**
 * Whether a state-changing request's `Origin` header may change state: absent (not a browser, or a browser that
 * sends none; the CSRF token still applies), the request's own origin (the same host and port, whichever scheme a
 * proxy in front terminated), or one of `allowed` (`https://editor.example.com`). `null` (a sandboxed frame, a
 * redirect across sites) is refused.
 */
export function isAllowedOrigin(origin: string | undefined, requestUrl: URL, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.host === requestUrl.host) return true;
  return allowed.some((entry) => {
    try {
      return new URL(entry).origin === parsed.origin;
    } catch {
      return false;
    }
  });
}
