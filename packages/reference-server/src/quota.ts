import { HopError } from '@canvas-ai/protocol/server';
import { jsonLength } from './store/json-length.js';
import { storedPageChars } from './stored-pages.js';
import { addressLedgerKey, ledgerKey, parseTurnKey, type TurnKey, turnKey } from './store/keys.js';
import { LockLostError, type SetOptions, type TurnLock, type TurnStore } from './store/turn-store.js';

/**
 * What one session may hold in the turn store (spec §8.8). A session is free to make, so these bound one client only
 * together with the bounds of its address ({@link AddressQuota}, {@link SessionMints}).
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

/**
 * What the sessions of one client address (its `addressBucket`: an IPv6 /64) may hold together (spec §8.8), so that
 * opening more sessions gives a client no more of the store.
 */
export interface AddressQuota {
  /** Turns the address's sessions run at once; 0: no limit. Default 64. */
  maxTurns: number;
  /** Characters of stored JSON its sessions hold at once, attachments included; 0: no limit. Default 256 MiB. */
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
  /** The bucket of the address its latest new turn came from: whose {@link AddressLedger} counts this session. */
  address?: string;
}

/** What one session holds, as its address's ledger counts it. */
interface SessionSummary {
  running: number;
  bytes: number;
  /** When its last turn expires (the summary goes with it). */
  expires_at: number;
  /** When its first turn expires: the soonest the address gets room back without a turn ending. */
  next_free: number;
}

/** An address's ledger: escaped session id → what that session holds. */
interface AddressLedger {
  sessions: Record<string, SessionSummary>;
}

/** A ledger's lock is held this long at most: one read and one write. */
const LEDGER_LOCK_MS = 2_000;
/** How often, and how long apart, a ledger whose lock another instance holds is tried again. */
const LEDGER_TRIES = 40;
const LEDGER_RETRY_MS = 10;
/**
 * The `Retry-After` of a full store: room comes back as turns end (seconds to minutes) or expire, which no instance
 * can foresee, so a client is asked to come back at a modest pace.
 */
const STORE_FULL_RETRY_AFTER_SECONDS = 30;

/**
 * The turn store with ledgers of what each session and each client address holds (spec §8.8): every save and delete
 * of a turn updates its session's ledger and that session's line in its address's ledger, and
 * {@link QuotaStore.admit} refuses a *new* turn, before any work is spent on it, when the store is full (503
 * `server_busy`) or the session or its address already holds its share (429 `quota_exceeded`), each with a
 * `Retry-After`. Nothing held is ever evicted to make room. A turn already running may finish (its growth is bounded
 * by `max_hops`), so a session holds at most its quota plus one turn.
 *
 * The ledgers live in the store under their own keys (`keys.ts`; no turn key looks like them), each updated under
 * its own lock, so several instances on one Redis keep one ledger.
 */
