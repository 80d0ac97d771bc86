import { errorMessage } from '@canvas-ai/protocol';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { ConfigError } from '../config-error.js';
import type { Logger } from '../log.js';
import { redactUrl } from '../redact.js';
import { LockLostError, type SetOptions, type StoreUsage, type TurnLock, type TurnStore } from './turn-store.js';

/** How a {@link RedisTurnStore} reaches Redis and names its keys. */
export interface RedisTurnStoreOptions {
  /** Put before every key, so several apps (or test runs) can share one Redis. Default `canvas-ai:`. */
  prefix?: string;
  /** A command that gets no reply within this many milliseconds fails (the hop answers 503). Default 2,000. */
  commandTimeoutMs?: number;
  /** How long the first connection may take. Default 5,000. */
  connectTimeoutMs?: number;
  /** Where losing and regaining Redis is logged (once per outage, not once per reconnect attempt). */
  log?: Logger;
  /**
   * Bytes of data Redis may hold (its `used_memory_dataset`, the whole Redis) before the store is full: no new turn starts
   * then (503 `server_busy`), on any instance, while turns already running go on. Keep Redis's own `maxmemory` above
   * it, with `noeviction`, so Redis never drops a turn itself. Default 512 MiB.
   */
  maxBytes?: number;
}

// Deletes the lock only if it still holds this holder's token: a holder whose lock expired and was taken over by
// another hop must not free the new holder's lock. GET-then-DEL from the client would race; one script cannot.
const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

// Writes the turn only if the lock still holds this holder's token, in one step: a hop whose lock expired while it
// ran must not overwrite the run that took the turn over (spec §8).
const FENCED_SET = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) return 1 else return 0 end`;

// Whether the lock still holds this holder's token.
const LOCK_HELD = `if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 else return 0 end`;

/**
 * Starts a string value stored as it is, not as JSON (no JSON text starts with it): a page of two megabytes costs
 * its escaping on every write and its unescaping on every read as JSON, and nothing as it is.
 */
const RAW_STRING = '\u0001';

/** A connection to one Redis, or to a Redis Cluster: the commands the store sends are the same. */
type Client = Redis | Cluster;

interface WithReleaseLock {
  canvasAiReleaseLock(key: string, token: string): Promise<number>;
  canvasAiFencedSet(lockKey: string, key: string, token: string, json: string, ttlMs: number): Promise<number>;
  canvasAiLockHeld(lockKey: string, token: string): Promise<number>;
}

/**
 * The turn store for several server instances behind a load balancer (spec §8): any hop of a turn may land on any
 * instance. Values are JSON strings with a native TTL (`SET … PX`); the per-turn lock is `SET NX PX` holding a
 * random owner token, released by a Lua script that compares the token first; a fenced write is a Lua script too,
 * writing only while the lock holds the writer's token. Commands fail fast while Redis is
 * unreachable (no offline queue, no silent resend), so a hop answers 503 `store_unavailable` instead of hanging,
 * and the client reconnects on its own when Redis is back.
 *
 * The same store runs on a Redis Cluster (`redis-cluster://host:port`, any one node: the client finds the rest).
 * A script may only touch keys of one hash slot, so a value and its lock share a hash tag: both keys end in
 * `{<the store key>}`, and Redis hashes only what is between the braces.
 */
export class RedisTurnStore implements TurnStore {
  readonly #client: Client & WithReleaseLock;
  readonly #prefix: string;
  readonly #maxBytes: number;
  /** The lock key and token of each lock this store handed out (a fenced write checks them). */
  readonly #holders = new WeakMap<TurnLock, { lockKey: string; token: string }>();
  #state: 'connecting' | 'up' | 'down' | 'closed' = 'connecting';
  #lastError: Error | undefined;

