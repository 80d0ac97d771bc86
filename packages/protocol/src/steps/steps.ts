/**
 * Work in synchronous steps (a generator that yields between them) and the two ways to run it: with a pause before
 * each step, so other requests run between them, or all at once.
 */

/** Awaited between the steps of reading and checking one request (see `readHopRequest`'s `pause`). */
export type Pause = () => Promise<void>;

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