export class QuotaStore implements TurnStore {
  readonly #chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly inner: TurnStore,
    private readonly quota: SessionQuota,
    private readonly addressQuota: AddressQuota = { maxTurns: 0, maxBytes: 0 },
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): Promise<unknown> {
    return this.inner.get(key);
  }

  async set(key: string, value: unknown, ttlMs: number, options?: SetOptions): Promise<void> {
    await this.inner.set(key, value, ttlMs, options);
    const turn = parseTurnKey(key);
    if (!turn || !this.#enabled()) return;
    // The notices a turn keeps under keys of its own count as the turn's (stored-pages.ts).
    const bytes = jsonLength(value) + storedPageChars(value);
    const expires = this.now() + ttlMs;
    const finished = (value as { kind?: unknown } | null)?.kind === 'finished';
    const dropped: string[] = [];
    const ledger = await this.#updateSession(turn.sessionId, (ledger) => {
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
    await this.#countForAddress(turn.sessionId, ledger);
  }

  async delete(key: string): Promise<void> {
    await this.inner.delete(key);
    const turn = parseTurnKey(key);
    if (!turn || !this.#enabled()) return;
    const ledger = await this.#updateSession(turn.sessionId, (ledger) => {
      delete ledger.turns[turn.requestId];
    });
    await this.#countForAddress(turn.sessionId, ledger);
  }

  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(key, ttlMs);
  }

  /**
   * Lets hop 1 of a turn through only when there is room: the store is not full, and neither the session nor its
   * client address (`address`, an `addressBucket`; undefined: not known, not counted) runs as many turns or holds as
   * many stored characters as it may. Then the turn is counted at once (while it runs, for at most `runningMs`), so
   * concurrent new turns cannot all pass. A turn the session already holds (a later hop, a retry) always passes.
   */
  async admit(key: TurnKey, runningMs: number, requestId: string, address?: string): Promise<void> {
    if ((await this.inner.usage?.())?.full) {
      throw new HopError(
        'server_busy',
        'The server holds as much turn data as it may; new turns start again as running ones end. Try again later.',
        { requestId, retryAfterSeconds: STORE_FULL_RETRY_AFTER_SECONDS },
      );
    }
    const turn = parseTurnKey(key);
    if (!turn || !this.#enabled()) return;
    let refusal: HopError | undefined;
    let counted = false;
    const ledger = await this.#updateSession(turn.sessionId, (ledger, now) => {
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
          { requestId, retryAfterSeconds: retryAfter(soonest, now) },
        );
        return;
      }
      ledger.turns[turn.requestId] = { bytes: 0, expires_at: now + runningMs };
      if (address !== undefined) ledger.address = address;
      counted = true;
    });
    if (refusal) throw refusal;
    if (!counted || !ledger) return;
    const addressRefusal = await this.#countForAddress(turn.sessionId, ledger, requestId);
    if (!addressRefusal) return;
    // Its address has no room: the turn was never counted for the session either.
    const after = await this.#updateSession(turn.sessionId, (ledger) => {
      delete ledger.turns[turn.requestId];
    });
    await this.#countForAddress(turn.sessionId, after);
    throw addressRefusal;
  }

  #enabled(): boolean {
    return (
      this.quota.maxTurns > 0 ||
      this.quota.maxBytes > 0 ||
      this.quota.maxFinished > 0 ||
      this.addressQuota.maxTurns > 0 ||
      this.addressQuota.maxBytes > 0
    );
  }

  /**
   * Writes what the session holds now into its address's ledger. With `admitting` (the request id of a new turn the
   * session's ledger just counted), first checks that the address has room for it, and answers the refusal instead
   * of writing when it has not.
   */
  async #countForAddress(
    sessionId: string,
    ledger: Ledger | undefined,
    admitting?: string,
  ): Promise<HopError | undefined> {
    const address = ledger?.address;
    if (!ledger || address === undefined) return;
    if (this.addressQuota.maxTurns <= 0 && this.addressQuota.maxBytes <= 0) return;
    const line = summarize(ledger);
    let refusal: HopError | undefined;
    await this.#withLedger<AddressLedger>(
      addressLedgerKey(address),
      (stored, now) => ({ sessions: unexpired((stored as AddressLedger | undefined)?.sessions, now) }),
      (held, now) => {
        const session = encodeURIComponent(sessionId);
        if (admitting !== undefined) {
          const others = Object.entries(held.sessions)
            .filter(([id]) => id !== session)
            .map(([, line]) => line);
          const running = others.reduce((sum, other) => sum + other.running, 0) + (line?.running ?? 0) - 1;
          const bytes = others.reduce((sum, other) => sum + other.bytes, 0) + (line?.bytes ?? 0);
          const overTurns = this.addressQuota.maxTurns > 0 && running >= this.addressQuota.maxTurns;
          const overBytes = this.addressQuota.maxBytes > 0 && bytes >= this.addressQuota.maxBytes;
          if (overTurns || overBytes) {
            const soonest = Math.min(...others.map((other) => other.next_free), line?.next_free ?? Infinity);
            refusal = new HopError(
              'quota_exceeded',
              overTurns
                ? `The sessions of this client address already run ${running} turns, the most they may; one frees up when it ends or expires.`
                : 'The sessions of this client address already hold as much stored data (attachments included) as they may; it frees up as their turns end.',
              { requestId: admitting, retryAfterSeconds: retryAfter(soonest, now) },
            );
            return;
          }
        }
        if (line) held.sessions[session] = line;
        else delete held.sessions[session];
      },
      (held) => latest(Object.values(held.sessions)),
    );
    return refusal;
  }

  /** Reads, changes and writes a session's ledger (expired entries dropped); resolves what it holds after. */
  #updateSession(sessionId: string, change: (ledger: Ledger, now: number) => void): Promise<Ledger | undefined> {
    return this.#withLedger<Ledger>(
      ledgerKey(sessionId),
      (stored, now) => {
        const ledger = stored as Ledger | undefined;
        return {
          turns: unexpired(ledger?.turns, now),
          ...(ledger?.address === undefined ? {} : { address: ledger.address }),
        };
      },
      change,
      (ledger) => latest(Object.values(ledger.turns)),
    );
  }

  /**
   * Reads, changes and writes one ledger one change at a time: in this process by a promise chain per ledger,
   * across instances by the ledger's lock in the store. A lock that stays busy is waited for a little, then the
   * change goes ahead without it: a quota is a bound, not a consensus. A ledger that holds nothing unexpired is
   * deleted (`expiresAt` undefined); it lives until its last entry expires. Resolves the ledger as written, or
   * undefined when another instance's change won.
   */
  #withLedger<L>(
    key: string,
    read: (stored: unknown, now: number) => L,
    change: (ledger: L, now: number) => void,
    expiresAt: (ledger: L) => number | undefined,
  ): Promise<L | undefined> {
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
          const ledger = read(await this.inner.get(key), now);
          change(ledger, now);
          const until = expiresAt(ledger);
          if (until === undefined) {
            await this.inner.delete(key);
            return ledger;
          }
          await this.inner.set(key, ledger, Math.max(1, until - now), lock ? { fence: lock } : undefined);
          return ledger;
        } catch (error) {
          // Another instance took the ledger over after its lock expired: its change stands.
          if (!(error instanceof LockLostError)) throw error;
          return undefined;
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

/** The entries of a stored ledger that have not expired. */
function unexpired<E extends { expires_at: number }>(
  entries: Record<string, E> | undefined,
  now: number,
): Record<string, E> {
  const kept: Record<string, E> = {};
  for (const [id, entry] of Object.entries(entries ?? {})) if (entry.expires_at > now) kept[id] = entry;
  return kept;
}

/** When the last of `entries` expires; undefined when there are none. */
function latest(entries: readonly { expires_at: number }[]): number | undefined {
  return entries.length === 0 ? undefined : Math.max(...entries.map((entry) => entry.expires_at));
}

/** What a session's ledger holds, as one line of its address's ledger; undefined when it holds nothing. */
function summarize(ledger: Ledger): SessionSummary | undefined {
  const entries = Object.values(ledger.turns);
  const until = latest(entries);
  if (until === undefined) return undefined;
  return {
    running: entries.filter((entry) => !entry.finished).length,
    bytes: entries.reduce((sum, entry) => sum + entry.bytes, 0),
    expires_at: until,
    next_free: Math.min(...entries.map((entry) => entry.expires_at)),
  };
}

/** Whole seconds until `at`, at least 1. */
function retryAfter(at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}
