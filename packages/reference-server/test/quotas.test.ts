// What one session, and one client address, may hold of the turn store (spec §8.6), over real HTTP: a flood of turns
// from one session is refused with 429 instead of evicting another session's turn; stored bytes (attachments) count;
// a session's kept answers drop its own oldest; the ledger is shared by instances on Redis; new sessions per address.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, describe, it } from 'node:test';
import { HopErrorBody, HopResponse } from '@canvas-ai/protocol';
import { FIXTURES_DIR } from '../src/config.js';
import { MemoryTurnStore } from '../src/store/memory.js';
import { EMPTY_LAYOUT, firstHop, laterHop, openSession, startTestServer, type TestSession } from './support/harness.js';
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
