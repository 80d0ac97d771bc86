import {
  ADMIN_SETTINGS_PATH,
  type AdminSettingsResponse,
  AgentSettings,
  type AgentsConfig,
  canvasAgentIds,
} from '@canvas-ai/protocol';
import { HopError } from '@canvas-ai/protocol/server';
import type { Hono, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { addressBucket } from './client-address.js';
import type { LiveAgents } from './live-agents.js';
import type { Logger } from './log.js';
import { SessionMints } from './session-mints.js';

/** Options of the admin surface (spec §19); without a token it does not exist. */
export interface AdminOptions {
  /** The operator's admin credential (the CLI: `CANVAS_AI_ADMIN_TOKEN`), at least 16 characters. */
  token: string;
  /** Requests one client address may make per minute, right or wrong credential. Default 30. */
  requestsPerMinute?: number;
}

/** The shortest admin token taken: a shorter one is guessable within the rate limit's patience. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/**
 * Mounts `GET` and `PUT /api/admin/settings` (spec §19): the settings in force, and new ones checked against the rules
 * of spec §12.4, stored for every instance. Its own guard, before anything is read: a request from another origin is
 * refused (the settings screen is the server's own page), every client address has its own rate limit, and only
 * `Authorization: Bearer <token>` opens it, compared in constant time; the session cookie and the CSRF token do not.
 */
export function mountAdmin(app: Hono<AppEnv>, live: LiveAgents, options: AdminOptions, log: Logger): void {
  const guard = adminGuard(options, log);
  const answer = (config: AgentsConfig): AdminSettingsResponse => ({
    settings: { main_agent: config.main_agent, tools: config.tools },
    canvas_agents: canvasAgentIds(config).map((id) => ({
      id,
      label: config.agents[id]!.label,
      description: config.agents[id]!.description,
    })),
  });
  app.get(ADMIN_SETTINGS_PATH, guard, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(answer(await live.current()));
  });
  app.put(ADMIN_SETTINGS_PATH, guard, async (c) => {
    c.header('Cache-Control', 'no-store');
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new HopError('invalid_json', 'The body is not JSON: send {"main_agent": "…", "tools": ["…"]}.');
    }
    const settings = AgentSettings.safeParse(body);
    if (!settings.success) {
      const issues = settings.error.issues.map((issue) => ({
        path: issue.path.map(String).join('.'),
        message: issue.message,
      }));
      throw new HopError('invalid_request', issues.map((issue) => `${issue.path}: ${issue.message}`).join('\n'), {
        field: issues[0]?.path,
        issues,
      });
    }
    return c.json(answer(await live.save(settings.data)));
  });
  app.all(ADMIN_SETTINGS_PATH, guard, (c) =>
    new HopError('method_not_allowed', `${c.req.method} is not served here: the admin settings.`).toResponse({
      Allow: 'GET, PUT',
    }),
  );
}

/** The admin surface's own door: origin, rate limit, credential, in that order (spec §19). */
function adminGuard(options: AdminOptions, log: Logger): MiddlewareHandler<AppEnv> {
  const expected = tokenDigest(options.token);
  const requests = new SessionMints(
    options.requestsPerMinute ?? 30,
    60_000,
    Date.now,
    'Too many admin requests from this address; wait and try again.',
  );
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== new URL(c.req.url).origin) {
      log({ event: 'admin_refused', reason: 'another origin', origin });
      throw new HopError('origin_not_allowed', 'The admin settings take requests of their own origin only.');
    }
    const address = c.env.clientAddress;
    requests.take(address ? addressBucket(address) : 'unknown');
    const authorization = c.req.header('authorization') ?? '';
    const given = /^Bearer (.+)$/i.exec(authorization)?.[1] ?? '';
    if (!equalBytes(await tokenDigest(given), await expected)) {
      log({ event: 'admin_refused', reason: given ? 'wrong credential' : 'no credential' });
      return new HopError(
        'unauthorized',
        'The admin settings need the admin token: send Authorization: Bearer <token>.',
      ).toResponse({ 'WWW-Authenticate': 'Bearer realm="canvas-ai-admin"' });
    }
    await next();
  };
}

/** A fixed-length digest of a token, so the comparison's time never depends on where or how a guess differs. */
async function tokenDigest(token: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
}

/** Whether two byte strings are equal, reading every byte whatever differs first (a constant-time comparison). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}
