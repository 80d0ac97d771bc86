import { jsonLength } from './json-length.js';
import { LockLostError, type SetOptions, type StoreUsage, type TurnLock, type TurnStore } from './turn-store.js';

/** Bounds and clock of a {@link MemoryTurnStore}. */
export interface MemoryTurnStoreOptions {
  /**
   * Values held at once past which the store is full ({@link MemoryTurnStore.usage}): `createApp` starts no new turn
   * then (503 `server_busy`). Nothing held is evicted for room. Default 10,000.
   */
  maxEntries?: number;
  /** Characters of serialized JSON held at once past which the store is full (attachments make turns large). Default 512 Mi. */
  maxBytes?: number;
  /** The clock, in milliseconds; tests pass their own to expire entries without waiting. */
  now?: () => number;
  /**
   * Awaited before reading or writing a large value (a turn of attachments takes a while to decode and encode), as a
   * shared store answers on a later turn of the event loop. `createApp`'s default store takes turns with the requests' own steps.
   * Default: none (each call runs at once).
   */
  pause?: () => Promise<void>;
}

/** A value of more characters than this is large: reading or writing it waits for the store's `pause`. */
const LARGE_VALUE_CHARS = 256 * 1024;

/** How often a save sweeps out every expired turn; between sweeps a save costs O(1). */
const SWEEP_INTERVAL_MS = 1_000;

interface Entry {
  /** The value as JSON text, or a string value as it is ({@link Entry.raw}). */
  json: string;
  /** A string value, held as it is: it cannot be aliased, and writing it as JSON would only cost an escaped copy. */
  raw?: true;
  /** What it counts towards `maxBytes`: its JSON's length (a string's counted with its quotes, not its escapes). */
  chars: number;
  expiresAt: number;
}

/**
 * The default turn store: one process's memory, emptied of expired values by TTL. Its bounds (entries, bytes) say
 * when it is full; it never evicts a value that has not expired to make room (spec §8.8: evicting by recency would
 * let one client's flood push out another client's running turn), so what it holds past a bound is only what turns
 * already running add, while `createApp` refuses new ones. Values are stored as JSON text, as a shared store would
 * hold them, so no caller ever aliases a stored object.
 */
export class MemoryTurnStore implements TurnStore {
  readonly #entries = new Map<string, Entry>();
  readonly #locks = new Map<string, { token: symbol; expiresAt: number }>();
  /** Which key and token each lock this store handed out stands for (a fenced write checks them). */
  readonly #holders = new WeakMap<TurnLock, { key: string; token: symbol }>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  readonly #pause: (() => Promise<void>) | undefined;
  #bytes = 0;
  #lastSweep = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryTurnStoreOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#maxBytes = options.maxBytes ?? 512 * 1024 * 1024;
    this.#now = options.now ?? Date.now;
    this.#pause = options.pause;
  }

  /** How many values are held now (expired ones included until they are swept). */
  get size(): number {
    return this.#entries.size;
  }

  async get(key: string): Promise<unknown> {
    const found = this.#entries.get(key);
    if (!found) return undefined;
    // Reading a large turn (attachments) takes a while: then it waits its turn, as a shared store answers later. Once:
    // waiting again for the same large entry never ended (every hop after a large hop 1 hung).
    if (this.#pause && found.json.length > LARGE_VALUE_CHARS) await this.#pause();
    // Read again after the wait: the entry may have changed or gone meanwhile.
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#remove(key);
      return undefined;
    }
    return entry.raw ? entry.json : (JSON.parse(entry.json) as unknown);
  }

  async set(key: string, value: unknown, ttlMs: number, options: SetOptions = {}): Promise<void> {
    // Writing a large turn takes a while too: it waits its turn first (its size is walked, not written, to know).
    const raw = typeof value === 'string';
    if (this.#pause && (raw ? value.length : jsonLength(value)) > LARGE_VALUE_CHARS) await this.#pause();
    // Checked before the write, with nothing awaited in between: one step, as in Redis.
    if (options.fence && !this.#holds(options.fence)) throw new LockLostError();
    const json = raw ? value : JSON.stringify(value);
    if (json === undefined) throw new TypeError('the turn store holds JSON values only');
    this.#remove(key);
    const expiresAt = this.#now() + ttlMs;
    const entry: Entry = raw
      ? { json, raw, chars: json.length + 2, expiresAt }
      : { json, chars: json.length, expiresAt };
    this.#entries.set(key, entry);
    this.#bytes += entry.chars;
    this.#sweep();
  }

  async delete(key: string): Promise<void> {
    this.#remove(key);
  }

  /** How much the store holds (expired values swept first), and whether it is at one of its bounds. */
  async usage(): Promise<StoreUsage> {
    this.#sweep();
    return { bytes: this.#bytes, full: this.#entries.size >= this.#maxEntries || this.#bytes >= this.#maxBytes };
  }

  async lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    const now = this.#now();
    const held = this.#locks.get(key);
    if (held && held.expiresAt > now) return undefined;
    this.#sweepLocks(now);
    const token = Symbol(key);
    this.#locks.set(key, { token, expiresAt: now + ttlMs });
    const lock: TurnLock = {
      release: async () => {
        // Only the holder that took it may release it: an expired lock may have been taken over since.
        if (this.#locks.get(key)?.token === token) this.#locks.delete(key);
      },
      held: async () => this.#holds(lock),
    };
    this.#holders.set(lock, { key, token });
    return lock;
  }

  /** Whether `lock` is one of this store's and still held: not released, not expired, not taken over. */
  #holds(lock: TurnLock): boolean {
    const holder = this.#holders.get(lock);
    if (!holder) return false;
    const current = this.#locks.get(holder.key);
    return current?.token === holder.token && current.expiresAt > this.#now();
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.chars;
  }

  #sweep(): void {
    const now = this.#now();
    // A full scan on every save would cost O(entries) per hop; once a second is enough, since get() never returns
    // an expired value.
    if (now - this.#lastSweep < SWEEP_INTERVAL_MS) return;
    this.#lastSweep = now;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#remove(key);
    }
  }

  #sweepLocks(now: number): void {
    for (const [key, lock] of this.#locks) {
      if (lock.expiresAt <= now) this.#locks.delete(key);
    }
  }
}
