import { nextMacrotask } from '@canvas-ai/protocol/server';

/**
 * Lets the steps of every request of this process through one at a time, one per turn of the event loop: a request
 * that awaits `pass()` between two pieces of work resumes on a later turn, after every request that was waiting
 * before it, and I/O (another request arriving, a health check) is served in between. Awaiting a plain macrotask is
 * not enough: eight requests resumed by the same turn would run their eight pieces of work back to back.
 */
export class Turnstile {
  readonly #waiting: Array<() => void> = [];
  #turning = false;

  /** Resolves on a later turn of the event loop, after every earlier waiter, one waiter per turn. */
  readonly pass = (): Promise<void> =>
    new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#turning) this.#turn();
    });

  #turn(): void {
    this.#turning = true;
    void nextMacrotask().then(() => {
      this.#waiting.shift()?.();
      if (this.#waiting.length > 0) this.#turn();
      else this.#turning = false;
    });
  }
}
