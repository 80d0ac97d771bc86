/**
 * Which hosts the server answers to and which origins may change state (spec §4.5): the guard against DNS
 * rebinding (a page whose own name resolves to the server's address is same-origin with it, as far as a browser
 * knows, so only the `Host` header tells it apart) and against cross-site requests, whatever the CSRF setting.
 */

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
