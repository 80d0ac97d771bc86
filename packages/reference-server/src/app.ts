import { Hono, type Context, type MiddlewareHandler } from 'hono';
import {
  agentsResponse,
  CSRF_HEADER,
  derivedPropProblems,
  LIMITS,
  PROTOCOL_VERSION,
  RequestId,
  type AgentsConfig,
  type Catalog,
  type HealthResponse,
  type TokenResponse,
} from '@canvas-ai/protocol';
import {
  derivedPropsOf,
  HopError,
  isHopError,
  pauseFor,
  PropsPrints,
  readHopRequest,
  type ToolDefinition,
} from '@canvas-ai/protocol/server';
import type { AppEnv, ConnectionInfo } from './app-env.js';
import { checkAgentTools } from './agents/check-agents.js';
import { agentsEtag, matchesIfNoneMatch } from './agents-etag.js';
import { type AdminOptions, MIN_ADMIN_TOKEN_LENGTH, mountAdmin } from './admin.js';
import { LiveAgents } from './live-agents.js';
import { ConfigError } from './config-error.js';
import { cancelTurn } from './cancel.js';
import { BodyBudget } from './body-budget.js';
import { CsrfTokens } from './csrf.js';
import { ENDPOINTS } from './endpoints.js';
import { runHop } from './hop.js';
import { type HopEvents, NO_HOP_EVENTS } from './hop-events.js';
import { DEFAULT_KEEPALIVE_MS, STREAM_HEADERS, streamHop, wantsStream } from './stream-response.js';
import { inHopSpan, inSpan } from './tracing.js';
import { turnStatus } from './turn-status.js';
import { encodeAttachments } from './turn-seed.js';
import { type AllowedHosts, isAllowedHost, isAllowedOrigin, LOOPBACK_HOSTS, originRefusalLog } from './origins.js';
import { corsGrants, endpointMethods, isPreflight, listedOrigins, preflightResponse } from './cors.js';
import { DEFAULT_STATIC_CSP, securityHeaders } from './security-headers.js';
import { jsonLineLogger, type Logger } from './log.js';
import type { ModelProvider } from './providers/model-provider.js';
import type { ServerDeps, TurnTtls } from './server-deps.js';
import { Sessions, sessionMiddleware } from './session.js';
import { Signer } from './signer.js';
import { addressBucket } from './client-address.js';
import { type AddressQuota, QuotaStore, type SessionQuota } from './quota.js';
import { SessionMints } from './session-mints.js';
import { MemoryTurnStore } from './store/memory.js';
import { guardStore, type TurnStore } from './store/turn-store.js';
import { createToolRegistry } from './tools/registry.js';
import { Turnstile } from './turnstile.js';

export type { ConnectionInfo } from './app-env.js';

/** Serves a static file for a request, or undefined to fall through to 404 (the demo editor, served same-origin). */
export type StaticFiles = (request: Request) => Response | undefined | Promise<Response | undefined>;

