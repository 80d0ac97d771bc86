import { HopError } from '@canvas-ai/protocol/server';
import { jsonLength } from './store/json-length.js';
import { ledgerKey, parseTurnKey, type TurnKey, turnKey } from './store/keys.js';
import { LockLostError, type SetOptions, type TurnLock, type TurnStore } from './store/turn-store.js';

/**
 * What one session may hold in the turn store (spec §8.6). A session is free to make, so these bound one client only
 * together with the per-address bound on new sessions ({@link SessionMints}).
 */
export interface SessionQuota {
  /** Turns the session runs at once (started, not ended); 0: no limit. Default 32. */
  maxTurns: number;
  /**
   * Finished turns whose answer the session keeps for a replay; past it its oldest such answers are dropped (its own
   * replay windows end early; nobody else's turn is touched). Default 32.
   */
  maxFinished: number;
  /** Characters of stored JSON the session holds at once, attachments included; 0: no limit. Default 64 MiB. */
  maxBytes: number;
}

/** One turn a session holds: how large its stored record is and when it expires. */
interface LedgerEntry {
  bytes: number;
  expires_at: number;
  /** Only its final answer is kept, for a replay. */
  finished?: boolean;
}

/** A session's ledger, stored beside its turns so every instance sees it: request id → entry. */
interface Ledger {
  turns: Record<string, LedgerEntry>;
}

/** A ledger's lock is held this long at most: one read and one write. */
const LEDGER_LOCK_MS = 2_000;
/** How often, and how long apart, a ledger whose lock another instance holds is tried again. */
const LEDGER_TRIES = 40;
const LEDGER_RETRY_MS = 10;

/**
 * The turn store with a per-session ledger of what each session holds (spec §8.6): every save and delete of a turn
 * updates its session's ledger, and {@link QuotaStore.admit} refuses a *new* turn of a session that already holds
 * its share, with 429 `quota_exceeded` and a `Retry-After` of when its oldest turn expires, before any work is
 * spent on it. Another session's turns are never evicted to make room. A turn already running may finish (its
 * growth is bounded by `max_hops`), so a session holds at most its quota plus one turn.
 *
 * The ledger lives in the store under its {@link ledgerKey} (no turn key looks like it), updated under its
 * own lock, so several instances on one Redis keep one ledger.
 */
