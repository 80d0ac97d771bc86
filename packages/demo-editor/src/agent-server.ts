/**
 * Which agent server `?agent-server=` may point the demo at (the second security review, G7): a link must
 * not send the person's messages and page to a server of someone else's choosing. Accepted: this page's own origin,
 * or an origin on the allow-list the build is given in `VITE_AGENT_SERVERS` (comma-separated origins, e.g.
 * `https://agents.example.com,http://127.0.0.1:8787`; an entry may end in `:*` for any port of that host). Anything
 * else is ignored and said so on the console, and the chat stays on this page's own server.
 */
export function allowedAgentServer(
  requested: string | null,
  pageOrigin: string,
  allowList: string | undefined,
  warn: (message: string) => void,
): string | undefined {
  if (requested === null || requested === '') return undefined;
  let origin: string;
  try {
    origin = new URL(requested).origin;
  } catch {
    warn(`?agent-server=${requested} is not a URL; it is ignored, and the chat talks to this page's own server.`);
    return undefined;
  }
  if (origin === pageOrigin || parseAllowList(allowList).some((entry) => matches(entry, origin))) return origin;
  warn(
    `?agent-server=${requested} is ignored: ${origin} is neither this page's origin nor on the demo build's ` +
      "allow-list (VITE_AGENT_SERVERS), so the chat talks to this page's own server.",
  );
  return undefined;
}

function parseAllowList(allowList: string | undefined): string[] {
  return (allowList ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** `entry` is an origin, or `scheme://host:*` for every port of one host. */
function matches(entry: string, origin: string): boolean {
  if (!entry.endsWith(':*')) return entry === origin;
  const host = entry.slice(0, -2);
  if (origin === host) return true;
  const colon = origin.lastIndexOf(':');
  return colon > origin.indexOf('//') && origin.slice(0, colon) === host && /^\d+$/.test(origin.slice(colon + 1));
}
