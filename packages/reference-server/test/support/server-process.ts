import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killOnExit } from './child-cleanup.js';

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** `canvas-ai-server` running in its own process (the CLI, as deployed). */
export interface ServerProcess {
  url: string;
  hopUrl: string;
  /** Its JSON log lines so far (stdout). */
  logs: Array<Record<string, unknown>>;
  /** Sends a signal (SIGKILL: a crash) and resolves when the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts the CLI (`src/cli.ts` under tsx) on 127.0.0.1:0 with these flags and variables; resolves once it listens. */
export async function startServerProcess(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--port', '0', ...args], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A failing test must not leave servers running.
  killOnExit(child);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const logs: Array<Record<string, unknown>> = [];
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
  });
  let stderr = '';
  const url = await new Promise<string>((done, fail) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\/\/[^\s;]+)[\s;]/.exec(stderr);
      if (match) done(match[1]!);
    });
    child.once('exit', (code) =>
      fail(new Error(`canvas-ai-server exited (${code}) before listening: ${stderr.trim()}`)),
    );
  });
  return {
    url,
    hopUrl: `${url}/api/hop`,
    logs,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