export class QuotaStore implements TurnStore {
  readonly #chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly inner: TurnStore,
    private readonly quota: SessionQuota,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): Promise<unknown> {
    return this.inner.get(key);
  }

  async set(key: string, value: unknown, ttlMs: number, options?: SetOptions): Promise<void> {
    await this.inner.set(key, value, ttlMs, options);
    const turn = parseTurnKey(key);
    if (!turn || !this.#enabled()) return;
    const bytes = jsonLength(value);
    const expires = this.now() + ttlMs;
    const finished = (value as { kind?: unknown } | null)?.kind === 'finished';
    const dropped: string[] = [];
    await this.#update(turn.sessionId, (ledger) => {
      ledger.turns[turn.requestId] = finished
        ? { bytes, expires_at: expires, finished }
        : { bytes, expires_at: expires };
      const answers = Object.entries(ledger.turns).filter(([, entry]) => entry.finished);
      if (this.quota.maxFinished <= 0 || answers.length <= this.quota.maxFinished) return;
      answers.sort(([, a], [, b]) => a.expires_at - b.expires_at);
      for (const [id] of answers.slice(0, answers.length - this.quota.maxFinished)) {
        delete ledger.turns[id];
        dropped.push(id);
      }
    });
    for (const id of dropped) await this.inner.delete(turnKey(turn.sessionId, id));
  }

  async delete(key: string): Promise<void> {
    await this.inner.delete(key);
    const turn = parseTurnKey(key);
    if (!turn || !this.#enabled()) return;
    await this.#update(turn.sessionId, (ledger) => {
      delete ledger.turns[turn.requestId];
    });
  }

  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(key, ttlMs);
  }

  /**
   * Lets hop 1 of a turn through only when its session has room: fewer turns than `maxTurns` and fewer stored
   * characters than `maxBytes`; then the turn is counted at once (while it runs, for at most `runningMs`), so
   * concurrent new turns of one session cannot all pass. A turn the session already holds (a later hop, a retry)
   * always passes.
   */
  async admit(key: TurnKey, runningMs: number, requestId: string): Promise<void> {
    const turn = parseTurnKey(key);
    if (!turn || !this.#enabled()) return;
    let refusal: HopError | undefined;
    await this.#update(turn.sessionId, (ledger, now) => {
      if (ledger.turns[turn.requestId]) return;
      const entries = Object.values(ledger.turns);
      const running = entries.filter((entry) => !entry.finished);
      const bytes = entries.reduce((sum, entry) => sum + entry.bytes, 0);
      const overTurns = this.quota.maxTurns > 0 && running.length >= this.quota.maxTurns;
      const overBytes = this.quota.maxBytes > 0 && bytes >= this.quota.maxBytes;
      if (overTurns || overBytes) {
        const soonest = Math.min(...(overTurns ? running : entries).map((entry) => entry.expires_at));
        refusal = new HopError(
          'quota_exceeded',
          overTurns
            ? `This session already runs ${running.length} turns, the most it may; one frees up when it ends or expires.`
            : 'This session already holds as much stored data (attachments included) as it may; it frees up as its turns end.',
          { requestId, retryAfterSeconds: Math.max(1, Math.ceil((soonest - now) / 1000)) },
        );
        return;
      }
      ledger.turns[turn.requestId] = { bytes: 0, expires_at: now + runningMs };
    });
    if (refusal) throw refusal;
  }

  #enabled(): boolean {
    return this.quota.maxTurns > 0 || this.quota.maxBytes > 0 || this.quota.maxFinished > 0;
  }

  /**
   * Reads, changes and writes a session's ledger (expired entries dropped) one change at a time: in this process by
   * a promise chain per ledger, across instances by the ledger's lock in the store. A lock that stays busy is waited
   * for a little, then the change goes ahead without it: a quota is a bound, not a consensus.
   */
  #update(session: string, change: (ledger: Ledger, now: number) => void): Promise<void> {
    const key = ledgerKey(session);
    const previous = this.#chains.get(key) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        let lock: TurnLock | undefined;
        for (let attempt = 0; attempt < LEDGER_TRIES && !lock; attempt += 1) {
          lock = await this.inner.lock(key, LEDGER_LOCK_MS);
          if (!lock) await new Promise((resolve) => setTimeout(resolve, LEDGER_RETRY_MS));
        }
        try {
          const now = this.now();
          const stored = (await this.inner.get(key)) as Ledger | undefined;
          const ledger: Ledger = { turns: {} };
          for (const [id, entry] of Object.entries(stored?.turns ?? {})) {
            if (entry.expires_at > now) ledger.turns[id] = entry;
          }
          change(ledger, now);
          const entries = Object.values(ledger.turns);
          if (entries.length === 0) {
            await this.inner.delete(key);
            return;
          }
          const latest = Math.max(...entries.map((entry) => entry.expires_at));
          await this.inner.set(key, ledger, Math.max(1, latest - now), lock ? { fence: lock } : undefined);
        } catch (error) {
          // Another instance took the ledger over after its lock expired: its change stands.
          if (!(error instanceof LockLostError)) throw error;
        } finally {
          await lock?.release().catch(() => undefined);
        }
      });
    this.#chains.set(key, next);
    void next.finally(() => {
      if (this.#chains.get(key) === next) this.#chains.delete(key);
    });
    return next;
  }
}

/**
 * New sessions minted for one client address within a window (spec §8.6): without a bound, a client makes as many
 * sessions as it likes and each has a full quota. In this process only (each instance counts its own); 0: no limit.
 * Behind a reverse proxy every client has the proxy's address: turn it off there and let the proxy limit clients.
 */
export class SessionMints {
  readonly #minted = new Map<string, number[]>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a new session for `address`, or throws 429 `quota_exceeded` when it has minted its share. */
  take(address: string | undefined): void {
    if (this.max <= 0 || !address) return;
    const now = this.now();
    const recent = (this.#minted.get(address) ?? []).filter((at) => at > now - this.windowMs);
    if (recent.length >= this.max) {
      this.#minted.set(address, recent);
      throw new HopError(
        'quota_exceeded',
        'Too many new sessions from this address; keep the cookie of the one you have, or try again later.',
        { retryAfterSeconds: Math.max(1, Math.ceil((recent[0]! + this.windowMs - now) / 1000)) },
      );
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
