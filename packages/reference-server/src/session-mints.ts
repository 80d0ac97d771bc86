import { HopError } from '@canvas-ai/protocol/server';

/**
 * New sessions minted for one client address (its `addressBucket`) within a window (spec §8.8): without a bound, a
 * client makes as many sessions as it likes. In this process only (each instance counts its own); 0: no limit.
 * Behind a reverse proxy every connection is the proxy's: name the header it writes the client's address in
 * (`startServer`'s `clientAddressHeader`), or turn this off and let the proxy limit clients.
 */
export class SessionMints {
  readonly #minted = new Map<string, number[]>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
    /** The 429's message (the admin surface counts its requests with this class too). */
    private readonly refusal = 'Too many new sessions from this address; keep the cookie of the one you have, or try again later.',
  ) {}

  /** Counts a new session for `address`, or throws 429 `quota_exceeded` when it has minted its share. */
  take(address: string | undefined): void {
    if (this.max <= 0 || !address) return;
    const now = this.now();
    const recent = (this.#minted.get(address) ?? []).filter((at) => at > now - this.windowMs);
    if (recent.length >= this.max) {
      this.#minted.set(address, recent);
      throw new HopError('quota_exceeded', this.refusal, {
        retryAfterSeconds: Math.max(1, Math.ceil((recent[0]! + this.windowMs - now) / 1000)),
      });
    }
    recent.push(now);
    this.#minted.set(address, recent);
    // Addresses that minted nothing for a whole window are forgotten, so the map stays as small as the traffic.
    if (this.#minted.size > 10_000) {
      for (const [other, times] of this.#minted)
        if (times.every((at) => at <= now - this.windowMs)) this.#minted.delete(other);
    }
  }
}