/** Options of {@link createApp}; only the config, catalog and provider are required. */
export interface AppOptions {
  /** The validated agents config (the protocol's `AgentsConfig`). */
  agents: AgentsConfig;
  /** The component catalog. */
  catalog: Catalog;
  /** The model: `ScriptedProvider`, `OpenAiCompatibleProvider` or your own. */
  provider: ModelProvider;
  /** Where turns live between hops. Default: a bounded in-memory store (see `quotas.storeBytes`). */
  store?: TurnStore;
  /** Tools added to the built-in ones (see "Adding a tool" in the README). */
  tools?: readonly ToolDefinition[];
  /** The project's documentation for `include_docs` agents. Default: none. */
  docs?: string;
  /** Names the agents config in start-up errors. Default: "the agents config". */
  agentsSource?: string;
  /**
   * The optional admin surface (spec §19), `GET`/`PUT /api/admin/settings`: absent (the default), it does not exist.
   * Its settings are kept in `store`, so every instance shares them.
   */
  admin?: AdminOptions;
  /** How long an instance reuses the settings it read from the store (ms): instances agree within it. Default 500. */
  settingsRefreshMs?: number;
  /** Serves other GET requests (e.g. the demo editor). Default: 404. */
  staticFiles?: StaticFiles;
  /** Structured logs. Default: JSON lines on stdout. */
  log?: Logger;
  /**
   * Also log, for every model call, the system prompt and the messages it is sent (`model_request` lines). For
   * operators debugging what the model sees; the lines hold the person's messages and page, so default false.
   */
  logModelRequests?: boolean;
  /** Makes component uuids. Default `crypto.randomUUID`. */
  newUuid?: () => string;
  /** Store lifetimes. Defaults: turn 30 min, finished/cancelled 60 s, lock 5 min. */
  ttl?: Partial<TurnTtls>;
  /** Who may call, from where, and what every answer carries (spec §4.2, §4.5, §4.6). */
  security?: {
    /**
     * The HMAC secret of session cookies and CSRF tokens (≥ 16 bytes), the same on every instance. Default: random
     * per process (sessions and tokens die with a restart).
     */
    secret?: string | Uint8Array;
    /**
     * Checks the CSRF token header on every state-changing request. Turn it off only behind your own CSRF protection
     * (a cookie of your own that is `SameSite=None` would make every hop forgeable): the origin check stays on.
     * Default true.
     */
    csrf?: boolean;
    /** How long a CSRF token is accepted after `GET /api/token` issued it (then 403; a client fetches a new one). Default 12 h. */
    tokenTtlMs?: number;
    /**
     * The caller's session id, for deployments with their own auth (a user id, say). Default: the signed
     * `canvas_ai_session` cookie (`__Host-canvas_ai_session` with `secureCookies`) set by `GET /api/token`. Turn
     * keys are scoped to it.
     */
    sessionId?: (request: Request) => string | undefined | Promise<string | undefined>;
    /** Makes the session cookie `Secure` and `__Host-` prefixed (serve over HTTPS). Default false. */
    secureCookies?: boolean;
    /**
     * The session cookie `SameSite=None` instead of `Lax`, for host pages on another site (spec §4.6): browsers send
     * a Lax cookie to another origin of the same site only. Needs `secureCookies` (browsers drop a None cookie that
     * is not Secure). Default false.
     */
    crossSiteCookies?: boolean;
    /**
     * The host names the server answers to (421 `host_not_allowed` for any other; `/healthz` answers every host):
     * exact names, `.example.com` for a domain and its subdomains, or `'*'`. Default: the loopback names
     * (`localhost`, `127.0.0.1`, `[::1]`); `startServer`'s callers name the hosts of their interface (the CLI does).
     */
    allowedHosts?: AllowedHosts;
    /**
     * Origins besides the request's own that may send `POST` and `DELETE` (403 `origin_not_allowed` for any other),
     * e.g. the public origin when a proxy rewrites the host; their pages also get CORS grants (spec §4.6). Checked
     * whether or not CSRF is on. Default: none.
     */
    allowedOrigins?: readonly string[];
    /** The `Content-Security-Policy` of static files. Default {@link DEFAULT_STATIC_CSP}. */
    contentSecurityPolicy?: string;
  };
  /** What one request may bring and how long it may take. */
  limits?: {
    /** The largest multipart request body in bytes (hop 1 with attachments). Default {@link LIMITS.maxBodyBytes} (32 MiB). */
    maxBodyBytes?: number;
    /** The largest JSON body (and multipart `request` part) in bytes. Default {@link LIMITS.maxJsonBodyBytes} (8 MiB). */
    maxJsonBodyBytes?: number;
    /** A body must have arrived within this many milliseconds of its headers, or 408 `request_timeout`. Default 60,000. */
    bodyTimeoutMs?: number;
    /** Bytes of request bodies held in memory at once, all requests together (503 `server_busy` past it). Default 256 MiB. */
    maxBufferedBodyBytes?: number;
    /** A streamed hop (spec §6.1) sends a keepalive line after this many milliseconds without another. Default 15,000. */
    streamKeepaliveMs?: number;
  };
  /** What sessions, client addresses and the whole store may hold (spec §8.8). */
  quotas?: {
    /**
     * What one session may hold in the store (429 for a new turn past it; 0 turns a bound off). Defaults: 32 turns
     * running, 32 finished answers kept for replay (its oldest dropped past it), 64 MiB of stored JSON (attachments
     * included).
     */
    session?: Partial<SessionQuota>;
    /**
     * What the sessions of one client address (an IPv6 /64) may hold together (429 `quota_exceeded` for a new turn
     * past it; 0 turns a bound off); needs the address (`startServer` passes it). Defaults: 64 turns running, 256 MiB
     * of stored JSON.
     */
    address?: Partial<AddressQuota>;
    /**
     * The total of the default memory store, in characters of stored JSON: past it no new turn starts (503
     * `server_busy`), and nothing held is evicted. A store you pass has its own (`maxBytes` of `MemoryTurnStore` and
     * `RedisTurnStore`). Default 512 MiB.
     */
    storeBytes?: number;
    /**
     * New sessions one client address may mint per 10 minutes, counted by each process; needs the address
     * (`startServer` passes it). Default 0: no limit (the CLI sets 120).
     */
    maxSessionsPerIp?: number;
  };
}

