/**
 * CORS for host pages on another origin (spec §4.6): preflights answered for the listed origins only, and every
 * answer to a listed origin carrying the grant, errors included, so the page can read why a request failed.
 */
import { CSRF_HEADER } from '@canvas-ai/protocol';
import type { MiddlewareHandler } from 'hono';
import { endpointAt } from './endpoints.js';

/**
 * The request headers a page may send: the body's type, the CSRF token, and W3C trace context (a host that traces
 * its pages sends `traceparent` with every fetch; refusing it would fail the preflight for no reason).
 */
const ALLOWED_REQUEST_HEADERS = ['Content-Type', CSRF_HEADER, 'traceparent', 'tracestate'].join(', ');

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;

/** The listed origins, normalized as `URL.origin` writes them; entries that are no origin are dropped. */
export function listedOrigins(entries: readonly string[]): ReadonlySet<string> {
  const origins = new Set<string>();
  for (const entry of entries) {
    try {
      const origin = new URL(entry).origin;
      if (origin !== 'null') origins.add(origin);
    } catch {
      // not a URL: never an origin a browser sends
    }
  }
  return origins;
}

/** The endpoint's methods as `Access-Control-Allow-Methods` lists them, or undefined for a path that is not one. */
export function endpointMethods(pathname: string): string | undefined {
  return endpointAt(pathname)?.methods.join(', ');
}

/** Whether a request is a CORS preflight (spec §4.6): `OPTIONS` with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(request: Request): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.has('origin') &&
    request.headers.has('access-control-request-method')
  );
}

/** The headers that grant `origin` a response: the origin itself (never `*`), with credentials. */
function grantHeaders(origin: string): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Expose-Headers': 'Retry-After',
  };
}

/** The 204 answer to a listed origin's preflight of an endpoint with `methods`. */
export function preflightResponse(origin: string, methods: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...grantHeaders(origin),
      'Access-Control-Allow-Methods': methods,
      'Access-Control-Allow-Headers': ALLOWED_REQUEST_HEADERS,
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_S),
      Vary: 'Origin',
    },
  });
}

/**
 * Middleware that grants every answer to a listed origin once the routes are done, errors and 404s included. With
 * origins listed, every answer also says `Vary: Origin`, granted or not, so a shared cache never hands one origin's
 * variant to another (a listed page's read would fail on the ungranted one).
 */
export function corsGrants(origins: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (origins.size === 0) return;
    const headers = c.res.headers;
    addVaryOrigin(headers);
    const origin = c.req.header('origin');
    if (origin === undefined || !origins.has(origin) || headers.has('access-control-allow-origin')) return;
    for (const [name, value] of Object.entries(grantHeaders(origin))) headers.set(name, value);
  };
}

/** Adds `Origin` to `Vary`, keeping what it names already (a static file's `Accept-Encoding`, say). */
function addVaryOrigin(headers: Headers): void {
  const vary = headers.get('vary');
  if (vary === null) headers.set('Vary', 'Origin');
  else if (!vary.split(',').some((name) => ['origin', '*'].includes(name.trim().toLowerCase()))) {
    headers.set('Vary', `${vary}, Origin`);
  }
}
