// What one session, one client address and everyone together may hold of the turn store (spec §8.8), over real
// HTTP: a flood of turns from one session is refused with 429 instead of evicting another session's turn; stored bytes
// (attachments) count; a session's kept answers drop its own oldest; the ledger is shared by instances on Redis; the
// sessions of one address share its quota, and a full store refuses new turns with 503 (memory and Redis); new
// sessions per address, IPv6 counted by /64.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, describe, it } from 'node:test';
import { HopErrorBody, HopResponse } from '@canvas-ai/protocol';
import { Redis } from 'ioredis';
import { FIXTURES_DIR } from '../src/config.js';
import { MemoryTurnStore } from '../src/store/memory.js';
import {
  EMPTY_LAYOUT,
  firstHop,
  laterHop,
  openSession,
  startTestServer,
  type TestServer,
  type TestSession,
} from './support/harness.js';
import { startCluster } from './support/instances.js';
import { startRedisServer } from './support/redis-server.js';
import { startServerProcess } from './support/server-process.js';

const BUILDER = { agent: 'page_builder' };
/** place-hero-two-hop: hop 1 parks a call, so the turn stays stored. */
const HERO = 'Add a hero for my bakery, Crumb & Co.';
/** qa-one-hop: answered at once, only the answer is kept (for a replay). */
const QUESTION = 'How do I get the assistant to change my page?';
const PHOTO = 'Put this photo of our cookie in a hero at the top of the page';
const png = await readFile(`${FIXTURES_DIR}attachments/cookie.png`);
const redis = await startRedisServer();
after(() => redis.close());

