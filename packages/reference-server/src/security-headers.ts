/**
 * The headers every response carries (spec §4.5): no MIME sniffing, no referrer beyond the origin, no framing by
 * another site. Static files (a host page such as the demo editor) get a content security policy that keeps
 * scripts, styles, images and requests on the page's own origin; protocol responses, which are JSON, one that
 * allows nothing at all.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';

/**
 * The default policy of static files: scripts and requests from the origin only, images from it and from
 * `data:`/`blob:` URLs (an attached photo the page shows), inline styles (components set them), no plugins, no
 * framing by other sites. A model-chosen image on another host is not loaded.
 */
export const DEFAULT_STATIC_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; " +
  "frame-ancestors 'self'";

/** The policy of JSON responses: a body that is data, never a document. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Middleware that sets the security headers once the routes are done (as hono's secure-headers does), on every
 * answer, errors included: the static kind when a static file answered (`c.var.staticFile`), else the API's. Set
 * inside Hono, so the answer Hono makes of a `GET` for a `HEAD` carries them too.
 */
export function securityHeaders(staticPolicy: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const isStatic = c.get('staticFile') === true;
    const headers = c.res.headers;
    headers.set('X-Content-Type-Options', 'nosniff');
    headers.set('Referrer-Policy', 'same-origin');
    headers.set('X-Frame-Options', isStatic ? 'SAMEORIGIN' : 'DENY');
    headers.set('Content-Security-Policy', isStatic ? staticPolicy : API_CSP);
  };
}
