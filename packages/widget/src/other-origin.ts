/**
 * An agent server on another origin than the page's (spec §4.6) that sent no answer the page may read. The browser
 * says only "Failed to fetch" both when the server is down and when it answered without allowing the page's origin
 * (the Fetch standard hides a refused CORS answer from the page), so what the chat says names the setting to check.
 */
import { errorMessage } from '@canvas-ai/protocol';

/** The reference server's setting that lists the page origins it serves: its flag, variable and `createApp` option. */
const ALLOWED_ORIGINS_SETTING = "--allowed-origins (CANVAS_AI_ALLOWED_ORIGINS; createApp's security.allowedOrigins)";

/** The page's origin, or undefined outside a page (Node) and in an opaque one (a sandboxed frame). */
export function pageOrigin(): string | undefined {
  const origin = globalThis.location?.origin;
  return origin && origin !== 'null' ? origin : undefined;
}

/** The origin of `url` when it is not the page's; undefined outside a page, or for the page's own origin. */
export function otherOrigin(url: string): string | undefined {
  const page = pageOrigin();
  if (page === undefined) return undefined;
  let origin: string;
  try {
    origin = new URL(url, globalThis.location.href).origin;
  } catch {
    return undefined;
  }
  return origin === page ? undefined : origin;
}

/** The English sentence for developers (error messages, the console): what may be wrong, and where to allow the page. */
export function originHint(server: string): string {
  const page = pageOrigin() ?? "this page's origin";
  return (
    `The agent server (${server}) is on another origin than this page (${page}): if it is running, it may not ` +
    `allow this page's origin. On the reference server, add ${page} to ${ALLOWED_ORIGINS_SETTING}.`
  );
}

/** A fetch to an agent server on another origin that rejected: its message names the setting, `serverOrigin` the server. */
export class OtherOriginUnreachable extends Error {
  override readonly name = 'OtherOriginUnreachable';

  constructor(
    readonly serverOrigin: string,
    what: string,
    cause: unknown,
  ) {
    super(`${what} got no answer this page may read (${errorMessage(cause)}). ${originHint(serverOrigin)}`, { cause });
  }
}
