import { jsonLength } from './json-length.js';
import { LockLostError, type SetOptions, type TurnLock, type TurnStore } from './turn-store.js';

/** Bounds and clock of a {@link MemoryTurnStore}. */
export interface MemoryTurnStoreOptions {
  /** Most values kept at once; the least recently used one is evicted first. Default 10,000. */
  maxEntries?: number;
  /** Most characters of serialized JSON kept at once (attachments make turns large). Default 512 M. */
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

/** How often a save sweeps out every expired turn; between sweeps a save costs O(1) (LRU eviction only). */
const SWEEP_INTERVAL_MS = 1_000;

interface Entry {
  json: string;
  expiresAt: number;
}

/**
 * The default turn store: one process's memory, bounded by entry count and bytes (LRU) and by TTL, so abandoned
 * turns cannot grow it without limit. Values are stored as JSON text, as a shared store would hold them, so no caller
 * ever aliases a stored object.
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
    // Re-insert: a Map iterates in insertion order, so the first key is always the least recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return JSON.parse(entry.json) as unknown;
  }

  async set(key: string, value: unknown, ttlMs: number, options: SetOptions = {}): Promise<void> {
    // Writing a large turn takes a while too: it waits its turn first (its size is walked, not written, to know).
    if (this.#pause && jsonLength(value) > LARGE_VALUE_CHARS) await this.#pause();
    // Checked before the write, with nothing awaited in between: one step, as in Redis.
    if (options.fence && !this.#holds(options.fence)) throw new LockLostError();
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError('the turn store holds JSON values only');
    this.#remove(key);
    this.#entries.set(key, { json, expiresAt: this.#now() + ttlMs });
    this.#bytes += json.length;
    this.#evict();
  }

  async delete(key: string): Promise<void> {
    this.#remove(key);
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
    this.#bytes -= entry.json.length;
  }

  #evict(): void {
    const now = this.#now();
    // A full scan on every save made a store at its bound cost O(entries) per hop; once a second is enough, since
    // get() never returns an expired value and the LRU order evicts the stalest turns first anyway.
    if (now - this.#lastSweep >= SWEEP_INTERVAL_MS) {
      this.#lastSweep = now;
      for (const [key, entry] of this.#entries) {
        if (entry.expiresAt <= now) this.#remove(key);
      }
    }
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#remove(key);
    }
  }

  #sweepLocks(now: number): void {
    for (const [key, lock] of this.#locks) {
      if (lock.expiresAt <= now) this.#locks.delete(key);
    }
  }
}
