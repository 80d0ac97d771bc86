import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HopErrorBody, HopResponse } from '@canvas-ai/protocol';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { createApp } from '../src/app.js';
import { silentLogger } from '../src/log.js';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { MemoryTurnStore } from '../src/store/memory.js';
import { RedisTurnStore } from '../src/store/redis.js';
import {
  firstHop,
  laterHop,
  openSession,
  sharedFixtures,
  startTestServer,
  type TestSession,
  EMPTY_LAYOUT,
  type JsonBody,
} from './support/harness.js';
import { startCluster, type Cluster } from './support/instances.js';
import { ListProvider, RecordingProvider } from './support/providers.js';
import { RecordingStore } from './support/recording-store.js';
import { startRedisServer, type RedisServer } from './support/redis-server.js';

const fixtures = await sharedFixtures();
const redis: RedisServer = await startRedisServer();
after(() => redis.close());

const BUILDER = { agent: 'page_builder' };
const HERO = 'Add a hero for my bakery, Crumb & Co.';

/** POSTs a hop to one server with a session's cookie and token (sessions work on every instance: one secret). */
async function hopOn(
  server: { hopUrl: string },
  session: TestSession,
  body: unknown,
  headers: Record<string, string> = session.headers(),
) {
  const reply = await fetch(server.hopUrl, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: reply.status, body: (await reply.json()) as JsonBody };
}