describe('a session that floods the store with turns', () => {
  it('is refused with 429 and Retry-After past its share, and never evicts another session’s turn', async () => {
    // A store small enough that sixty turns of one session would push the victim's turn out of it.
    const server = await startTestServer({ store: new MemoryTurnStore({ maxEntries: 50 }) });
    try {
      const victim = await openSession(server);
      const parked = `victim-${crypto.randomUUID()}`;
      assert.equal((await victim.hop(firstHop(parked, HERO, BUILDER))).body.should_continue, true);

      const attacker = await openSession(server);
      const statuses: number[] = [];
      let refusal: { status: number; body: unknown } | undefined;
      for (let index = 0; index < 60; index += 1) {
        const reply = await attacker.hop(firstHop(`flood-${index}`, HERO, BUILDER));
        statuses.push(reply.status);
        if (reply.status === 429) refusal ??= reply;
      }
      assert.equal(statuses.filter((status) => status === 200).length, 32, 'the session runs 32 turns at most');
      assert.equal(statuses.filter((status) => status === 429).length, 28);
      assert.equal(HopErrorBody.parse(refusal!.body).error.code, 'quota_exceeded');

      const next = await victim.hop(laterHop(parked, 2, EMPTY_LAYOUT, BUILDER));
      assert.equal(next.status, 200, 'the victim’s turn is still there');
      assert.equal(HopResponse.parse(next.body).outputs.length, 1);
    } finally {
      await server.close();
    }
  });

  it('is checked last, for a new turn only: a refusal at the door and a replay of hop 1 come first (spec §8.8)', async () => {
    const server = await startTestServer({ quotas: { session: { maxTurns: 2 } } });
    try {
      const session = await openSession(server);
      const first = await session.hop(firstHop('quota-order-1', HERO, BUILDER));
      assert.equal(first.status, 200);
      assert.equal((await session.hop(firstHop('quota-order-2', HERO, BUILDER))).status, 200);
      assert.equal((await session.hop(firstHop('quota-order-3', HERO, BUILDER))).status, 429, 'its share is 2');

      const malformed = await session.hop({ ...firstHop('quota-order-4', HERO, BUILDER), messages: [] });
      assert.equal(malformed.status, 400, 'the door refuses first');
      assert.equal(HopErrorBody.parse(malformed.body).error.field, 'messages');
      const unknownAgent = await session.hop(firstHop('quota-order-5', HERO, { agent: 'nobody' }));
      assert.equal(HopErrorBody.parse(unknownAgent.body).error.code, 'unknown_agent');

      const replay = await session.hop(firstHop('quota-order-1', HERO, BUILDER));
      assert.equal(replay.status, 200, 'a repeat of an answered hop 1 is no new turn');
      assert.deepEqual(replay.body, first.body);
      assert.equal((await session.hop(laterHop('quota-order-1', 2, EMPTY_LAYOUT, BUILDER))).status, 200);
    } finally {
      await server.close();
    }
  });

  it('says when to come back, and lets the session go on once one of its turns has ended', async () => {
    const server = await startTestServer({ quotas: { session: { maxTurns: 2 } } });
    try {
      const session = await openSession(server);
      assert.equal((await session.hop(firstHop('q-1', HERO, BUILDER))).status, 200);
      assert.equal((await session.hop(firstHop('q-2', HERO, BUILDER))).status, 200);
      const refused = await fetch(server.hopUrl, {
        method: 'POST',
        headers: session.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify(firstHop('q-3', HERO, BUILDER)),
      });
      assert.equal(refused.status, 429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 30 * 60, `Retry-After ${retryAfter}`);
      // Hop 2 carries the hero's output, so the answer waits for hop 3 (spec §16.3): only then does q-1 end.
      assert.equal((await session.hop(laterHop('q-1', 2, EMPTY_LAYOUT, BUILDER))).body.should_continue, true);
      assert.equal((await session.hop(laterHop('q-1', 3, EMPTY_LAYOUT, BUILDER))).body.should_continue, false);
      assert.equal((await session.hop(firstHop('q-3', HERO, BUILDER))).status, 200, 'a slot freed when q-1 ended');
      assert.equal((await session.cancel('q-2')).body.cancelled, true);
      assert.equal((await session.hop(firstHop('q-4', HERO, BUILDER))).status, 200, 'and when q-2 was cancelled');
      assert.equal((await session.hop(laterHop('q-3', 2, EMPTY_LAYOUT, BUILDER))).status, 200, 'its own turns go on');
    } finally {
      await server.close();
    }
  });

  it('counts stored bytes, attachments included', async () => {
    const server = await startTestServer({ quotas: { session: { maxBytes: 10 * 1024 * 1024 } } });
    try {
      const session = await openSession(server);
      const withPhotos = async (id: string) => {
        const form = new FormData();
        form.append('request', JSON.stringify({ ...firstHop(id, PHOTO), agent: 'page_builder' }));
        const image = new Uint8Array(1024 * 1024);
        image.set(png);
        for (let index = 0; index < 4; index += 1) form.append('attachments', new Blob([image]), `p${index}.png`);
        const reply = await fetch(server.hopUrl, { method: 'POST', headers: session.headers(), body: form });
        return reply.status;
      };
      // Four 1 MiB attachments are about 5.6 million characters of base64 in the stored turn.
      assert.deepEqual([await withPhotos('p-1'), await withPhotos('p-2'), await withPhotos('p-3')], [200, 200, 429]);
      const other = await openSession(server);
      assert.equal((await other.hop(firstHop('p-x', HERO, BUILDER))).status, 200, 'another session has its own share');
    } finally {
      await server.close();
    }
  });

  it('keeps a session’s latest answers for a replay, dropping its own oldest past its share', async () => {
    const server = await startTestServer({ quotas: { session: { maxFinished: 3 } } });
    try {
      const session = await openSession(server);
      for (let index = 1; index <= 5; index += 1) {
        assert.equal((await session.hop(firstHop(`a-${index}`, QUESTION))).body.should_continue, false);
      }
      const kept = [];
      for (let index = 1; index <= 5; index += 1)
        kept.push((await server.store.get(`${session.id}:a-${index}`)) !== undefined);
      assert.deepEqual(kept, [false, false, true, true, true]);
      const before = server.logs.filter((entry) => entry.event === 'hop_replayed').length;
      assert.equal((await session.hop(firstHop('a-5', QUESTION))).status, 200);
      assert.equal(server.logs.filter((entry) => entry.event === 'hop_replayed').length, before + 1, 'a-5 replays');
    } finally {
      await server.close();
    }
  });
});

