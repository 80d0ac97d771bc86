/**
 * One loop per kept turn. A chat that is mounted, removed and mounted again (React's StrictMode, Puck), or two tabs
 * that kept the same turn (a duplicated tab copies `sessionStorage`), would each resume it and send every hop twice.
 * A chat resumes a kept turn only while it holds the turn's lock: the Web Locks API, which every tab and chat of an
 * origin shares, so a second one waits and then finds the turn where the first left it (spec §18). Where the API is
 * missing, a lock within this page, which is what one page can promise.
 */

/** The lock's name: one per turn, whatever chat or tab drives it. */
const lockName = (requestId: string) => `canvas-ai-turn:${requestId}`;

/** Runs `work` once it holds the turn's lock, released when `work` settles. Undefined if `signal` aborts the wait. */
export function whileHoldingTurn<T>(requestId: string, work: () => Promise<T>): Promise<T>;
export function whileHoldingTurn<T>(
  requestId: string,
  work: () => Promise<T>,
  signal: AbortSignal,
): Promise<T | undefined>;
export async function whileHoldingTurn<T>(
  requestId: string,
  work: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T | undefined> {
  if (signal?.aborted) return undefined;
  const locks = (globalThis.navigator as { locks?: LockManager } | undefined)?.locks;
  if (!locks) return withinPage(lockName(requestId), work, signal);
  try {
    return await locks.request(lockName(requestId), signal ? { signal } : {}, work);
  } catch (error) {
    // The wait was given up: the lock manager rejects with an AbortError. An error of `work` itself goes on.
    if (signal?.aborted && error instanceof DOMException && error.name === 'AbortError') return undefined;
    throw error;
  }
}

/** The last holder's end, by lock name: the next one waits for it. */
const holders = new Map<string, Promise<unknown>>();

async function withinPage<T>(name: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T | undefined> {
  const before = holders.get(name) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const end = before.then(() => mine);
  holders.set(name, end);
  try {
    // Given up while it waits: back at once, as the Web Locks API does, without waiting for the holder.
    if (!(await untilFreeOrAborted(before, signal))) return undefined;
    return await work();
  } finally {
    release();
    if (holders.get(name) === end) holders.delete(name);
  }
}

/** True once `free` settles, false if `signal` aborts first. */
function untilFreeOrAborted(free: Promise<unknown>, signal: AbortSignal | undefined): Promise<boolean> {
  if (!signal) return free.then(() => true);
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const aborted = () => resolve(false);
    signal.addEventListener('abort', aborted, { once: true });
    void free.then(() => {
      signal.removeEventListener('abort', aborted);
      resolve(!signal.aborted);
    });
  });
}
