import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { applyOutputsWithResults, type CanvasDocument, type Layout } from '@canvas-ai/protocol';
import { ScriptedProvider } from '../src/providers/scripted.js';
import { RedisTurnStore } from '../src/store/redis.js';
import { ledgerKey, turnKey } from '../src/store/keys.js';
import type { TurnStore } from '../src/store/turn-store.js';
import { LOST_PAGE_TEXT, STORED_PAGE_CHARS } from '../src/stored-pages.js';
import {
  firstHop,
  laterHop,
  openSession,
  sharedFixtures,
  startTestServer,
  type TestServer,
  type TestSession,
} from './support/harness.js';
import { RecordingProvider } from './support/providers.js';
import { RecordingStore } from './support/recording-store.js';
import { startRedisServer } from './support/redis-server.js';
import { MemoryTurnStore } from '../src/store/memory.js';

const fixtures = await sharedFixtures();
const COOKIE_SHOP = 'Build a homepage for a cookie shop';
const WHOLE_PAGE = /^# The page now/;

/**
 * A page whose description is well over {@link STORED_PAGE_CHARS}, and several times the turn's record: 900 long
 * paragraphs in a region of their own, and the empty `content` region the cookie-shop turn fills.
 */
function largePage(): Layout {
  const components = Array.from({ length: 900 }, (_, index) => ({
    uuid: crypto.randomUUID(),
    component: 'sdc.demo.text',
    props: {
      body: `Paragraph ${index}: ${'small batches, real butter, delivered warm to your door every morning. '.repeat(4)}`,
    },
  }));
  return { regions: { content: { components: [] }, archive: { components } } };
}

/** The cookie-shop turn on `layout`, each hop carrying the page with the previous outputs applied, as the widget does. */
async function playTurn(
  session: TestSession,
  requestId: string,
  layout: Layout,
  beforeHop: (hop: number) => Promise<void> = async () => undefined,
): Promise<number> {
  let document: CanvasDocument = { layout, page: {} };
  let body: unknown = firstHop(requestId, COOKIE_SHOP, { agent: 'page_builder', context: { current_layout: layout } });
  for (let hop = 1; ; hop += 1) {
    const reply = await session.hop(body);
    assert.equal(reply.status, 200, JSON.stringify(reply.body).slice(0, 300));
    const applied = applyOutputsWithResults(document, reply.body.outputs);
    document = applied.document;
    if (!reply.body.should_continue) return hop;
    await beforeHop(hop + 1);
    body = {
      ...laterHop(requestId, hop + 1, document.layout, { agent: 'page_builder' }),
      apply_results: applied.results,
    };
  }
}

/** The texts of the whole-page notices of a model request. */
function wholePages(messages: ReadonlyArray<{ role: string; text?: string }>): string[] {
  return messages.flatMap((message) =>
    message.role === 'notice' && WHOLE_PAGE.test(message.text ?? '') ? [message.text!] : [],
  );
}

function pageKeysWritten(store: RecordingStore): string[] {
  return store.calls.filter((call) => call.op === 'set' && call.key.includes('/page/')).map((call) => call.key);
}

