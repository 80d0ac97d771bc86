import type { TurnLock, TurnStore, SetOptions } from '../../src/store/turn-store.js';

/**
 * Wraps a real store so that one read can be caught "in flight", like a Redis reply still on the wire: once armed,
 * the next `get` reads the store at once but hands its value back only when the test releases it. Other requests
 * meanwhile use the store normally. Everything else passes through.
 */
export class SlowReplyStore implements TurnStore {
  #armed: { entered: () => void; released: Promise<void>; matches: (key: string) => boolean } | undefined;

  constructor(readonly inner: TurnStore) {}

  /** The next `get` of a key `matches` accepts (any key by default) is held after reading; `entered` resolves once it has read. */
  holdNextGet(matches: (key: string) => boolean = () => true): { entered: Promise<void>; release: () => void } {
    let entered!: () => void;
    let release!: () => void;
    const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.#armed = { entered, released, matches };
    return { entered: enteredPromise, release };
  }

  async get(key: string): Promise<unknown> {
    const value = await this.inner.get(key);
    const held = this.#armed?.matches(key) ? this.#armed : undefined;
    if (held) this.#armed = undefined;
    if (held) {
      held.entered();
      await held.released;
    }
    return value;
  }

  set(key: string, value: unknown, ttlMs: number, options?: SetOptions): Promise<void> {
    return this.inner.set(key, value, ttlMs, options);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(key, ttlMs);
  }
}
