import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { UsageError } from '@canvas-ai/protocol/node';
import { helpText, parseCliOptions } from '../src/cli-options.js';
import { redactUrl, redactUrlsIn } from '../src/redact.js';
import { killOnExit } from './support/child-cleanup.js';
import { firstHop, openSession } from './support/harness.js';
import { startRedisServer } from './support/redis-server.js';
import { startServerProcess } from './support/server-process.js';

const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const redis = await startRedisServer();
after(() => redis.close());

describe('--store', () => {
  it('defaults to memory and takes a redis://, rediss://, redis-cluster:// or rediss-cluster:// URL', () => {
    assert.equal(parseCliOptions([]).store, 'memory');
    assert.equal(parseCliOptions(['--store', 'redis://127.0.0.1:6379/2']).store, 'redis://127.0.0.1:6379/2');
    assert.equal(
      parseCliOptions(['--store', 'rediss://user:pw@cache.example:6380']).store,
      'rediss://user:pw@cache.example:6380',
    );
    assert.equal(parseCliOptions(['--store', 'redis-cluster://10.0.0.5:7000']).store, 'redis-cluster://10.0.0.5:7000');
    assert.equal(
      parseCliOptions(['--store', 'rediss-cluster://u:p@node:7000']).store,
      'rediss-cluster://u:p@node:7000',
    );
    assert.match(helpText(), /--store memory\|URL /);
  });

  it('refuses anything else with a usage error that shows the form', () => {
    for (const value of ['redis', 'http://127.0.0.1:6379', 'redis://', 'redis-cluster://', 'memcached://x', '']) {
      assert.throws(
        () => parseCliOptions(['--store', value]),
        (error: unknown) =>
          error instanceof UsageError &&
          /--store must be memory, a redis:\/\/ URL .* or a redis-cluster:\/\/ URL/.test(error.message),
      );
    }
  });

  it('serves hops from Redis when started with --store redis://…', async () => {
    const server = await startServerProcess(['--store', redis.url], {
      CANVAS_AI_SECRET: 'a secret of at least sixteen bytes',
    });
    try {
      const session = await openSession(server);
      const reply = await session.hop(firstHop('cli-redis', 'Hello'));
      assert.equal(reply.status, 200);
    } finally {
      await server.kill();
    }
  });

  it('exits with 1 and a message naming the URL (not its password) when Redis cannot be reached', async () => {
    const { code, stderr } = await runCli(['--port', '0', '--store', 'redis://admin:s3cret@127.0.0.1:1']);
    assert.equal(code, 1);
    assert.match(stderr, /--store: cannot reach Redis at redis:\/\/admin:\*\*\*@127\.0\.0\.1:1/);
    assert.doesNotMatch(stderr, /s3cret/);
  });
});

describe('the start-up line with a Redis password in the query', () => {
  it('connects and shows the URL with the password masked', async () => {
    const locked = await startRedisServer();
    try {
      const admin = new Redis(locked.url);
      await admin.config('SET', 'requirepass', 'hunter2secret');
      admin.disconnect();
      const stderr = await startedCli(['--port', '0', '--store', `${locked.url}/0?password=hunter2secret`]);
      assert.match(
        stderr,
        /listening on http:\/\/127\.0\.0\.1:\d+ .*; turns in redis:\/\/127\.0\.0\.1:\d+\/0\?password=\*\*\*/,
      );
      assert.doesNotMatch(stderr, /hunter2secret/);
    } finally {
      await locked.close();
    }
  });

  it('masks the userinfo password and every key-like query parameter, and shows no URL it cannot read', () => {
    assert.equal(
      redactUrl('redis://u:p4ss@h:1/0?password=x&db=2&authToken=y'),
      'redis://u:***@h:1/0?password=***&db=2&authToken=***',
    );
    assert.equal(redactUrl('not a url at all: p4ss'), 'the URL given');
    assert.equal(
      redactUrlsIn('failed: http://a:b@h/v1?key=k (see https://docs.example/x)'),
      'failed: http://a:***@h/v1?key=*** (see https://docs.example/x)',
    );
  });
});

/** Starts the CLI, waits for its start-up line, stops it, and returns everything it wrote on stderr. */
function startedCli(args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: PACKAGE_DIR,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    killOnExit(child);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('listening on')) child.kill('SIGTERM');
    });
    child.once('exit', (code) =>
      stderr.includes('listening on') ? done(stderr) : fail(new Error(`exit ${code}: ${stderr}`)),
    );
  });
}

/** Runs the CLI to its end (it must exit by itself) and returns its exit code and stderr. */
function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: PACKAGE_DIR,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    killOnExit(child);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => done({ code, stderr }));
  });
}
