/**
 * CSRF tokens bound to the session (HMAC-SHA256 of the session id with a server secret), with web crypto only, so
 * the handler runs in any runtime. A token from one session is worthless in another.
 */

import { ConfigError } from './agents/config-error.js';
import { toBase64Url } from './base64.js';

const encoder = new TextEncoder();

/** Signs and checks CSRF tokens for one server secret. */
export class CsrfTokens {
  readonly #key: Promise<CryptoKey>;

  constructor(secret: string | Uint8Array) {
    const bytes = typeof secret === 'string' ? encoder.encode(secret) : new Uint8Array(secret);
    if (bytes.length < 16) {
      throw new ConfigError([
        `CANVAS_AI_SECRET (createApp csrfSecret): ${bytes.length} bytes; the CSRF secret must be at least 16 bytes. ` +
          'Set a longer random secret, the same on every instance.',
      ]);
    }
    this.#key = crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  /** The token of a session. */
  async tokenFor(sessionId: string): Promise<string> {
    const signature = await crypto.subtle.sign('HMAC', await this.#key, encoder.encode(`csrf:${sessionId}`));
    return toBase64Url(new Uint8Array(signature));
  }

  /** Whether `token` is this session's token (constant-time comparison). */
  async verify(sessionId: string, token: string | undefined): Promise<boolean> {
    if (!token) return false;
    return constantTimeEqual(await this.tokenFor(sessionId), token);
  }
}

/** Compares two strings without an early exit, so timing does not reveal how much of a guess was right. */
function constantTimeEqual(a: string, b: string): boolean {
  // The length is not secret: every token has the same one.
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