describe('another session, on any instance, cannot touch a turn (Redis)', () => {
  let cluster: Cluster;
  let raw: Redis;
  before(async () => {
    cluster = await startCluster(redis.url, 2);
    raw = new Redis(redis.url);
  });
  after(async () => {
    raw.disconnect();
    await cluster.close();
  });

  it('cannot resume or cancel it, and using the same request_id only starts its own turn', async () => {
    const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
    const alice = await openSession(a);
    const mallory = await openSession(b);
    const id = `shared-id-${crypto.randomUUID()}`;
    assert.equal((await hopOn(a, alice, firstHop(id, HERO, BUILDER))).status, 200);

    const resumed = await hopOn(b, mallory, laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
    assert.equal(resumed.status, 410, 'the turn does not exist in her session');
    assert.equal(resumed.body.error.code, 'turn_not_found');
    const cancel = await fetch(`${a.url}/api/hop/${id}`, { method: 'DELETE', headers: mallory.headers() });
    assert.deepEqual(await cancel.json(), { status: true, request_id: id, cancelled: false });
    const borrowed = await hopOn(b, mallory, laterHop(id, 2, EMPTY_LAYOUT, BUILDER), {
      cookie: alice.cookie,
      'x-csrf-token': mallory.token,
    });
    assert.equal(borrowed.status, 403, 'a stolen cookie without its own token is refused');

    const own = await hopOn(b, mallory, firstHop(id, 'Hello', {}));
    assert.equal(own.status, 200, 'the same request_id in another session is another turn');

    const next = await hopOn(b, alice, laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
    assert.equal(next.status, 200);
    assert.equal(HopResponse.parse(next.body).outputs.length, 1, "Alice's turn carried on, untouched");
    const keys = await raw.keys(`${cluster.prefix}turn:{*:${id}}`);
    assert.deepEqual(
      keys.sort(),
      [alice, mallory].map((session) => `${cluster.prefix}turn:{${session.id}:${id}}`).sort(),
      'one key per session',
    );
  });
});

describe("a deployment's own session ids (the sessionId hook)", () => {
  it('keeps "alice" + "x:t1" apart from "alice:x" + "t1", though both would join to "alice:x:t1"', async () => {
    const store = new RecordingStore(new MemoryTurnStore());
    const server = await startTestServer({
      store,
      security: { csrf: false, sessionId: (request) => request.headers.get('x-user') ?? undefined },
    });
    try {
      const as = (user: string) => ({ headers: () => ({ 'x-user': user }) }) as unknown as TestSession;
      assert.equal(
        (await hopOn(server, as('alice'), firstHop('x:t1', HERO, BUILDER), { 'x-user': 'alice' })).status,
        200,
      );
      const other = await hopOn(server, as('alice:x'), laterHop('t1', 2, EMPTY_LAYOUT, BUILDER), {
        'x-user': 'alice:x',
      });
      assert.equal(other.status, 410);
      const keys = new Set(store.calls.map((call) => call.key));
      assert.ok(keys.has('alice:x:t1') && keys.has('alice%3Ax:t1'), [...keys].join(', '));
    } finally {
      await server.close();
    }
  });
});

describe('a YAML alias bomb in a tool input', () => {
  it('is refused as a readable error to the model, with no output and no memory blow-up', async () => {
    // Ten levels of nine aliases each: 9^10 (3.4 billion) strings if it were expanded.
    const levels = ['      l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let level = 1; level < 10; level += 1)
      levels.push(
        `      l${level}: &l${level} [${Array(9)
          .fill(`*l${level - 1}`)
          .join(', ')}]`,
      );
    const placeBomb = `- sdc.demo.hero:\n    props:\n${levels.join('\n')}\n      heading: *l9\n`;
    const editBomb = `some-uuid:\n  ${levels.map((line) => line.trim()).join('\n  ')}\n  heading: *l9\n`;
    const model = new RecordingProvider(
      new ListProvider([
        {
          text: 'Placing and editing.',
          toolCalls: [
            {
              id: 'bomb_place',
              name: 'place_components',
              arguments: JSON.stringify({
                operations: [{ target: 'content', placement: 'inside', components: placeBomb }],
              }),
            },
            { id: 'bomb_edit', name: 'edit_components', arguments: JSON.stringify({ component_edits: editBomb }) },
          ],
        },
        { text: 'I could not do that.', toolCalls: [] },
      ]),
    );
    const server = await startTestServer({ provider: model });
    try {
      const session = await openSession(server);
      assert.equal((await session.hop(firstHop('bomb', 'Do it', BUILDER))).status, 200);
      const heapBefore = process.memoryUsage().heapUsed;
      const reply = await session.hop(laterHop('bomb', 2, EMPTY_LAYOUT, BUILDER));
      const grown = process.memoryUsage().heapUsed - heapBefore;
      assert.equal(reply.status, 200);
      assert.deepEqual(HopResponse.parse(reply.body).outputs, [], 'nothing reaches the page');
      assert.ok(grown < 64 * 1024 * 1024, `the heap grew ${Math.round(grown / 1024 / 1024)} MB`);
      const told = model.requests[1]!.messages.filter((message) => message.role === 'tool');
      assert.deepEqual(
        told.map((message) => message.role === 'tool' && message.call_id),
        ['bomb_place', 'bomb_edit'],
      );
      for (const message of told)
        assert.match(message.role === 'tool' ? message.content : '', /without YAML anchors and aliases/);
    } finally {
      await server.close();
    }
  });
});

describe('request_id characters outside [A-Za-z0-9._:-]', () => {
  const badIds = fc
    .oneof(
      fc.constantFrom(
        '*',
        'a b',
        '../../etc/passwd',
        'k\r\nFLUSHALL',
        '{tag}',
        'é',
        '🍪',
        'x'.repeat(129),
        '\u0000',
        'a%00',
        '"',
        'ab\u202Ecd',
        '\uD800',
      ),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 160 }),
    )
    .filter((id) => !/^[A-Za-z0-9._:-]{1,128}$/.test(id));

  it('are refused with 400 on hop and cancel before any store key is made (Redis: no key written)', async () => {
    const inner = await RedisTurnStore.connect(redis.url, { prefix: `ids-${crypto.randomUUID()}:` });
    const store = new RecordingStore(inner);
    const raw = new Redis(redis.url);
    const app = createApp({
      agents: fixtures.agents,
      catalog: fixtures.catalog,
      provider: new ScriptedProvider(fixtures.scenarios),
      store,
      log: silentLogger,
    });
    try {
      const token = await app.fetch(new Request('http://127.0.0.1/api/token'));
      const cookie = token.headers.get('set-cookie')!.split(';')[0]!;
      const headers = { cookie, 'x-csrf-token': ((await token.json()) as { token: string }).token };
      const keysBefore = await raw.dbsize();
      await fc.assert(
        fc.asyncProperty(badIds, async (id) => {
          const hop = await app.fetch(
            new Request('http://127.0.0.1/api/hop', {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: JSON.stringify(firstHop(id, 'Hello')),
            }),
          );
          assert.equal(hop.status, 400);
          const body = HopErrorBody.parse(await hop.json());
          assert.equal(body.error.field, 'request_id');
          assert.equal(body.request_id, undefined, 'an id that fails the pattern is not even echoed');
          const cancel = await app.fetch(
            new Request(`http://127.0.0.1/api/hop/${percentEncoded(id)}`, { method: 'DELETE', headers }),
          );
          assert.ok(cancel.status === 400 || cancel.status === 404, `cancel answered ${cancel.status}`);
          HopErrorBody.parse(await cancel.json());
          assert.deepEqual(store.calls, [], 'the store was never called');
        }),
        { numRuns: 200 },
      );
      assert.equal(await raw.dbsize(), keysBefore);
    } finally {
      raw.disconnect();
      await inner.close();
    }
  });
});

/** Every UTF-8 byte of `id` percent-encoded (a lone surrogate, which encodeURIComponent refuses, becomes U+FFFD). */
function percentEncoded(id: string): string {
  return [...Buffer.from(id, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}
