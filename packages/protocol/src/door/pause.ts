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

// The step runner lives in ../steps/steps.ts (layout/ and parse/ use it too, and must not import door/).
export { type Pause, runSteps } from '../steps/steps.js';
