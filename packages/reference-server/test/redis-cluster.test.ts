// The turn store on a Redis Cluster: three real `redis-server --cluster-enabled yes` nodes on loopback ports, joined
// by Debian's `redis-cli --cluster create`. A script may only touch keys of one hash slot, so the fenced write and
// the lock of every key (turns, cancel markers, the quota ledgers) must share a slot; the contract, two server
// instances and the quota ledger prove they do, and the store's size is the sum over the primaries.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Cluster } from 'ioredis';
import { RedisTurnStore } from '../src/store/redis.js';
import { EMPTY_LAYOUT, firstHop, laterHop, openSession, type TestSession } from './support/harness.js';
import { startCluster } from './support/instances.js';
import { startRedisCluster } from './support/redis-cluster.js';
import { startServerProcess } from './support/server-process.js';
import { turnStoreContract } from './support/store-contract.js';

const redis = await startRedisCluster(3);
const opened: RedisTurnStore[] = [];
after(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await redis.close();
});

async function openStore(prefix = `test-${crypto.randomUUID()}:`): Promise<RedisTurnStore> {
  const store = await RedisTurnStore.connect(redis.url, { prefix });
  opened.push(store);
  return store;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

turnStoreContract('RedisTurnStore on a three-node Redis Cluster', async () => ({
  store: await openStore(),
  advance: sleep,
}));

const BUILDER = { agent: 'page_builder' };
/** place-hero-two-hop: hop 1 parks a call, so the turn stays stored. */
const HERO = 'Add a hero for my bakery, Crumb & Co.';

describe('RedisTurnStore on a Redis Cluster', () => {
  it('spreads turns over the nodes, each turn with its lock in one slot, and writes them fenced', async () => {
    const store = await openStore('spread:');
    const raw = new Cluster([{ host: '127.0.0.1', port: redis.nodes[0]!.port }]);
    try {
      const slots = new Set<number>();
      for (let index = 0; index < 24; index += 1) {
        const key = `session-${index}:turn-${index}`;
        const lock = await store.lock(key, 60_000);
        assert.ok(lock, key);
        // A fenced write runs one script over the lock's key and the turn's: CROSSSLOT if they were apart.
        await store.set(key, { hop: index }, 60_000, { fence: lock });
        const [turnSlot, lockSlot] = await Promise.all([
          raw.call('CLUSTER', 'KEYSLOT', `spread:turn:{${key}}`),
          raw.call('CLUSTER', 'KEYSLOT', `spread:lock:{${key}}`),
        ]);
        assert.equal(turnSlot, lockSlot, key);
        slots.add(Number(turnSlot));
        assert.deepEqual(await store.get(key), { hop: index });
        await lock.release();
      }
      const owners = await Promise.all(raw.nodes('master').map(async (node) => Number(await node.dbsize())));
      assert.ok(owners.filter((keys) => keys > 0).length >= 2, `turns on more than one node: ${owners.join(', ')}`);
      assert.ok(slots.size > 1);
    } finally {
      raw.disconnect();
    }
  });

  it('counts the data of every primary in its size, not of one node', async () => {
    const store = await openStore('size:');
    const raw = new Cluster([{ host: '127.0.0.1', port: redis.nodes[0]!.port }]);
    try {
      for (let index = 0; index < 30; index += 1) await store.set(`s${index}:t`, { text: 'x'.repeat(20_000) }, 60_000);
      const perNode = await Promise.all(
        raw.nodes('master').map(async (node) => {
          const info = await node.info('memory');
          return Number(/^used_memory_dataset:(\d+)/m.exec(info)?.[1]);
        }),
      );
      const { bytes } = await store.usage();
      assert.ok(bytes > Math.max(...perNode), `${bytes} is more than any one node's ${perNode.join(', ')}`);
      assert.ok(bytes >= 30 * 20_000, `${bytes} holds the 600,000 characters written`);
    } finally {
      raw.disconnect();
    }
  });

  it('refuses a database number in a cluster URL: a cluster has one', async () => {
    await assert.rejects(RedisTurnStore.connect(`${redis.url}/2`), (error: Error) =>
      /a Redis Cluster has one database; drop "\/2"/.test(error.message),
    );
  });

  it('names the URL without its password when the cluster cannot be reached', async () => {
    await assert.rejects(
      RedisTurnStore.connect('redis-cluster://user:hunter2@127.0.0.1:1', { connectTimeoutMs: 1_000 }),
      (error: Error) =>
        /^--store: cannot reach Redis at redis-cluster:\/\/user:\*\*\*@127\.0\.0\.1:1 /.test(error.message) &&
        !error.message.includes('hunter2'),
    );
  });
});

describe('the CLI with --store redis-cluster://', () => {
  it('serves a turn from the cluster', async () => {
    const server = await startServerProcess(['--store', redis.url], {
      CANVAS_AI_SECRET: 'a secret of at least sixteen bytes',
    });
    try {
      const session = await openSession(server);
      assert.equal((await session.hop(firstHop('cli-cluster', HERO, BUILDER))).status, 200);
      assert.equal((await session.hop(laterHop('cli-cluster', 2, EMPTY_LAYOUT, BUILDER))).status, 200);
    } finally {
      await server.kill();
    }
  });
});

describe('two server instances on a Redis Cluster', () => {
  it('run a turn hop by hop on alternating instances, and share one session ledger', async () => {
    const instances = await startCluster(redis.url, 2, () => ({ quotas: { session: { maxTurns: 2 } } }));
    try {
      const [a, b] = instances.instances as [(typeof instances.instances)[0], (typeof instances.instances)[0]];
      const session = await openSession(a);
      const on = (server: { hopUrl: string }, own: TestSession, body: unknown) =>
        fetch(server.hopUrl, {
          method: 'POST',
          headers: own.headers({ 'content-type': 'application/json' }),
          body: JSON.stringify(body),
        }).then((reply) => reply.status);
      assert.equal(await on(a, session, firstHop('r-1', HERO, BUILDER)), 200);
      assert.equal(await on(b, session, firstHop('r-2', HERO, BUILDER)), 200);
      assert.equal(await on(a, session, firstHop('r-3', HERO, BUILDER)), 429, 'the ledger one instance wrote');
      assert.equal(await on(b, session, laterHop('r-1', 2, EMPTY_LAYOUT, BUILDER)), 200);
      assert.equal(await on(a, session, laterHop('r-1', 3, EMPTY_LAYOUT, BUILDER)), 200, 'r-1 ended');
      assert.equal(await on(b, session, firstHop('r-3', HERO, BUILDER)), 200, 'room again once r-1 ended');
      const cancelled = await fetch(`${b.hopUrl}/r-2`, { method: 'DELETE', headers: session.headers() });
      assert.equal(cancelled.status, 200);
      assert.equal(
        await on(a, session, laterHop('r-2', 2, EMPTY_LAYOUT, BUILDER)),
        410,
        'the cancel seen on the other',
      );
    } finally {
      await instances.close();
    }
  });
});