/** A web-standard handler: mount it in any runtime that speaks `Request`/`Response`. */
export interface CanvasAiApp {
  fetch(request: Request, connection?: ConnectionInfo): Promise<Response>;
  /** The agents config in force, which a watch of the agents file replaces (`watchAgentsFile`). */
  readonly agents?: LiveAgents;
}

const DEFAULT_TTLS: TurnTtls = { turnMs: 30 * 60_000, finishedMs: 60_000, lockMs: 5 * 60_000 };

/**
 * The reference server as a `(Request) => Promise<Response>` handler: `POST /api/hop`, `GET /api/agents`,
 * `GET /api/token`, `GET` and `DELETE /api/hop/:request_id`, `GET /healthz`. Validates the agents' tools at creation (throws a
 * `ConfigError`). Protocol errors build their own response; anything else is logged and becomes a 500.
 */
export function createApp(options: AppOptions): CanvasAiApp {
  const security = options.security ?? {};
  const { deps, admitFrom, store } = serverDeps(options);
  // Saved settings exist only where an admin surface can save them: without one the store is never read for them.
  const live = new LiveAgents(options.agents, {
    store: options.admin ? store : undefined,
    log: deps.log,
    refreshMs: options.settingsRefreshMs,
  });
  const session = sessions(options);
  const allowedOrigins = security.allowedOrigins ?? [];
  const corsOrigins = listedOrigins(allowedOrigins);
  const app = new Hono<AppEnv>();

  // Headers last, on every answer (errors, 404s and static files included): these run after the routes.
  app.use(securityHeaders(security.contentSecurityPolicy ?? DEFAULT_STATIC_CSP));
  app.use(corsGrants(corsOrigins));
  app.use(
    guardRequest(security.allowedHosts ?? LOOPBACK_HOSTS, allowedOrigins, corsOrigins, originRefusalLog(deps.log)),
  );

  app.get('/healthz', (c) => c.json({ status: 'ok', protocol: PROTOCOL_VERSION } satisfies HealthResponse));

  // Versioned (spec §3.1): a client asks again at every turn and when its page is shown again; a 304 costs nothing.
  app.get('/api/agents', async (c) => {
    const body = agentsResponse(await live.current());
    const etag = await agentsEtag(body);
    c.header('ETag', etag);
    c.header('Cache-Control', 'no-cache');
    if (matchesIfNoneMatch(c.req.header('if-none-match'), etag)) return c.body(null, 304);
    return c.json(body);
  });

  app.get('/api/token', session.read, session.orMint, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({
      token: await session.tokens.tokenFor(c.var.session!),
      header: CSRF_HEADER,
    } satisfies TokenResponse);
  });

  // One span per hop, continuing the trace of the request's traceparent (spec §4.7); the API's no-op without an SDK.
  const hopSpan: MiddlewareHandler = (c, next) => inHopSpan(c.req.raw, () => next().then(() => c.res.status));
  app.post('/api/hop', hopSpan, session.read, session.require, hopRoute(deps, live, admitFrom, options.limits ?? {}));
  if (options.admin) mountAdmin(app, live, checkedAdmin(options.admin), deps.log);

  app.delete('/api/hop/:request_id', session.read, session.require, async (c) =>
    c.json(await cancelTurn(deps, c.var.session!, pathRequestId(c))),
  );

  // Read-only (spec §8.6): no CSRF token, and no session minted; without one there is no turn to find.
  app.get('/api/hop/:request_id', session.read, async (c) => {
    const requestId = pathRequestId(c);
    c.header('Cache-Control', 'no-store');
    return c.json(await turnStatus(deps, c.var.session, requestId));
  });

  // A known path with another method is a 405 naming the methods it has (spec §3), not a 404; HEAD goes with GET.
  for (const { path, methods, what } of ENDPOINTS) {
    app.all(path, (c) =>
      new HopError('method_not_allowed', `${c.req.method} is not served here: ${what}.`).toResponse({
        Allow: methods.join(', '),
      }),
    );
  }

  app.notFound(async (c) => {
    const file = await staticFile(options.staticFiles, c);
    return file ?? new HopError('not_found', `Nothing at ${c.req.method} ${c.req.path}.`).toResponse();
  });

  app.onError((error) => {
    if (isHopError(error)) return error.toResponse();
    deps.log({
      event: 'internal_error',
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return new HopError('internal_error', 'The server failed; the error is in its log.').toResponse();
  });

  return { fetch: (request, connection) => Promise.resolve(app.fetch(request, connection ?? {})), agents: live };
}

/** The admin options, refused at start-up with a token too short to resist guessing. */
function checkedAdmin(admin: AdminOptions): AdminOptions {
  if (admin.token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError([
      `CANVAS_AI_ADMIN_TOKEN (createApp admin.token): ${admin.token.length} characters; use at least ${MIN_ADMIN_TOKEN_LENGTH} ` +
        '(e.g. openssl rand -base64 24).',
    ]);
  }
  return admin;
}

/**
 * The hop's and the cancel's parts: `createApp`'s options with every default filled in, checked at start-up; and the
 * admission of a new turn from one client address's bucket (spec §8.8), which a hop's route puts in its deps.
 */
function serverDeps(options: AppOptions): {
  deps: ServerDeps;
  admitFrom: (bucket: string | undefined) => ServerDeps['admitNewTurn'];
  /** The store itself, outside the quota ledgers: where the settings are shared. */
  store: TurnStore;
} {
  const tools = createToolRegistry(options.tools);
  checkAgentTools(options.agents, Object.keys(tools), options.agentsSource ?? 'the agents config');
  const ttl = { ...DEFAULT_TTLS, ...options.ttl };
  checkLockOutlastsDecisions(options.provider, ttl.lockMs);
  checkDerivedProps(options.catalog);
  // Every request's steps take turns, so no request holds the event loop for more than one step (spec §13).
  const turnstile = new Turnstile();
  const quotas = options.quotas ?? {};
  const store = options.store ?? new MemoryTurnStore({ pause: turnstile.pass, maxBytes: quotas.storeBytes });
  const quotaStore = new QuotaStore(
    store,
    { maxTurns: 32, maxFinished: 32, maxBytes: 64 * 1024 * 1024, ...quotas.session },
    { maxTurns: 64, maxBytes: 256 * 1024 * 1024, ...quotas.address },
  );
  // A new turn only if its session, its address and the store have room for it (spec §8.8), before its work is spent.
  const admitFrom =
    (bucket: string | undefined): ServerDeps['admitNewTurn'] =>
    (key, requestId) =>
      guardStore(() => quotaStore.admit(key, ttl.lockMs, requestId, bucket), requestId);
  const deps: ServerDeps = {
    config: options.agents,
    catalog: options.catalog,
    derivedOf: derivedPropsOf(options.catalog),
    tools,
    provider: options.provider,
    store: quotaStore,
    docs: options.docs ?? '',
    log: options.log ?? jsonLineLogger(),
    logModelRequests: options.logModelRequests ?? false,
    newUuid: options.newUuid ?? (() => crypto.randomUUID()),
    pause: turnstile.pass,
    turnstile: turnstile.pass,
    admitNewTurn: admitFrom(undefined),
    ttl,
  };
  return { deps, admitFrom, store };
}

/** The session middleware of `createApp`'s security options, and the CSRF tokens `GET /api/token` issues. */
function sessions(options: AppOptions): ReturnType<typeof sessionMiddleware> & { tokens: CsrfTokens } {
  const security = options.security ?? {};
  if (security.crossSiteCookies && !security.secureCookies) {
    throw new ConfigError([
      'CANVAS_AI_CROSS_SITE_COOKIES (createApp security.crossSiteCookies) needs CANVAS_AI_SECURE_COOKIES ' +
        '(security.secureCookies): browsers drop a SameSite=None cookie that is not Secure.',
    ]);
  }
  const signer = new Signer(security.secret ?? crypto.getRandomValues(new Uint8Array(32)));
  const tokens = new CsrfTokens(signer, { ttlMs: security.tokenTtlMs });
  const mints = new SessionMints(options.quotas?.maxSessionsPerIp ?? 0, 10 * 60_000);
  const middleware = sessionMiddleware({
    sessions: new Sessions(signer, {
      secure: security.secureCookies ?? false,
      sameSite: security.crossSiteCookies ? 'None' : 'Lax',
    }),
    tokens,
    csrf: security.csrf ?? true,
    sessionId: security.sessionId,
    beforeMint: (address) => mints.take(address ? addressBucket(address) : undefined),
  });
  return { ...middleware, tokens };
}

/**
 * Before anything else: a request for another host name (DNS rebinding) or a state change from another site's page
 * is refused whatever it is (spec §4.5), and a listed origin's preflight answered (spec §4.6). `/healthz` answers
 * any host: a load balancer asks by address. A request of an origin the server does not serve, refused or answered
 * without a grant, is logged (`refusedOrigin`), so the operator learns which origin to list.
 */
function guardRequest(
  allowedHosts: AllowedHosts,
  allowedOrigins: readonly string[],
  corsOrigins: ReadonlySet<string>,
  refusedOrigin: ReturnType<typeof originRefusalLog>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const url = new URL(c.req.url);
    if (url.pathname !== '/healthz' && !isAllowedHost(url.hostname, allowedHosts)) {
      throw new HopError(
        'host_not_allowed',
        'This server does not answer to this host name. Its operator can allow it (--allowed-hosts).',
      );
    }
    const origin = c.req.header('origin');
    const methods = isPreflight(c.req.raw) ? endpointMethods(url.pathname) : undefined;
    if (methods !== undefined) {
      if (corsOrigins.has(origin!)) return preflightResponse(origin!, methods);
      refusedOrigin(origin!, c.req.raw, 'refused');
      throw new HopError('origin_not_allowed', 'This server does not serve pages of that origin.');
    }
    // Absent (not a browser), the request's own origin, or a listed one: served. Any other is refused or not granted.
    if (origin !== undefined && !isAllowedOrigin(origin, url, allowedOrigins)) {
      const refused = !SAFE_METHODS.has(c.req.method);
      refusedOrigin(origin, c.req.raw, refused ? 'refused' : 'not_granted');
      if (refused) throw new HopError('origin_not_allowed', 'Requests from another site may not change anything here.');
    }
    await next();
  };
}

