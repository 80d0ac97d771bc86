import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { applyOutputs } from '@canvas-ai/protocol';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { MemoryTurnStore } from '../src/store/memory.js';
import { RedisTurnStore } from '../src/store/redis.js';
import type { TurnStore } from '../src/store/turn-store.js';
import { EMPTY_LAYOUT, firstHop, laterHop, openSession, sharedFixtures, startTestServer } from './support/harness.js';
import { RecordingProvider } from './support/providers.js';
import { startRedisServer } from './support/redis-server.js';
import { SlowReplyStore } from './support/slow-reply-store.js';

// A cancel racing a hop that is saving its turn (spec §8.5): whatever the interleaving, the cancel wins. The store's
// reply to the hop's read after its model decision is held "in flight" while the cancel runs, as a slow Redis
// reply would be; then it is delivered.
const fixtures = await sharedFixtures();
const BUILDER = { agent: 'page_builder' };
const shop = fixtures.scenarios.find((scenario) => scenario.id === 'cookie-shop')!;

async function cancelWhileTheHopSaves(store: TurnStore): Promise<void> {
  const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
  const slow = new SlowReplyStore(store);
  const server = await startTestServer({ provider: model, store: slow });
  try {
    const session = await openSession(server);
    const id = `race-${crypto.randomUUID()}`;
    assert.equal((await session.hop(firstHop(id, shop.user_message, BUILDER))).body.should_continue, true);

    const decision = model.holdNext();
    const running = session.hop(laterHop(id, 2, EMPTY_LAYOUT, BUILDER));
    await decision.entered;
    // The hop's next read of its own turn's keys (the cancel marker, after its save); not its session's ledger.
    const reply = slow.holdNextGet((key) => key.startsWith(session.id));
    decision.release();
    await reply.entered; // hop 2 has decided and is saving: its read of the store is on the wire
    const cancel = await session.cancel(id);
    assert.deepEqual(cancel.body, { status: true, request_id: id, cancelled: true });
    reply.release();
    const hop2 = await running;

    // Hop 2 itself may have got through before the cancel; the turn must not go on after it.
    assert.ok([200, 410].includes(hop2.status), `hop 2 answered ${hop2.status}`);
    const page =
      hop2.status === 200 ? applyOutputs({ layout: EMPTY_LAYOUT, page: {} }, hop2.body.outputs).layout : EMPTY_LAYOUT;
    const hop3 = await session.hop(laterHop(id, 3, page, BUILDER));
    assert.equal(hop3.status, 410, 'the cancelled turn does not go on');
    assert.equal(hop3.body.error.code, 'turn_not_found');
    assert.equal((await session.hop(laterHop(id, 2, page, BUILDER))).status, 410, 'nor is its hop replayed');
    assert.equal((await session.cancel(id)).body.cancelled, false, 'there is nothing left to cancel');
  } finally {
    await server.close();
  }
}

describe('a cancel landing while a hop saves the turn', () => {
  it('wins with the memory store', async () => {
    await cancelWhileTheHopSaves(new MemoryTurnStore());
  });

  it('wins with the Redis store', async () => {
    const redis = await startRedisServer();
    const store = await RedisTurnStore.connect(redis.url, { prefix: `race-${crypto.randomUUID()}:` });
    after(async () => {
      await store.close();
      await redis.close();
    });
    await cancelWhileTheHopSaves(store);
  });
});
