import type { TurnLock, TurnStore, SetOptions } from '../../src/store/turn-store.js';

/** One call a {@link RecordingStore} saw. */
export interface StoreCall {
  op: 'get' | 'set' | 'delete' | 'lock';
  key: string;
}

/** Wraps a real store and records every call, to prove a request never reached the store (or which keys it used). */
export class RecordingStore implements TurnStore {
  readonly calls: StoreCall[] = [];

  constructor(readonly inner: TurnStore) {}

  get(key: string): Promise<unknown> {
    this.calls.push({ op: 'get', key });
    return this.inner.get(key);
  }

  set(key: string, value: unknown, ttlMs: number, options?: SetOptions): Promise<void> {
    this.calls.push({ op: 'set', key });
    return this.inner.set(key, value, ttlMs, options);
  }

  delete(key: string): Promise<void> {
    this.calls.push({ op: 'delete', key });
    return this.inner.delete(key);
  }

  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    this.calls.push({ op: 'lock', key });
    return this.inner.lock(key, ttlMs);
  }
}
