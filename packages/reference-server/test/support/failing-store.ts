import type { TurnLock, TurnStore, SetOptions } from '../../src/store/turn-store.js';

/** Wraps a real store; once armed, its next `set` throws without writing, as a store that cannot be reached would. */
export class FailingSetStore implements TurnStore {
  #failNextSet = false;

  constructor(readonly inner: TurnStore) {}

  /** The next `set` (any key) fails. */
  failNextSet(): void {
    this.#failNextSet = true;
  }

  get(key: string): Promise<unknown> {
    return this.inner.get(key);
  }

  async set(key: string, value: unknown, ttlMs: number, options?: SetOptions): Promise<void> {
    if (this.#failNextSet) {
      this.#failNextSet = false;
      throw new Error('connection lost');
    }
    await this.inner.set(key, value, ttlMs, options);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(key, ttlMs);
  }
}
