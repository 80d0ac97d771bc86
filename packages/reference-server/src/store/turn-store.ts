/**
 * The turn store (spec §8): the only state a server keeps between hops. Values are JSON-serializable, so the same
 * interface fits an in-process map and a shared store such as Redis (several instances serve one turn's hops).
 */
import { HopError, isHopError } from '@canvas-ai/protocol/server';

/** A held per-turn lock; release it when the hop is done (releasing a lock that expired or was taken over is a no-op). */
export interface TurnLock {
  release(): Promise<void>;
  /** Whether this holder still holds it: a lock past its TTL may have been taken by another hop meanwhile. */
  held(): Promise<boolean>;
}

/** How {@link TurnStore.set} writes. */
export interface SetOptions {
  /**
   * Write only while this lock (of this store) is still held, checked and written as one step, else throw
   * {@link LockLostError} and write nothing: a hop whose lock expired mid-run never overwrites the run that took
   * the turn over (spec §8).
   */
  fence?: TurnLock;
}

/** A fenced write whose lock was no longer held: nothing was written. */
export class LockLostError extends Error {
  override readonly name = 'LockLostError';
  constructor() {
    super('the turn lock was no longer held, so nothing was written');
  }
}

/**
 * Where turns live between hops. Keys are built in `keys.ts`: a turn's is scoped to its session, so one session never
 * sees another's turn.
 */
export interface TurnStore {
  /** The value stored under `key`, or undefined when absent or expired. */
  get(key: string): Promise<unknown>;
  /**
   * Stores a JSON-serializable value under `key` for `ttlMs` milliseconds (replacing any earlier value); with a
   * `fence`, only while that lock is held (else {@link LockLostError}).
   */
  set(key: string, value: unknown, ttlMs: number, options?: SetOptions): Promise<void>;
  /** Removes `key`; removing an absent key is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Takes the lock of `key` for at most `ttlMs` (so a crashed holder cannot block the turn forever).
   * Resolves undefined when another holder has it: the caller answers 409 `hop_in_progress`.
   */
  lock(key: string, ttlMs: number): Promise<TurnLock | undefined>;
}

/**
 * Runs one store call for a request: a store that cannot answer becomes 503 `store_unavailable`, and nothing changed
 * (spec/hop-protocol.md §7), so the client may send the same request again.
 */
export async function guardStore<T>(call: () => Promise<T>, requestId?: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // A refusal the store layer made itself (a quota) is its own answer.
    if (isHopError(error)) throw error;
    throw new HopError('store_unavailable', 'The turn store is unavailable; try again shortly.', {
      requestId,
      cause: error,
    });
  }
}
