import { ConfigError } from './config-error.js';
import { toBase64Url } from './base64.js';

const encoder = new TextEncoder();

/**
 * HMAC-SHA256 with the server secret, web crypto only (the handler runs in any runtime). Every use signs its own
 * kind of message (`session:…`, `csrf:…`), so a signature of one kind is worthless as another.
 */
export class Signer {
  readonly #key: Promise<CryptoKey>;
  /** Pairs already verified, so the hops of one session do not sign its cookie and token again each time. */
  readonly #verified = new Set<string>();

  constructor(secret: string | Uint8Array) {
    const bytes = typeof secret === 'string' ? encoder.encode(secret) : new Uint8Array(secret);
    if (bytes.length < 16) {
      throw new ConfigError([
        `CANVAS_AI_SECRET (createApp security.secret): ${bytes.length} bytes; the CSRF secret must be at least 16 bytes. ` +
          'Set a longer random secret, the same on every instance.',
      ]);
    }
    this.#key = crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  /** The signature of `message`, unpadded base64url. */
  async sign(message: string): Promise<string> {
    return toBase64Url(new Uint8Array(await crypto.subtle.sign('HMAC', await this.#key, encoder.encode(message))));
  }

  /** Whether `signature` is the signature of `message` (compared in constant time). */
  async verify(message: string, signature: string | undefined): Promise<boolean> {
    if (!signature) return false;
    // Only pairs that verified are kept: a hit tells nothing to someone who does not already hold the signature.
    const pair = `${message}\n${signature}`;
    if (this.#verified.has(pair)) return true;
    const valid = constantTimeEqual(await this.sign(message), signature);
    if (valid) {
      if (this.#verified.size >= VERIFIED_KEPT) this.#verified.delete(this.#verified.values().next().value!);
      this.#verified.add(pair);
    }
    return valid;
  }
}

/** Verified pairs kept at most (the oldest goes first). */
const VERIFIED_KEPT = 10_000;

/** Compares two strings without an early exit, so timing does not reveal how much of a guess was right. */
function constantTimeEqual(a: string, b: string): boolean {
  // The length is not secret: every signature has the same one.
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
