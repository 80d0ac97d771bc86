/**
 * The one scheduling seam of the protocol package: long work is a generator of synchronous steps, and a door awaits
 * a `Pause` between two of them so other requests run in between (spec §13). A small body's steps are small, so they
 * run at once (`pauseFor`). Neutral ground: the door, the parser and a server all import it, and it imports nothing.
 */

/** Awaited between the steps of reading and checking one request (see `readHopRequest`'s `pause`). */
export type Pause = () => Promise<void>;

/** A body up to this size costs little per step: its steps run at once, without pausing between them. */
const SMALL_BODY_BYTES = 256 * 1024;

/** Resolves at once: no turn to wait for. */
const noPause: Pause = () => Promise.resolve();

/** The pause a body of `bytes` waits between its steps: none for a small body (up to 256 KiB), else `pause`. */
export function pauseFor(bytes: number, pause: Pause): Pause {
  return bytes <= SMALL_BODY_BYTES ? noPause : pause;
}

/**
 * Resolves on a later turn of the event loop (a macrotask, not a microtask), so that I/O waiting meanwhile (another
 * request, a health check) is served between two steps of a long piece of work. `setImmediate` where the runtime has
 * it (Node, Bun), else a `MessageChannel` message (browsers, Deno, workers: no 4 ms clamp), else a zero timeout.
 */
export function nextMacrotask(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  if (immediate) return new Promise((resolve) => void immediate(resolve));
  if (typeof MessageChannel === 'function') {
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(undefined);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Runs a generator of synchronous steps to its end, awaiting `pause` before each step, so no step of one request
 * runs in the same turn of the event loop as another's.
 */
export async function runSteps<T>(steps: Generator<undefined, T, undefined>, pause: Pause): Promise<T> {
  for (;;) {
    await pause();
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs a generator of synchronous steps to its end at once (for callers that want the whole work now). */
export function runStepsNow<T>(steps: Generator<undefined, T, undefined>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}
