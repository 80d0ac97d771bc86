import type { BodyAllowance } from '@canvas-ai/protocol/server';

/** One request's share of a {@link BodyBudget}: what it took, given back at once by `release`. */
export interface BodyLease extends BodyAllowance {
  release(): void;
}

/**
 * The bytes of request bodies this process holds at once (spec §4.4): each request takes its share as its body
 * arrives and gives it back when it is answered, so forty held uploads cannot add a gigabyte. A request the budget
 * cannot cover is refused (503 `server_busy`) before it is buffered.
 */
export class BodyBudget {
  #free: number;

  constructor(maxBytes: number) {
    this.#free = maxBytes;
  }

  /** A lease that takes from this budget. */
  lease(): BodyLease {
    let held = 0;
    return {
      take: (bytes) => {
        if (bytes > this.#free) return false;
        this.#free -= bytes;
        held += bytes;
        return true;
      },
      release: () => {
        this.#free += held;
        held = 0;
      },
    };
  }
}
