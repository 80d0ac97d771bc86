/**
 * CSRF tokens bound to the session and to the time they were issued (spec §4.2): `<issued>.<signature>`, the
 * signature an HMAC of the session id and the issue time with the server secret. A token of another session, or one
 * older than its lifetime, is worthless.
 */
import { Signer } from './signer.js';

/** How {@link CsrfTokens} dates its tokens. */
export interface CsrfTokenOptions {
  /** How long a token is accepted after it was issued, in milliseconds. Default 12 hours. */
  ttlMs?: number;
  /** The clock, in milliseconds; tests pass their own. */
  now?: () => number;
}

/** A token's issue time may lie this far in the future (another instance's clock running ahead). */
const CLOCK_SKEW_MS = 60_000;

/** Issues and checks CSRF tokens for one server secret. */
export class CsrfTokens {
  readonly #signer: Signer;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(secret: string | Uint8Array | Signer, options: CsrfTokenOptions = {}) {
    this.#signer = secret instanceof Signer ? secret : new Signer(secret);
    this.#ttlMs = options.ttlMs ?? 12 * 3_600_000;
    this.#now = options.now ?? Date.now;
  }

  /** A fresh token of a session, dated now. */
  async tokenFor(sessionId: string): Promise<string> {
    const issued = Math.floor(this.#now() / 1000).toString(36);
    return `${issued}.${await this.#signer.sign(`csrf:${sessionId}:${issued}`)}`;
  }

  /** Whether `token` is a token this server issued for this session within its lifetime. */
  async verify(sessionId: string, token: string | undefined): Promise<boolean> {
    const match = token === undefined ? null : /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match) return false;
    const issuedMs = Number.parseInt(match[1]!, 36) * 1000;
    const age = this.#now() - issuedMs;
    if (age > this.#ttlMs || age < -CLOCK_SKEW_MS) return false;
    return this.#signer.verify(`csrf:${sessionId}:${match[1]}`, match[2]);
  }
}
