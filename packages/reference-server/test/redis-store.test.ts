import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ConfigError } from '../src/config-error.js';
import { RedisTurnStore } from '../src/store/redis.js';
import { eventually } from './support/eventually.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';
import { turnStoreContract } from './support/store-contract.js';

// A real redis-server on a free loopback port for this file; every store gets its own key prefix.
const redis: RedisServer = await startRedisServer();
const opened: RedisTurnStore[] = [];
after(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await redis.close();
});

async function openStore(options: { prefix?: string; commandTimeoutMs?: number } = {}): Promise<RedisTurnStore> {
  const store = await RedisTurnStore.connect(redis.url, {
    prefix: options.prefix ?? `test-${crypto.randomUUID()}:`,
    ...options,
  });
  opened.push(store);
  return store;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// Redis keeps its own clock: moving it forward means waiting.
turnStoreContract('RedisTurnStore', async () => ({ store: await openStore(), advance: sleep }));

describe('RedisTurnStore in Redis', () => {
  let raw: Redis;
  before(() => {
    raw = new Redis(redis.url);
  });
  after(() => raw.quit());

  it('stores a turn as one JSON string under a prefixed, session-scoped, hash-tagged key with a native TTL', async () => {
    const store = await openStore({ prefix: 'inspect:' });
    await store.set('session-a:turn-1', { kind: 'active', hop: 1 }, 30_000);
    assert.deepEqual(await raw.keys('inspect:*'), ['inspect:turn:{session-a:turn-1}']);
    assert.equal(await raw.get('inspect:turn:{session-a:turn-1}'), '{"kind":"active","hop":1}');
    const ttl = await raw.pttl('inspect:turn:{session-a:turn-1}');
    assert.ok(ttl > 0 && ttl <= 30_000, `a TTL in milliseconds (${ttl})`);
  });

  it('takes a lock with SET NX PX holding a random owner token, and deletes it on release', async () => {
    // The lock's key has its value's hash tag, so the fenced write (a script reading both) runs on a cluster too.
    const store = await openStore({ prefix: 'locks:' });
    const lock = await store.lock('s:t', 60_000);
    assert.ok(lock);
    const token = await raw.get('locks:lock:{s:t}');
    assert.match(token ?? '', /^[0-9a-f-]{36}$/);
    assert.ok((await raw.pttl('locks:lock:{s:t}')) > 0);
    await lock.release();
    assert.equal(await raw.exists('locks:lock:{s:t}'), 0);
  });

  it('lets only the owner release a lock: another token in the key is left alone', async () => {
    const store = await openStore({ prefix: 'owner:' });
    const lock = await store.lock('s:t', 60_000);
    assert.ok(lock);
    // Another instance's hop took the lock over after this one's expired.
    await raw.set('owner:lock:{s:t}', 'someone-else', 'PX', 60_000);
    await lock.release();
    assert.equal(await raw.get('owner:lock:{s:t}'), 'someone-else');
  });

  it('shares turns and locks between two connections, as two server instances do', async () => {
    const a = await openStore({ prefix: 'shared:' });
    const b = await openStore({ prefix: 'shared:' });
    await a.set('s:t', { from: 'a' }, 60_000);
    assert.deepEqual(await b.get('s:t'), { from: 'a' });
    const held = await a.lock('s:t', 60_000);
    assert.ok(held);
    assert.equal(await b.lock('s:t', 60_000), undefined, 'the other instance sees the lock');
    await held.release();
    const next = await b.lock('s:t', 60_000);
    assert.ok(next);
    await next.release();
  });

  it('refuses a value that is not JSON', async () => {
    const store = await openStore();
    await assert.rejects(store.set('k', undefined, 1_000), TypeError);
  });

  it('names the URL without its password when Redis cannot be reached', async () => {
    await assert.rejects(
      RedisTurnStore.connect('redis://user:hunter2@127.0.0.1:1', { connectTimeoutMs: 1_000 }),
      (error: Error) =>
        error instanceof ConfigError &&
        /^--store: cannot reach Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1 /.test(error.message) &&
        !error.message.includes('hunter2'),
    );
  });
});

describe('RedisTurnStore when Redis goes away', () => {
  it('rejects every call at once while Redis is down, logs the outage once, and works again when it is back', async () => {
    const own = await startRedisServer();
    const logs: string[] = [];
    const store = await RedisTurnStore.connect(own.url, { log: (entry) => logs.push(entry.event) });
    try {
      await store.set('s:t', { n: 1 }, 60_000);
      await own.stop();
      await assert.rejects(store.get('s:t'));
      await assert.rejects(store.set('s:t', { n: 2 }, 60_000));
      await assert.rejects(store.delete('s:t'));
      await assert.rejects(store.lock('s:t', 60_000));
      await own.start();
      await eventually(async () =>
        assert.equal(await store.get('s:t'), undefined, 'a restarted Redis without persistence is empty'),
      );
      await store.set('s:t', { n: 3 }, 60_000);
      assert.deepEqual(await store.get('s:t'), { n: 3 });
      assert.deepEqual(logs, ['store_unavailable', 'store_ready'], 'one line when it went, one when it came back');
    } finally {
      await store.close();
      await own.close();
    }
  });

  it('times a command out when Redis hangs, and answers again once it resumes', async () => {
    const own = await startRedisServer();
    const store = await RedisTurnStore.connect(own.url, { commandTimeoutMs: 500 });
    try {
      await store.set('s:t', { n: 1 }, 60_000);
      own.pause();
      await assert.rejects(store.get('s:t'), /timed out/);
      await assert.rejects(store.lock('s:t', 60_000), /timed out/);
      own.resume();
      // The lock SET that timed out reached Redis after all; the release queued behind it freed it again.
      await eventually(async () => {
        const lock = await store.lock('s:t', 60_000);
        assert.ok(lock, 'the lock is free again');
        await lock.release();
      });
      assert.deepEqual(await store.get('s:t'), { n: 1 });
    } finally {
      await store.close();
      await own.close();
    }
  });
});
