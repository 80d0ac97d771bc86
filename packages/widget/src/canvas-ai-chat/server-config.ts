import {
  type AgentsResponse,
  AgentsResponseChecker,
  type Checker,
  errorMessage,
  TokenResponseChecker,
} from '@canvas-ai/protocol';
import { OtherOriginUnreachable, otherOrigin } from '../other-origin.js';

/**
 * The CSRF token from `token-endpoint` (`GET /api/token`), fetched once and shared by every hop and cancel.
 * A failed fetch is not cached; {@link invalidate} forgets the token (after the server rejected it).
 */
export class TokenCache {
  private pending: Promise<string> | undefined;

  constructor(
    private readonly url: string,
    private readonly credentials: RequestCredentials = 'same-origin',
  ) {}

  /** The token, fetched on first use, and fetched again when the loop asks to `refresh` (the server refused it). */
  readonly get = (request?: { refresh: boolean }): Promise<string> => {
    if (request?.refresh) this.invalidate();
    this.pending ??= fetchJson(this.url, TokenResponseChecker, this.credentials).then((body) => body.token);
    this.pending.catch(() => {
      this.pending = undefined;
    });
    return this.pending;
  };

  /** Forgets the token, so the next request fetches a fresh one. */
  invalidate(): void {
    this.pending = undefined;
  }
}

/**
 * Loads the agents config for the picker from `agents-endpoint` (`GET /api/agents`); `cache: 'no-cache'` has the
 * browser revalidate what it kept (an unchanged config is a 304, spec §3.1).
 */
export async function fetchAgents(
  url: string,
  credentials: RequestCredentials = 'same-origin',
  cache: RequestCache = 'default',
): Promise<AgentsResponse> {
  try {
    return await fetchJson(url, AgentsResponseChecker, credentials, cache);
  } catch (error) {
    throw new Error(`Could not load the agents config: ${errorMessage(error)}`, { cause: error });
  }
}

async function fetchJson<T>(
  url: string,
  checker: Checker<T>,
  credentials: RequestCredentials,
  cache: RequestCache = 'default',
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { credentials, cache, headers: { Accept: 'application/json' } });
  } catch (error) {
    // On another origin, a refused CORS answer looks like a server that is down: the error names the setting.
    const serverOrigin = otherOrigin(url);
    throw serverOrigin === undefined ? error : new OtherOriginUnreachable(serverOrigin, `GET ${url}`, error);
  }
  if (!response.ok) throw new Error(`GET ${url} answered HTTP ${response.status}.`);
  const parsed = checker.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new Error(`GET ${url} did not answer in the protocol's format.`);
  return parsed.data;
}