/** The behaviour on any store: `open` gives a fresh one. */
function storedPagesOn(name: string, open: () => Promise<TurnStore>) {
  describe(`the page told whole is stored once, apart from the turn (${name})`, () => {
    const servers: TestServer[] = [];
    after(() => Promise.all(servers.map((server) => server.close())));

    async function serve() {
      const store = new RecordingStore(await open());
      const model = new RecordingProvider(new ScriptedProvider(fixtures.scenarios));
      const server = await startTestServer({ store, provider: model });
      servers.push(server);
      return { store, model, session: await openSession(server) };
    }

    it('writes the page once, leaves it out of the record, and shows it to the model on every decision', async () => {
      const { store, model, session } = await serve();
      const id = `pages-${crypto.randomUUID()}`;
      const key = turnKey(session.id, id);
      const records: unknown[] = [];
      const hops = await playTurn(session, id, largePage(), async () => {
        records.push(await store.inner.get(key));
      });
      assert.ok(hops >= 5, `a turn of several hops (${hops})`);

      const decisions = model.requests.map((request) => wholePages(request.messages));
      assert.ok(decisions.length >= 4);
      const page = decisions[0]![0]!;
      assert.ok(page.length >= STORED_PAGE_CHARS, `the page is large (${page.length} characters)`);
      for (const [index, pages] of decisions.entries())
        assert.deepEqual(pages, [page], `decision ${index + 1} is shown the same page, once`);

      assert.equal(pageKeysWritten(store).length, 1, 'the page is written once for the whole turn');
      for (const record of records) {
        const json = JSON.stringify(record);
        assert.ok(!json.includes('# The page now'), 'the record holds no page');
        const { stored_pages: pages, messages } = record as {
          stored_pages: Array<{ at: number; chars: number }>;
          messages: Array<{ text?: string }>;
        };
        assert.deepEqual(
          pages.map((stored) => [messages[stored.at]?.text, stored.chars]),
          [['', page.length]],
        );
      }
      // The turn ended: its page went with it.
      for (const pageKey of pageKeysWritten(store)) assert.equal(await store.inner.get(pageKey), undefined);
    });

    it('counts the page in the session quota', async () => {
      const { store, model, session } = await serve();
      const id = `quota-${crypto.randomUUID()}`;
      let counted = 0;
      await playTurn(session, id, largePage(), async (hop) => {
        if (hop !== 3) return;
        const ledger = (await store.inner.get(ledgerKey(session.id))) as { turns: Record<string, { bytes: number }> };
        counted = ledger.turns[id]!.bytes;
      });
      const page = wholePages(model.requests[0]!.messages)[0]!;
      assert.ok(counted > page.length, `the session's ledger counts the page (${counted} > ${page.length})`);
    });

    it('shows the whole page again when its key is gone, and deletes it when the turn is cancelled', async () => {
      const { store, model, session } = await serve();
      const id = `lost-${crypto.randomUUID()}`;
      const start = model.requests.length;
      let lost = '';
      await playTurn(session, id, largePage(), async (hop) => {
        if (hop !== 3) return;
        lost = pageKeysWritten(store)[0]!;
        await store.inner.delete(lost);
      });
      const [first, second, third, fourth] = model.requests.slice(start);
      const page = wholePages(first!.messages)[0]!;
      assert.deepEqual(wholePages(second!.messages), [page]);
      // Decision 3, after the key was lost: the earlier page is left out and the page is told whole again, at the end.
      const texts = third!.messages.map((message) => ('text' in message ? message.text : ''));
      assert.ok(texts.includes(LOST_PAGE_TEXT));
      assert.equal(wholePages(third!.messages).length, 1);
      assert.match(texts.at(-1)!, WHOLE_PAGE);
      assert.deepEqual(wholePages(fourth!.messages), wholePages(third!.messages));

      const cancelled = `cancel-${crypto.randomUUID()}`;
      const before = pageKeysWritten(store).length;
      const reply = await session.hop(
        firstHop(cancelled, COOKIE_SHOP, { agent: 'page_builder', context: { current_layout: largePage() } }),
      );
      assert.equal(reply.status, 200);
      const written = pageKeysWritten(store).slice(before);
      assert.equal(written.length, 1);
      assert.equal(typeof (await store.inner.get(written[0]!)), 'string');
      assert.equal((await session.cancel(cancelled)).body.cancelled, true);
      assert.equal(await store.inner.get(written[0]!), undefined, 'the cancel deleted the page');
    });
  });
}

storedPagesOn('memory store', async () => new MemoryTurnStore());

const redis = await startRedisServer();
const redisStores: RedisTurnStore[] = [];
after(async () => {
  await Promise.all(redisStores.map((store) => store.close()));
  await redis.close();
});
storedPagesOn('Redis', async () => {
  const store = await RedisTurnStore.connect(redis.url, { prefix: `pages-${crypto.randomUUID()}:` });
  redisStores.push(store);
  return store;
});
