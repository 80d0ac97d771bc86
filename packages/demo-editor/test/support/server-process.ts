import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A reference server started as its own process, exactly as the README's main command starts it. */
export interface ServerProcess {
  url: string;
  /** Everything the server logged (one JSON line per hop). */
  log: string[];
  stop(): Promise<void>;
}

const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Starts `canvas-ai-server --port 0 --static dist` (the built demo), with `extra` flags after them, and resolves once
 * it prints its URL.
 */
export function startServerProcess(extra: readonly string[] = []): Promise<ServerProcess> {
  const child: ChildProcess = spawn(
    'node',
    ['--import', 'tsx', '../reference-server/src/cli.ts', '--port', '0', '--static', 'dist', ...extra],
    {
      cwd: packageDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const log: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${log.join('\n')}`)), 30_000);
    const onLine = (chunk: Buffer): void => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        log.push(line);
        const match = /listening on (http:\/\/\S+)/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve({ url: match[1]!, log, stop: () => stopChild(child) });
        }
      }
    };
    child.stdout!.on('data', onLine);
    child.stderr!.on('data', onLine);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${log.join('\n')}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}
