import { toBase64Url } from './base64.js';

/** The session cookie: HttpOnly, SameSite=Lax, random id. Turn keys and CSRF tokens are scoped to it. */
export const SESSION_COOKIE = 'canvas_ai_session';

/** A session id as the server mints them: 32 random bytes, base64url. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** A fresh random session id. */
export function newSessionId(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Whether a cookie value has the shape of a session id this server minted (it ends up in store keys). */
export function isSessionId(value: string | undefined): value is string {
  return value !== undefined && SESSION_ID.test(value);
}

/** The `Set-Cookie` value of a new session. `secure` adds `Secure` (serve over HTTPS in production). */
export function sessionCookie(sessionId: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${sessionId}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
