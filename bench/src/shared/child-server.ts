import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The bench package's folder: children run from here, so `--import tsx` resolves. */
export const BENCH_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** A server running in its own Node process. */
export interface ChildServer {
  /** `http://127.0.0.1:port` */
  url: string;
  pid: number;
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<void>;
}

const LISTENING = /listening on (http:\/\/\S+)/;

/**
 * Starts a TypeScript server script in a child Node process (through tsx) and resolves once it writes
 * "listening on http://…" to stderr. A child keeps the server off the load generator's event loop: on two cores the
 * client gets one and the server the other. Its stdout (the server's per-hop log lines) goes to /dev/null.
 */
export function startChildServer(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: BENCH_DIR,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    const fail = (message: string) => {
      child.kill('SIGKILL');
      reject(new Error(`${script}: ${message}\n${stderr.trim()}`));
    };
    const timer = setTimeout(() => fail('did not start within 60 s'), 60_000);
    child.once('error', (error) => fail(error.message));
    child.once('exit', (code) => fail(`exited with code ${code} before listening`));
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const match = LISTENING.exec(stderr);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ url: match[1]!, pid: child.pid!, stop: () => stopChild(child) });
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
