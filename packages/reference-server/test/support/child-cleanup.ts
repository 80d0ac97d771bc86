import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
let installed = false;

function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

/**
 * Kills `child` when this process ends, however it ends short of SIGKILL: normally, after a failed test, or on
 * SIGINT/SIGTERM (the test runner's timeout, Ctrl-C), so no redis-server or server instance outlives its test.
 */
export function killOnExit(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (installed) return;
  installed = true;
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      // Then die of the same signal, as if nobody had listened.
      process.kill(process.pid, signal);
    });
  }
}
