import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A reference server started as its own process, exactly as the README's main command starts it. */
export interface ServerProcess {
  url: string;
  /** Everything the server logged (one JSON line per hop, and per model call with `CANVAS_AI_LOG_MODEL_REQUESTS`). */
  log: string[];
  /** The first line `match` accepts, as soon as the server has logged it (the pipe may lag behind a response). */
  waitForLine(match: (line: string) => boolean): Promise<string>;
  stop(): Promise<void>;
}

/** How to start it. */
export interface ServerProcessOptions {
  /** Added to the test's environment, e.g. `{ CANVAS_AI_LOG_MODEL_REQUESTS: '1' }`. */
  env?: Record<string, string>;
  /** Flags after `--port 0 --static dist`, e.g. `['--scenarios', dir]` (the repository's server only). */
  args?: readonly string[];
  /**
   * Another command line, and the folder it runs in (an installed package's `npx canvas-ai-server …`). It runs as
   * a process group of its own, stopped whole: npx starts the server as a child of its own.
   */
  command?: { file: string; args: string[]; cwd: string };
}

const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Starts `canvas-ai-server --port 0 --static dist` (the built demo), with `options.args` after them, and resolves once
 * it prints its URL.
 */
export function startServerProcess(options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const command = options.command ?? {
    file: 'node',
    args: [
      '--import',
      'tsx',
      '../reference-server/src/cli.ts',
      '--port',
      '0',
      '--static',
      'dist',
      ...(options.args ?? []),
    ],
    cwd: packageDir,
  };
  const child: ChildProcess = spawn(command.file, command.args, {
    cwd: command.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.command !== undefined,
  });
  const group = options.command !== undefined;
  const log: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${log.join('\n')}`)), 30_000);
    // A pipe delivers chunks, not lines: a long line (a model_request with its prompt) can span several chunks.
    const lineReader = (): ((chunk: string) => void) => {
      let partial = '';
      return (chunk) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines.filter(Boolean)) onLine(line);
      };
    };
    const waiting = new Set<{ match: (line: string) => boolean; found: (line: string) => void }>();
    const onLine = (line: string): void => {
      log.push(line);
      for (const waiter of waiting) {
        if (!waiter.match(line)) continue;
        waiting.delete(waiter);
        waiter.found(line);
      }
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, log, waitForLine, stop: () => stopChild(child, group) });
      }
    };
    const waitForLine = (match: (line: string) => boolean): Promise<string> => {
      const seen = log.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((found, fail) => {
        const waiter = {
          match,
          found: (line: string) => {
            clearTimeout(timeout);
            found(line);
          },
        };
        const timeout = setTimeout(() => {
          waiting.delete(waiter);
          fail(new Error(`the server logged no such line:\n${log.join('\n').slice(-4_000)}`));
        }, 30_000);
        waiting.add(waiter);
      });
    };
    child.stdout!.setEncoding('utf8').on('data', lineReader());
    child.stderr!.setEncoding('utf8').on('data', lineReader());
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${log.join('\n')}`));
    });
  });
}

/** Stops the child (and, for a group of its own, every process of that group: the one it started too). */
function stopChild(child: ChildProcess, group: boolean): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    if (group && child.pid !== undefined) {
      try {
        process.kill(-child.pid, name);
      } catch {
        // The group is gone already.
      }
    } else child.kill(name);
  };
  if (child.exitCode !== null && !group) return Promise.resolve();
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
    signal('SIGTERM');
    setTimeout(() => signal('SIGKILL'), 5_000).unref();
  });
}
