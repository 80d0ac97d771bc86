import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort, type RedisServer, startRedisServer } from './redis-server.js';

const run = promisify(execFile);

/** A local Redis Cluster of primaries only, each a real `redis-server --cluster-enabled yes` in its own temp dir. */
export interface RedisCluster {
  /** `redis-cluster://127.0.0.1:<port of the first node>`: what `--store` takes. */
  url: string;
  nodes: RedisServer[];
  /** Stops every node and removes their temp dirs. */
  close(): Promise<void>;
}

/**
 * Starts `size` cluster-enabled nodes on free loopback ports, gives them the 16,384 slots with Debian's
 * `redis-cli --cluster create` (no replicas), and resolves once every node reports `cluster_state:ok`.
 */
export async function startRedisCluster(size = 3): Promise<RedisCluster> {
  const nodes: RedisServer[] = [];
  const close = async () => {
    await Promise.all(nodes.map((node) => node.close()));
  };
  try {
    for (let index = 0; index < size; index += 1) {
      // The cluster bus listens on a port of its own, by default the node's port + 10,000: past 65,535 for a
      // high free port, so it is picked free too.
      nodes.push(
        await startRedisServer([
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(await freePort()),
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '5000',
        ]),
      );
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((node) => `127.0.0.1:${node.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await Promise.all(nodes.map((node) => clusterReady(node.port)));
  } catch (error) {
    await close();
    throw error;
  }
  return { url: `redis-cluster://127.0.0.1:${nodes[0]!.port}`, nodes, close };
}

/** Resolves once the node on `port` says the cluster is up (every slot served). */
async function clusterReady(port: number): Promise<void> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  try {
    await client.connect();
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const info = (await client.call('CLUSTER', 'INFO')) as string;
      if (/^cluster_state:ok/m.test(info)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the Redis Cluster node on port ${port} never reported cluster_state:ok`);
  } finally {
    client.disconnect();
  }
}
