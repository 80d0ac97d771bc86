import { CSRF_HEADER } from '@canvas-ai/protocol';
import { HopError } from '@canvas-ai/protocol/server';
import type { Context, MiddlewareHandler } from 'hono';
import { setCookie } from 'hono/cookie';
import type { AppEnv } from './app-env.js';
import { toBase64Url } from './base64.js';
import type { CsrfTokens } from './csrf.js';
import type { Signer } from './signer.js';

/** The session cookie's name before its prefix: `__Host-` is added when Secure, so no subdomain can set it. */
const COOKIE_NAME = 'canvas_ai_session';

/** A session id as the server mints them: 32 random bytes, base64url (it ends up in store keys: no `:` or `/`). */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Sessions the server mints and signs (spec §4.2): the cookie holds `<id>.<signature>`, so a value nobody signed (a
 * planted cookie fixing a victim's session) is no session at all. The id alone scopes turn keys and CSRF tokens.
 */
export class Sessions {
  /** The cookie's full name: `__Host-canvas_ai_session` when Secure, else `canvas_ai_session`. */
  readonly cookieName: string;

  private readonly secure: boolean;
  private readonly sameSite: 'Lax' | 'None';

  constructor(
    private readonly signer: Signer,
    cookie: { secure: boolean; sameSite: 'Lax' | 'None' },
  ) {
    this.secure = cookie.secure;
    this.sameSite = cookie.sameSite;
    this.cookieName = cookie.secure ? `__Host-${COOKIE_NAME}` : COOKIE_NAME;
  }

  /** A new session: its id and the cookie value that carries it (`<id>.<signature>`). */
  async mint(): Promise<{ id: string; value: string }> {
    const id = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
    return { id, value: `${id}.${await this.signer.sign(`session:${id}`)}` };
  }

  /**
   * Sets the session cookie on the response: `Path=/`, HttpOnly, SameSite=Lax (or None for host pages on another
   * site, spec §4.6), and Secure with the `__Host-` prefix over HTTPS.
   */
  setCookie(c: Context, value: string): void {
    setCookie(c, COOKIE_NAME, value, {
      path: '/',
      httpOnly: true,
      sameSite: this.sameSite,
      ...(this.secure ? { secure: true, prefix: 'host' as const } : {}),
    });
  }

  /** The session id of a cookie value this server signed, or undefined for any other value. */
  async read(value: string | undefined): Promise<string | undefined> {
    if (value === undefined) return undefined;
    const dot = value.indexOf('.');
    const id = value.slice(0, dot);
    if (dot < 0 || !SESSION_ID.test(id)) return undefined;
    return (await this.signer.verify(`session:${id}`, value.slice(dot + 1))) ? id : undefined;
  }

  /**
   * The value of the request's one session cookie, or undefined without one. Two or more are refused (403
   * `csrf_invalid`): cookies ignore ports, so a page on another port of this host can plant a second, signed one for
   * a narrower path, which the browser sends first (cookie tossing); neither can be trusted to be the person's.
   */
  cookieValue(cookieHeader: string | undefined): string | undefined {
    if (cookieHeader === undefined) return undefined;
    const values: string[] = [];
    for (const pair of cookieHeader.split(';')) {
      const equals = pair.indexOf('=');
      if (equals > 0 && pair.slice(0, equals).trim() === this.cookieName) {
        // A quoted value is the value inside the quotes (RFC 6265's cookie-value), as Hono's getCookie reads it.
        values.push(
          pair
            .slice(equals + 1)
            .trim()
            .replace(/^"(.*)"$/, '$1'),
        );
      }
    }
    if (values.length > 1) {
      throw new HopError(
        'csrf_invalid',
        `This request carries ${values.length} ${this.cookieName} cookies; another site on this host may have planted ` +
          "one. Clear this site's cookies and reload the page.",
      );
    }
    return values[0];
  }
}

/** How {@link sessionMiddleware} finds, checks and mints sessions. */
export interface SessionMiddlewareOptions {
  sessions: Sessions;
  tokens: CsrfTokens;
  /** Checks the CSRF token of state-changing requests; off, a request without a session gets a new one. */
  csrf: boolean;
  /** The deployment's own session ids (createApp's `security.sessionId`); none are minted then. */
  sessionId: ((request: Request) => string | undefined | Promise<string | undefined>) | undefined;
  /** Counts a new session for the client's address (throws 429 past its share). */
  beforeMint: (clientAddress: string | undefined) => void;
}

/** The session as Hono middleware: read once into `c.var.session`, then checked or minted as each route needs. */
export function sessionMiddleware(options: SessionMiddlewareOptions): {
  /** Reads the caller's session, if any. */
  read: MiddlewareHandler<AppEnv>;
  /** A state-changing request's session, CSRF-checked (spec §4.2); minted here when CSRF is off and there is none. */
  require: MiddlewareHandler<AppEnv>;
  /** The session of `GET /api/token`: the request's, or a new one (any cookie this server did not sign gets one). */
  orMint: MiddlewareHandler<AppEnv>;
} {
  const { sessions, tokens, sessionId } = options;
  const mint = async (c: Context<AppEnv>): Promise<string> => {
    options.beforeMint(c.env.clientAddress);
    const minted = await sessions.mint();
    sessions.setCookie(c, minted.value);
    return minted.id;
  };
  return {
    read: async (c, next) => {
      const cookie = () => sessions.read(sessions.cookieValue(c.req.header('cookie')));
      c.set('session', sessionId ? await sessionId(c.req.raw) : await cookie());
      await next();
    },
    require: async (c, next) => {
      let id = c.var.session;
      if (sessionId && !id) throw noSession();
      if (!id && !options.csrf) id = await mint(c);
      if (options.csrf && !(id && (await tokens.verify(id, c.req.header(CSRF_HEADER))))) throw csrfError();
      c.set('session', id);
      await next();
    },
    orMint: async (c, next) => {
      if (!sessionId && !c.var.session) c.set('session', await mint(c));
      if (!c.var.session) throw noSession();
      await next();
    },
  };
}

function noSession(): HopError {
  return new HopError('csrf_invalid', 'No session: sign in first.');
}

function csrfError(): HopError {
  return new HopError(
    'csrf_invalid',
    `Missing or wrong ${CSRF_HEADER} header: GET /api/token with this session's cookie and send the token it returns.`,
  );
}