  private constructor(client: Client, url: string, options: RedisTurnStoreOptions) {
    client.defineCommand('canvasAiReleaseLock', { numberOfKeys: 1, lua: RELEASE_LOCK });
    client.defineCommand('canvasAiFencedSet', { numberOfKeys: 2, lua: FENCED_SET });
    client.defineCommand('canvasAiLockHeld', { numberOfKeys: 1, lua: LOCK_HELD });
    this.#client = client as Client & WithReleaseLock;
    this.#prefix = options.prefix ?? 'canvas-ai:';
    this.#maxBytes = options.maxBytes ?? 512 * 1024 * 1024;
    const where = { store: 'redis', url: redactUrl(url, 'the Redis URL given') };
    // Without an 'error' listener ioredis prints every failed reconnect attempt; the outage is logged once instead.
    client.on('error', (error: Error) => (this.#lastError = error));
    client.on('close', () => {
      if (this.#state !== 'up') return;
      this.#state = 'down';
      options.log?.({ event: 'store_unavailable', ...where, message: this.#lastError?.message ?? 'connection closed' });
    });
    client.on('ready', () => {
      if (this.#state === 'down') options.log?.({ event: 'store_ready', ...where });
      if (this.#state !== 'closed') this.#state = 'up';
    });
  }

  /**
   * Connects to `url` and resolves once Redis answers: `redis://[user:password@]host:port[/db]` (`rediss://` for
   * TLS), or a cluster as `redis-cluster://[user:password@]host:port` (`rediss-cluster://` for TLS) naming any one of
   * its nodes. Rejects with a message naming the (password-free) URL when it cannot be reached.
   */
  static async connect(url: string, options: RedisTurnStoreOptions = {}): Promise<RedisTurnStore> {
    const client = isClusterUrl(url) ? clusterClient(url, options) : new Redis(url, nodeOptions(options));
    const store = new RedisTurnStore(client, url, options);
    try {
      await client.connect();
    } catch (error) {
      store.#state = 'closed';
      client.disconnect();
      const reason = store.#lastError?.message ?? errorMessage(error);
      throw new ConfigError(
        [
          `--store: cannot reach Redis at ${redactUrl(url, 'the Redis URL given')} (${reason}). ${
            isClusterUrl(url)
              ? 'Start the cluster there (a Redis that is not a cluster cannot serve a redis-cluster:// URL: give it as redis://), or fix --store.'
              : 'Start redis-server there, or fix --store.'
          }`,
        ],
        { cause: error },
      );
    }
    return store;
  }

  async get(key: string): Promise<unknown> {
    const json = await this.#client.get(this.#turnKey(key));
    if (json === null) return undefined;
    return json.startsWith(RAW_STRING) ? json.slice(RAW_STRING.length) : (JSON.parse(json) as unknown);
  }

  async set(key: string, value: unknown, ttlMs: number, options: SetOptions = {}): Promise<void> {
    const json = typeof value === 'string' ? `${RAW_STRING}${value}` : JSON.stringify(value);
    if (json === undefined) throw new TypeError('the turn store holds JSON values only');
    // One SET replaces the whole value with its TTL: a reader sees the old turn or the new one, never a mix.
    if (!options.fence) {
      await this.#client.set(this.#turnKey(key), json, 'PX', wholeMs(ttlMs));
      return;
    }
    const holder = this.#holders.get(options.fence);
    const written =
      holder &&
      (await this.#client.canvasAiFencedSet(holder.lockKey, this.#turnKey(key), holder.token, json, wholeMs(ttlMs)));
    if (written !== 1) throw new LockLostError();
  }

  async delete(key: string): Promise<void> {
    await this.#client.del(this.#turnKey(key));
  }

  async lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    const lockKey = this.#lockKey(key);
    const token = crypto.randomUUID();
    let taken: string | null;
    try {
      taken = await this.#client.set(lockKey, token, 'PX', wholeMs(ttlMs), 'NX');
    } catch (error) {
      // A timed-out SET may still reach Redis later; this release is queued behind it on the same connection, so
      // a lock nobody knows it holds does not block the turn until its TTL runs out.
      this.#client.canvasAiReleaseLock(lockKey, token).catch(() => undefined);
      throw error;
    }
    if (taken !== 'OK') return undefined;
    const lock: TurnLock = {
      release: async () => {
        await this.#client.canvasAiReleaseLock(lockKey, token);
      },
      held: async () => (await this.#client.canvasAiLockHeld(lockKey, token)) === 1,
    };
    this.#holders.set(lock, { lockKey, token });
    return lock;
  }

  /**
   * Redis's own count of the memory its data uses: kept by Redis with the data, so every instance reads the same total, and
   * expired turns leave it as Redis reclaims them. One `INFO memory`, which Redis answers without walking its keys; on a
   * cluster, one per primary node, summed.
   */
  async usage(): Promise<StoreUsage> {
    const client = this.#client;
    const nodes = client instanceof Cluster ? client.nodes('master') : [client];
    const counts = await Promise.all(nodes.map(async (node) => datasetBytes(await node.info('memory'))));
    const bytes = counts.reduce((sum, count) => sum + count, 0);
    return { bytes, full: bytes >= this.#maxBytes };
  }

  /** Closes the connection (waits for replies in flight when Redis is reachable). */
  async close(): Promise<void> {
    this.#state = 'closed';
    try {
      await this.#client.quit();
    } catch {
      this.#client.disconnect();
    }
  }

  // A value and its lock hash to one slot (the part in braces), so the fenced write can run on a cluster.
  #turnKey(key: string): string {
    return `${this.#prefix}turn:{${key}}`;
  }

  #lockKey(key: string): string {
    return `${this.#prefix}lock:{${key}}`;
  }
}

/** Whether `url` names a Redis Cluster (`redis-cluster://`, `rediss-cluster://`). */
function isClusterUrl(url: string): boolean {
  return /^rediss?-cluster:\/\//.test(url);
}

/** How the store talks to each Redis node: fail fast, never resend, reconnect forever. */
function nodeOptions(options: RedisTurnStoreOptions): RedisOptions {
  return {
    lazyConnect: true,
    // Fail now rather than queue: a hop waiting on a dead Redis would hold its HTTP request open for nothing.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A write whose reply was lost may or may not have run; resending it after a reconnect would be a second,
    // unasked-for write. The hop fails with 503 instead and the client decides.
    autoResendUnfulfilledCommands: false,
    commandTimeout: options.commandTimeoutMs ?? 2_000,
    connectTimeout: options.connectTimeoutMs ?? 5_000,
    // Keep trying forever, at most a second apart, so the server recovers by itself when Redis returns.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  };
}

/**
 * A cluster client from one node's URL: the client learns the other nodes and the slots from it. ioredis builds its
 * node connections from defaults of its own first (their offline queue and reconnects are the cluster's), so what
 * must not happen is said at the cluster's level: a command whose connection closed, or that met a cluster that is
 * down, fails at once instead of being sent again (it may have run: a second `SET NX` of a lock would find the lock
 * its first one took, and leave it held until its TTL). A `MOVED`, `ASK` or `TRYAGAIN` answer is still followed: the
 * node did not run the command.
 */
function clusterClient(url: string, options: RedisTurnStoreOptions): Cluster {
  const parsed = new URL(url.replace(/^(rediss?)-cluster:/, '$1:'));
  if (parsed.pathname !== '' && parsed.pathname !== '/') {
    throw new ConfigError([
      `--store: a Redis Cluster has one database; drop "${parsed.pathname}" from ${redactUrl(url, 'the Redis URL given')}.`,
    ]);
  }
  const tls = parsed.protocol === 'rediss:';
  const node = nodeOptions(options);
  const clusterOptions: ClusterOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 0,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    // The nodes are dialled by the addresses the cluster announces; TLS checks the certificate against the name
    // (managed clusters announce names that resolve to addresses their certificates do not list).
    ...(tls ? { dnsLookup: (address, lookup) => lookup(null, address) } : {}),
    redisOptions: {
      ...node,
      ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
      ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
      ...(tls ? { tls: {} } : {}),
    },
  };
  // An IPv6 address comes in brackets in a URL, without them to a socket.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Cluster([{ host, port: Number(parsed.port || 6379) }], clusterOptions);
}

/** The dataset's bytes from an `INFO memory` reply. */
function datasetBytes(info: string): number {
  // The dataset, not `used_memory`: that one also counts the buffers of requests in flight (a 5 MB turn being
  // written), so it jumps up and down with traffic and a full store would seem to empty between two writes.
  const bytes = Number(/^used_memory_dataset:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
  if (!Number.isFinite(bytes)) throw new Error('Redis INFO memory did not report used_memory_dataset');
  return bytes;
}

/** Redis wants a whole, positive number of milliseconds. */
function wholeMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}