/** `POST /api/hop` once its session is checked: reads the body, runs the hop, answers as JSON or a stream. */
function hopRoute(
  deps: ServerDeps,
  live: LiveAgents,
  admitFrom: (bucket: string | undefined) => ServerDeps['admitNewTurn'],
  limits: NonNullable<AppOptions['limits']>,
): (c: Context<AppEnv>) => Promise<Response> {
  const bodyBudget = new BodyBudget(limits.maxBufferedBodyBytes ?? 256 * 1024 * 1024);
  const door = {
    maxBodyBytes: limits.maxBodyBytes ?? LIMITS.maxBodyBytes,
    maxJsonBodyBytes: limits.maxJsonBodyBytes ?? LIMITS.maxJsonBodyBytes,
    bodyTimeoutMs: limits.bodyTimeoutMs ?? 60_000,
    pause: deps.pause,
  };
  const keepaliveMs = limits.streamKeepaliveMs ?? DEFAULT_KEEPALIVE_MS;
  return async (c) => {
    const sessionId = c.var.session!;
    const address = c.env.clientAddress;
    const admitNewTurn = admitFrom(address ? addressBucket(address) : undefined);
    /** Reads the body, runs the hop and holds the body's share of the memory budget until the hop is done. */
    const hop = async (events: HopEvents) => {
      const lease = bodyBudget.lease();
      try {
        // The hop's props cache, from the door on: the layout's validating walk fingerprints the page with it.
        const prints = new PropsPrints(deps.derivedOf);
        const { request, attachments, bytes, digest } = await inSpan('canvas_ai.door', () =>
          readHopRequest(c.req.raw, { ...door, allowance: lease, prints }),
        );
        // A small request's steps are small: they need not wait their turn.
        const pause = pauseFor(bytes, deps.pause);
        await encodeAttachments(attachments, pause);
        // The settings of now for a new turn; a turn in flight keeps its agent (runHop).
        const config = await live.current();
        const response = await runHop(
          { ...deps, config, admitNewTurn, pause },
          { sessionId, request, attachments, prints, digest },
          events,
        );
        await pause();
        return response;
      } finally {
        lease.release();
      }
    };
    // Asked for a stream (spec §6.1): refusals before the hop runs stay JSON errors (streamHop rejects with them).
    if (wantsStream(c.req.header('accept'))) return c.body(await streamHop(hop, { keepaliveMs }), 200, STREAM_HEADERS);
    return c.json(await hop(NO_HOP_EVENTS));
  };
}

