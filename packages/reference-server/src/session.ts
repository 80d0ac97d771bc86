import { toBase64Url } from './base64.js';
import type { Signer } from './signer.js';

/** The session cookie's name: `__Host-` prefixed when Secure, so no subdomain can set or overwrite it. */
function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-canvas_ai_session' : 'canvas_ai_session';
}

/** A session id as the server mints them: 32 random bytes, base64url (it ends up in store keys: no `:` or `/`). */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Sessions the server mints and signs (spec §4.2): the cookie holds `<id>.<signature>`, so a value nobody signed (a
 * planted cookie fixing a victim's session) is no session at all. The id alone scopes turn keys and CSRF tokens.
 */
export class Sessions {
  readonly cookieName: string;

  private readonly secure: boolean;
  private readonly sameSite: 'Lax' | 'None';

  constructor(
    private readonly signer: Signer,
    cookie: { secure: boolean; sameSite: 'Lax' | 'None' },
  ) {
    this.secure = cookie.secure;
    this.sameSite = cookie.sameSite;
    this.cookieName = sessionCookieName(cookie.secure);
  }

  /**
   * A new session: its id and the `Set-Cookie` value that carries it (HttpOnly, Secure over HTTPS, SameSite=Lax, or
   * None for host pages on another site, spec §4.6).
   */
  async mint(): Promise<{ id: string; setCookie: string }> {
    const id = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
    const value = `${id}.${await this.signer.sign(`session:${id}`)}`;
    const attributes = `Path=/; HttpOnly; SameSite=${this.sameSite}${this.secure ? '; Secure' : ''}`;
    return { id, setCookie: `${this.cookieName}=${value}; ${attributes}` };
  }

  /** The session id of a cookie value this server signed, or undefined for any other value. */
  async read(value: string | undefined): Promise<string | undefined> {
    if (value === undefined) return undefined;
    const dot = value.indexOf('.');
    const id = value.slice(0, dot);
    if (dot < 0 || !SESSION_ID.test(id)) return undefined;
    return (await this.signer.verify(`session:${id}`, value.slice(dot + 1))) ? id : undefined;
  }
}