/** Sends hop 1 of a turn with four 1 MiB photos (about 5.6 million characters of base64 once stored). */
async function photoTurn(server: { hopUrl: string }, session: TestSession, id: string) {
  const form = new FormData();
  form.append('request', JSON.stringify({ ...firstHop(id, PHOTO), agent: 'page_builder' }));
  const image = new Uint8Array(1024 * 1024);
  image.set(png);
  for (let index = 0; index < 4; index += 1) form.append('attachments', new Blob([image]), `p${index}.png`);
  const reply = await fetch(server.hopUrl, { method: 'POST', headers: session.headers(), body: form });
  const body = (await reply.json()) as unknown;
  return { status: reply.status, retryAfter: reply.headers.get('retry-after'), body };
}

/** A server behind a (pretend) reverse proxy: the client's address is the last entry of `x-forwarded-for`. */
const BEHIND_PROXY = { clientAddressHeader: 'x-forwarded-for' };
const from = (address: string) => ({ 'x-forwarded-for': address });

describe('the sessions of one client address, and the store in all (memory)', () => {
  it('G1: ten sessions from one address cannot get a parked turn of another address evicted, the store full or not', async () => {
    // A total of 24 MiB: five photo turns fill it.
    const server = await startTestServer({ store: new MemoryTurnStore({ maxBytes: 24 * 1024 * 1024 }) }, BEHIND_PROXY);
    try {
      const victim = await openSession(server, from('192.0.2.10'));
      const parked = `victim-${crypto.randomUUID()}`;
      assert.equal((await victim.hop(firstHop(parked, HERO, BUILDER))).body.should_continue, true);

      const replies: Awaited<ReturnType<typeof photoTurn>>[] = [];
      for (let index = 0; index < 10; index += 1) {
        const attacker = await openSession(server, from('198.51.100.7'));
        for (let turn = 0; turn < 3; turn += 1)
          replies.push(await photoTurn(server, attacker, `flood-${index}-${turn}`));
      }
      const accepted = replies.filter((reply) => reply.status === 200).length;
      const full = replies.filter((reply) => reply.status === 503);
      assert.equal(accepted, 5, 'turns start until the store is full');
      assert.equal(full.length, 25, 'then every new turn is refused, whichever session sends it');
      assert.equal(HopErrorBody.parse(full[0]!.body).error.code, 'server_busy');
      assert.ok(Number(full[0]!.retryAfter) >= 1, `Retry-After ${full[0]!.retryAfter}`);

      const next = await victim.hop(laterHop(parked, 2, EMPTY_LAYOUT, BUILDER));
      assert.equal(next.status, 200, 'the victim’s parked turn is still there');
      assert.equal(HopResponse.parse(next.body).outputs.length, 1);
      const other = await openSession(server, from('203.0.113.5'));
      assert.equal((await other.hop(firstHop('late', HERO, BUILDER))).status, 503, 'a new turn of anyone waits');
    } finally {
      await server.close();
    }
  });

  it('G1: the sessions of one address share its byte quota, and another address still starts turns', async () => {
    const server = await startTestServer({ quotas: { address: { maxBytes: 12 * 1024 * 1024 } } }, BEHIND_PROXY);
    try {
      const statuses: number[] = [];
      let refusal: Awaited<ReturnType<typeof photoTurn>> | undefined;
      for (let index = 0; index < 10; index += 1) {
        const reply = await photoTurn(server, await openSession(server, from('198.51.100.7')), `spread-${index}`);
        statuses.push(reply.status);
        if (reply.status === 429) refusal ??= reply;
      }
      // 0, 5.6 and 11.2 million characters are under 12 MiB; 16.8 million are not.
      assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
      assert.equal(HopErrorBody.parse(refusal!.body).error.code, 'quota_exceeded');
      assert.match(HopErrorBody.parse(refusal!.body).message, /client address/);
      assert.ok(Number(refusal!.retryAfter) >= 1);
      const other = await openSession(server, from('192.0.2.10'));
      assert.equal((await photoTurn(server, other, 'other-1')).status, 200, 'another address has its own share');
    } finally {
      await server.close();
    }
  });

  it('G1: the sessions of one address share its running turns, and a cancelled turn gives its slot back', async () => {
    const server = await startTestServer({ quotas: { address: { maxTurns: 3 } } }, BEHIND_PROXY);
    try {
      const sessions: TestSession[] = [];
      const statuses: number[] = [];
      for (let index = 0; index < 5; index += 1) {
        const session = await openSession(server, from('198.51.100.7'));
        sessions.push(session);
        statuses.push((await session.hop(firstHop(`run-${index}`, HERO, BUILDER))).status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.equal((await sessions[0]!.cancel('run-0')).body.cancelled, true);
      assert.equal((await sessions[4]!.hop(firstHop('run-4', HERO, BUILDER))).status, 200, 'the slot came back');
      const other = await openSession(server, from('192.0.2.10'));
      assert.equal((await other.hop(firstHop('other', HERO, BUILDER))).status, 200);
    } finally {
      await server.close();
    }
  });
});

describe('the store in all (Redis)', () => {
  it('G1: a full Redis refuses new turns with 503 and Retry-After on every instance, and running turns go on', async () => {
    const raw = new Redis(redis.url);
    const usedNow = async () => Number(/^used_memory_dataset:(\d+)/m.exec(await raw.info('memory'))?.[1]);
    // Room for about two photo turns above what Redis holds now.
    const cluster = await startCluster(redis.url, 2, () => ({}), { maxBytes: (await usedNow()) + 12 * 1024 * 1024 });
    try {
      const [a, b] = cluster.instances as [TestServer, TestServer];
      const victim = await openSession(a);
      const parked = `victim-${crypto.randomUUID()}`;
      assert.equal((await victim.hop(firstHop(parked, HERO, BUILDER))).body.should_continue, true);
      const attacker = await openSession(a);
      const replies: Awaited<ReturnType<typeof photoTurn>>[] = [];
      for (let index = 0; index < 6; index += 1)
        replies.push(await photoTurn(index % 2 === 0 ? a : b, attacker, `fill-${index}`));
      const statuses = replies.map((reply) => reply.status);
      const firstFull = statuses.indexOf(503);
      assert.ok(firstFull >= 1, `some turns start before Redis is full (${statuses})`);
      // Not "every later one": Redis's dataset figure falls back now and then between two writes (seen on clean
      // clones: 200,503,200,503,…), so room can come back; what must hold is a refusal at the total on both sides.
      assert.ok(
        statuses.slice(firstFull).filter((status) => status === 503).length >= 2,
        `then new turns are refused (${statuses})`,
      );
      assert.ok(
        replies.some((reply, index) => reply.status === 503 && index % 2 === 1) &&
          replies.some((reply, index) => reply.status === 503 && index % 2 === 0),
        `on both instances (${statuses})`,
      );
      assert.equal(HopErrorBody.parse(replies[firstFull]!.body).error.code, 'server_busy');
      assert.ok(Number(replies[firstFull]!.retryAfter) >= 1);
      const next = await fetch(b.hopUrl, {
        method: 'POST',
        headers: victim.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify(laterHop(parked, 2, EMPTY_LAYOUT, BUILDER)),
      });
      assert.equal(next.status, 200, 'the parked turn goes on at the total, on the other instance');
    } finally {
      await cluster.close();
      await raw.quit();
    }
  });
});

describe('the session ledger across instances (Redis)', () => {
  it('is one ledger: a session at its share on one instance is refused on the other', async () => {
    const cluster = await startCluster(redis.url, 2, () => ({ quotas: { session: { maxTurns: 2 } } }));
    try {
      const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
      const session = await openSession(a);
      const on = (server: { hopUrl: string }, own: TestSession, body: unknown) =>
        fetch(server.hopUrl, {
          method: 'POST',
          headers: own.headers({ 'content-type': 'application/json' }),
          body: JSON.stringify(body),
        }).then((reply) => reply.status);
      assert.equal(await on(a, session, firstHop('r-1', HERO, BUILDER)), 200);
      assert.equal(await on(b, session, firstHop('r-2', HERO, BUILDER)), 200);
      assert.equal(await on(a, session, firstHop('r-3', HERO, BUILDER)), 429);
      assert.equal(await on(b, session, firstHop('r-4', HERO, BUILDER)), 429);
      assert.equal(await on(b, session, laterHop('r-1', 2, EMPTY_LAYOUT, BUILDER)), 200);
      assert.equal(await on(b, session, laterHop('r-1', 3, EMPTY_LAYOUT, BUILDER)), 200, 'r-1 ended on the other one');
      assert.equal(await on(a, session, firstHop('r-3', HERO, BUILDER)), 200);
    } finally {
      await cluster.close();
    }
  });
});

describe('new sessions from one address', () => {
  it('are refused with 429 past --ip-sessions, while a session it has goes on', async () => {
    const cli = await startServerProcess(['--ip-sessions', '3']);
    try {
      const sessions = [await openSession(cli), await openSession(cli), await openSession(cli)];
      const fourth = await fetch(`${cli.url}/api/token`);
      assert.equal(fourth.status, 429);
      assert.equal(((await fourth.json()) as { error: { code: string } }).error.code, 'quota_exceeded');
      assert.ok(Number(fourth.headers.get('retry-after')) > 0);
      assert.equal(fourth.headers.get('set-cookie'), null);
      const again = await fetch(`${cli.url}/api/token`, { headers: { cookie: sessions[0]!.cookie } });
      assert.equal(again.status, 200, 'a session it has gets its token');
      assert.equal((await sessions[2]!.hop(firstHop('ip-1', QUESTION))).status, 200);
    } finally {
      await cli.kill();
    }
  });
});

describe('the bucket of a client address', () => {
  it('G4: IPv6 addresses of one /64 share a bucket; an IPv4-mapped address counts as its IPv4', async () => {
    const server = await startTestServer({ quotas: { maxSessionsPerIp: 2 } }, BEHIND_PROXY);
    try {
      const mint = async (address: string) =>
        (await fetch(`${server.url}/api/token`, { headers: from(address) })).status;
      assert.deepEqual(
        [await mint('2001:db8:1:2::a'), await mint('2001:db8:1:2:ffff::b'), await mint('2001:db8:1:2:0:0:0:c')],
        [200, 200, 429],
        'three addresses of one /64 are one client',
      );
      assert.equal(await mint('2001:db8:1:3::a'), 200, 'the next /64 is another client');
      assert.deepEqual(
        [await mint('192.0.2.7'), await mint('::ffff:192.0.2.7'), await mint('::ffff:c000:207')],
        [200, 200, 429],
        'an IPv4-mapped address, in either spelling, counts as its IPv4',
      );
      assert.equal(await mint('spoofed, 192.0.2.8'), 200, 'of a list, the entry the proxy added counts');
      assert.equal(await mint('192.0.2.7, 192.0.2.8'), 200);
      assert.equal(await mint('192.0.2.7, 192.0.2.8'), 429);
    } finally {
      await server.close();
    }
  });

  it('G4: is the connection’s address unless a client-address header is named', async () => {
    const server = await startTestServer({ quotas: { maxSessionsPerIp: 2 } });
    try {
      const mint = async (address: string) =>
        (await fetch(`${server.url}/api/token`, { headers: from(address) })).status;
      assert.deepEqual([await mint('192.0.2.1'), await mint('192.0.2.2'), await mint('192.0.2.3')], [200, 200, 429]);
    } finally {
      await server.close();
    }
  });
});