/**
 * The static file answering a `GET` or `HEAD` outside `/api/`, marked for the static security headers, or undefined.
 * Copied, so the headers middleware can set its headers whatever made it (a `fetch` answer's headers are immutable).
 */
async function staticFile(files: StaticFiles | undefined, c: Context<AppEnv>): Promise<Response | undefined> {
  if (!files || (c.req.method !== 'GET' && c.req.method !== 'HEAD') || c.req.path.startsWith('/api/')) return undefined;
  const response = await files(c.req.raw);
  if (response === undefined) return undefined;
  c.set('staticFile', true);
  return new Response(response.body, response);
}

/** The `request_id` of the path, checked like the body's (an invalid one is 400 naming it). */
function pathRequestId(c: Context): string {
  const requestId = RequestId.safeParse(c.req.param('request_id'));
  if (!requestId.success) {
    throw new HopError('invalid_request', `request_id: ${requestId.error.issues[0]!.message}`, { field: 'request_id' });
  }
  return requestId.data;
}

/** The hop's own work around a model decision (store calls, tools, the prompt) may take this long on top of it. */
const LOCK_MARGIN_MS = 30_000;

/**
 * A turn's lock must outlast the longest model decision (spec §8): a hop still deciding when its lock expires finds
 * a retry of it running, and one of them is dropped. Refused at start-up, naming the settings to change.
 */
