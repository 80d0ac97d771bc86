import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killOnExit } from './child-cleanup.js';

/** A real `redis-server` on 127.0.0.1, in a temp dir, with no persistence. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL); what it held is gone (no persistence). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers, as in a network partition. */
  pause(): void;
  /** Thaws a paused server (SIGCONT). */
  resume(): void;
  /** Stops it for good and removes its temp dir; safe to call twice. */
  close(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (asked of the OS; redis itself cannot listen on port 0). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `redis-server` on a free loopback port with a temp working dir, no RDB snapshots and no AOF, and `args`
 * after those. Retries with another port if the one picked was taken in between.
 */
export async function startRedisServer(args: readonly string[] = []): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'canvas-ai-redis-'));
  let child: ChildProcess | undefined;
  let port = 0;
  let closed = false;

  const launch = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
        '--loglevel',
        'warning',
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const spawned = child;
    // A test that fails (or a script that throws) must not leave a redis-server behind.
    killOnExit(spawned);
    let output = '';
    spawned.stdout!.on('data', (chunk) => (output += chunk));
    spawned.stderr!.on('data', (chunk) => (output += chunk));
    const failed = new Promise<never>((_, reject) => {
      spawned.once('error', (error) =>
        reject(
          new Error(`redis-server could not start (is it installed? bash scripts/setup.sh --redis): ${error.message}`),
        ),
      );
      spawned.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output.trim()}`)));
    });
    failed.catch(() => undefined);
    await Promise.race([waitForPong(port), failed]);
  };

  const stopChild = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGCONT');
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  };

  for (let attempt = 1; ; attempt += 1) {
    port = await freePort();
    try {
      await launch();
      break;
    } catch (error) {
      await stopChild();
      if (attempt >= 3) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: stopChild,
    start: launch,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    close: async () => {
      if (closed) return;
      closed = true;
      await stopChild();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once a PING on the port gets +PONG (redis is accepting commands). */
async function waitForPong(port: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (await ping(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server on port ${port} did not answer PING`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    let reply = '';
    socket.setTimeout(1_000, () => socket.destroy());
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) {
        socket.end();
        resolve(reply.startsWith('+PONG'));
      }
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(reply.startsWith('+PONG')));
  });
}
