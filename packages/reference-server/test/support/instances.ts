import type { AppOptions } from '../../src/app.js';
import type { LogEntry } from '../../src/log.js';
import { RedisTurnStore } from '../../src/store/redis.js';
import { startTestServer, type TestServer } from './harness.js';

/** One CSRF secret for every instance, as a deployment behind a load balancer sets CANVAS_AI_SECRET. */
export const SHARED_SECRET = 'one secret shared by every instance';

/** Several real servers (each its own HTTP server and Redis connection) sharing one Redis. */
export interface Cluster {
  instances: TestServer[];
  stores: RedisTurnStore[];
  /** The key prefix of this cluster's turns in Redis. */
  prefix: string;
  /** Every instance's log lines, tagged with the instance's index. */
  logs(): Array<LogEntry & { instance: number }>;
  /**
   * A `fetch` that sends each request to the next instance in turn (a round-robin load balancer), starting with
   * instance `start`: the hops of one turn alternate between instances.
   */
  alternatingFetch(start?: number): typeof fetch;
  close(): Promise<void>;
}

/** Starts `count` instances on 127.0.0.1:0 over one Redis; `overrides` may differ per instance. */
export async function startCluster(
  redisUrl: string,
  count = 2,
  overrides: (index: number) => Partial<AppOptions> = () => ({}),
  storeOptions: { commandTimeoutMs?: number; maxBytes?: number } = {},
): Promise<Cluster> {
  const prefix = `cluster-${crypto.randomUUID()}:`;
  const stores: RedisTurnStore[] = [];
  const instances: TestServer[] = [];
  try {
    for (let index = 0; index < count; index += 1) {
      const store = await RedisTurnStore.connect(redisUrl, { prefix, ...storeOptions });
      stores.push(store);
      instances.push(await startTestServer({ store, security: { secret: SHARED_SECRET }, ...overrides(index) }));
    }
  } catch (error) {
    await Promise.all([...instances.map((server) => server.close()), ...stores.map((store) => store.close())]);
    throw error;
  }
  return {
    instances,
    stores,
    prefix,
    logs: () => instances.flatMap((server, instance) => server.logs.map((entry) => ({ ...entry, instance }))),
    alternatingFetch(start = 0) {
      let next = start;
      return (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        const target = new URL(instances[next++ % instances.length]!.url);
        url.protocol = target.protocol;
        url.host = target.host;
        return fetch(url, init);
      };
    },
    close: async () => {
      await Promise.all(instances.map((server) => server.close()));
      await Promise.all(stores.map((store) => store.close()));
    },
  };
}