function checkLockOutlastsDecisions(provider: ModelProvider, lockMs: number): void {
  const decisionMs = provider.maxDecisionMs;
  if (decisionMs === undefined || decisionMs + LOCK_MARGIN_MS <= lockMs) return;
  const timeoutSetting =
    provider.name === 'anthropic' ? 'CANVAS_AI_ANTHROPIC_TIMEOUT_MS' : 'CANVAS_AI_OPENAI_TIMEOUT_MS';
  throw new ConfigError([
    `${timeoutSetting} (createApp provider): one model decision may take ${decisionMs} ms with its retries, ` +
      `more than the turn lock's ${lockMs} ms allow (${LOCK_MARGIN_MS} ms are kept for the rest of the hop). ` +
      'Lower the timeout or the retries, or raise ttl.lockMs.',
  ]);
}

/**
 * A catalog given to `createApp` as an object has not been through the catalog file's schema: a derived prop that is
 * required or has a default is refused here too, at start-up (spec §10.1).
 */
function checkDerivedProps(catalog: Catalog): void {
  const problems: string[] = [];
  for (const component of catalog.components ?? []) {
    for (const [name, prop] of Object.entries(component.props ?? {})) {
      for (const problem of derivedPropProblems(prop))
        problems.push(`createApp catalog: ${component.id}.props.${name}: ${problem}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

/** Methods that change nothing: no origin check (a cross-site page cannot read their answers). */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
