// End to end: Puck with a chat of its own on @canvas-ai/widget/loop, built, served by the real reference server (its
// CLI, scripted model, the example's fixtures) over HTTP on 127.0.0.1, driven in Debian's Chromium.
import { strict as assert } from 'node:assert';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { HopRequest } from '@canvas-ai/protocol';
import { type Browser, chromium, type Page, type Route } from 'playwright-core';
import { type Server, startServer } from './server.js';
import { type StaticServer, startStaticServer } from './static-server.js';

const HEADLESS_CHROMIUM = JSON.parse(
  await readFile(new URL('../../../scripts/headless-chromium.json', import.meta.url), 'utf8'),
) as { executablePath: string; args: string[] };

const MESSAGE = 'Build a landing page for my bakery';
const ANSWER = 'Your landing page has a hero for Mill Lane Bakery and an order button, and its title is set.';

/** What the test reads of Puck's state (`window.getPuck()`, Puck's own `useGetPuck`). */
interface PuckState {
  content: Array<{ type: string; props: Record<string, string> }>;
  title: string;
  entries: number;
  index: number;
}

let server: Server;
let browser: Browser;

before(async () => {
  server = await startServer();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? HEADLESS_CHROMIUM.executablePath,
    headless: true,
    args: HEADLESS_CHROMIUM.args,
  });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/**
 * The example (at `path`: `dev/` is React's development build) with every hop and cancel recorded, and hop `hold`
 * (if given) held until `release()`.
 */
async function openExample(hold?: number, path = '') {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const hops: HopRequest[] = [];
  const cancels: string[] = [];
  let held: Route | undefined;
  let holding: () => void = () => {};
  const heldOnce = new Promise<void>((resolve) => {
    holding = resolve;
  });
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === 'POST' && path === '/api/hop') hops.push(request.postDataJSON() as HopRequest);
    if (request.method() === 'DELETE' && path.startsWith('/api/hop/')) cancels.push(path);
  });
  await page.route('**/api/hop', async (route) => {
    const body = route.request().postDataJSON() as HopRequest | null;
    if (hold !== undefined && !held && body?.hop === hold) {
      held = route;
      holding();
      return;
    }
    await route.fallback();
  });
  await page.goto(new URL(path, `${server.url}/`).href);
  await page.locator('.chat form').waitFor();
  await page.frameLocator('#preview-frame').locator('body').waitFor({ state: 'attached' });
  return {
    page,
    hops,
    cancels,
    /** Resolves once hop `hold` is held (the hops before it applied). */
    held: () => heldOnce,
    release: () => held?.fallback(),
    close: () => context.close(),
  };
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** Puck's state as `getPuck()` gives it, the parts the test reads. */
interface PuckStateRaw {
  appState: { data: { content: PuckState['content']; root: { props?: { title?: string } } } };
  history: { histories: unknown[]; index: number };
}

function puck(page: Page): Promise<PuckState> {
  return page.evaluate(() => {
    const { appState, history } = (window as unknown as { getPuck(): PuckStateRaw }).getPuck();
    return {
      content: appState.data.content,
      title: appState.data.root.props?.title ?? '',
      entries: history.histories.length,
      index: history.index,
    };
  });
}

/** Resolves once the turn is an entry of Puck's history (written once Puck recorded the person's last edit). */
const turnRecorded = (page: Page) =>
  page.waitForFunction(() =>
    (window as unknown as { getPuck(): { history: { histories: Array<{ id?: string }> } } })
      .getPuck()
      .history.histories.at(-1)
      ?.id?.startsWith('canvas-ai-turn:'),
  );

const types = async (page: Page) => (await puck(page)).content.map((item) => item.type);

/** The chat's messages as shown. */
const shown = (page: Page) => page.locator('.chat .message').allInnerTexts();

describe('Puck with a chat on /loop against the reference server', () => {
  it('builds the page in Puck hop by hop, keeps the person’s edit made mid-turn, and is one entry of Puck’s history', async () => {
    const { page, hops, held, release, close } = await openExample(3);
    try {
      await send(page, MESSAGE);
      await held();
      assert.deepEqual(await types(page), ['Hero']);
      // Mid-turn, the person retypes the hero's title in Puck's own field.
      await page.frameLocator('#preview-frame').locator('.hero h1').click();
      const field = page.locator('.fields input[name="title"]');
      await field.fill('Mill Lane, since 1921');
      // Puck records the edit as an entry of its history (250 ms after it).
      await page.waitForFunction(
        () => (window as unknown as { getPuck(): PuckStateRaw }).getPuck().history.histories.length === 2,
      );
      await release();
      await page.locator('.chat .message.answer').waitFor({ timeout: 30_000 });

      // Puck → protocol: every hop carried Puck's page as it was; hop 3 had gone before the edit, hop 4 carried it.
      assert.deepEqual(
        hops.map((hop) => hop.context.current_layout.regions.content?.components.map((node) => node.component)),
        [[], [], ['Hero'], ['Hero', 'Button'], ['Hero', 'Button']],
      );
      assert.equal(
        hops[3]?.context.current_layout.regions.content?.components[0]?.props.title,
        'Mill Lane, since 1921',
      );
      // The anchor Puck computes from the title (resolveData; the glue for what the agent placed) is sent as derived.
      const hero = hops[2]?.context.current_layout.regions.content?.components[0];
      assert.deepEqual([hero?.props.anchor, hero?.derived], ['mill-lane-bakery', ['anchor']]);
      assert.deepEqual(hops.at(-1)?.context.page, { title: 'Mill Lane Bakery' });
      // protocol → Puck: the components in Puck's data and its preview; the person's title kept.
      await turnRecorded(page);
      const state = await puck(page);
      assert.deepEqual(
        state.content.map(({ type, props: { id, ...props } }) => ({ type, props, id: typeof id })),
        [
          {
            type: 'Hero',
            props: {
              title: 'Mill Lane, since 1921',
              description: 'Sourdough, rye and croissants, baked at dawn.',
              anchor: 'mill-lane-since-1921', // Puck's resolveData, after the person's edit
            },
            id: 'string',
          },
          { type: 'Button', props: { label: 'Order now', href: '/order' }, id: 'string' },
        ],
      );
      assert.equal(await page.frameLocator('#preview-frame').locator('a[href="/order"]').textContent(), 'Order now');
      assert.equal(await page.locator('#page-title').textContent(), 'Mill Lane Bakery');
      assert.ok((await shown(page)).includes(ANSWER));

      // One entry in Puck's history for the turn (the person's mid-turn edit joined it): Puck's Undo takes it back,
      // and the chat hears it: no Undo offered any more, and a note.
      assert.equal(state.index, 1, 'the turn is one entry after the empty page');
      assert.equal(state.entries, 2);
      await page.locator('.toolbar').getByRole('button', { name: 'Undo' }).click();
      assert.deepEqual(await types(page), []);
      assert.equal(await page.locator('#page-title').textContent(), 'Untitled page');
      await page.locator('.chat .message.note', { hasText: "You undid the agent's turn in the editor." }).waitFor();
      assert.equal(await page.locator('.chat .controls').getByRole('button', { name: 'Undo' }).count(), 0);
      // Puck's Redo applies it again: the chat offers its Undo again.
      await page.locator('.toolbar').getByRole('button', { name: 'Redo' }).click();
      assert.deepEqual(await types(page), ['Hero', 'Button']);
      // The chat's Undo keeps the person's mid-turn edit: their entry is inside the turn's, so the chat applies the
      // turn's inverse outputs instead, and the hero they retyped stays, named by its label and place.
      await page.locator('.chat .controls').getByRole('button', { name: 'Undo' }).click();
      const note = page.locator('.chat .message.note', { hasText: 'Partly undone' });
      await note.waitFor();
      assert.match((await note.textContent()) ?? '', /Hero, (row|item|position) 1/i);
      const undone = await puck(page);
      assert.deepEqual(
        undone.content.map(({ type, props }) => [type, props.title]),
        [['Hero', 'Mill Lane, since 1921']],
      );
      assert.equal(undone.title, '');
    } finally {
      await close();
    }
  });

  it('takes the turn back with the chat’s Undo as one step of Puck’s history', async () => {
    const { page, close } = await openExample();
    try {
      await send(page, MESSAGE);
      await page.locator('.chat .message.answer').waitFor({ timeout: 30_000 });
      assert.deepEqual(await types(page), ['Hero', 'Button']);
      await turnRecorded(page);
      await page.locator('.chat .controls').getByRole('button', { name: 'Undo' }).click();
      await page.locator('.chat .message.note', { hasText: 'Undone' }).waitFor();
      const state = await puck(page);
      assert.deepEqual(state.content, []);
      assert.equal(state.title, '');
      assert.equal(state.index, 0, 'Puck went one entry back');
      assert.equal(await page.locator('.chat .controls').getByRole('button', { name: 'Undo' }).count(), 0);
      // Puck's Redo, the chat's Undo taken back: the turn is on the page again.
      await page.locator('.toolbar').getByRole('button', { name: 'Redo' }).click();
      assert.deepEqual(await types(page), ['Hero', 'Button']);
      // Puck's Duplicate gives the copy an id of its own, so the agent never sees one uuid twice.
      const uuids = await page.evaluate(() => {
        type Puck = {
          dispatch(action: unknown): void;
          appState: { data: { content: Array<{ props: { id: string } }> } };
        };
        const getPuck = (window as unknown as { getPuck(): Puck }).getPuck;
        getPuck().dispatch({ type: 'duplicate', sourceIndex: 0, sourceZone: 'root:default-zone' });
        return getPuck().appState.data.content.map((item) => item.props.id);
      });
      assert.equal(uuids.length, 3);
      assert.equal(new Set(uuids).size, 3, 'every component has its own uuid');
    } finally {
      await close();
    }
  });

  it('stops and reverts a running turn: nothing of it stays, and the server is told', async () => {
    const { page, cancels, held, close } = await openExample(3);
    try {
      await send(page, MESSAGE);
      await held();
      assert.deepEqual(await types(page), ['Hero']);
      await page.getByRole('button', { name: 'Stop and revert' }).click();
      await page.locator('.chat .message.note', { hasText: 'Stopped and reverted' }).waitFor();
      assert.deepEqual(await types(page), []);
      assert.equal(cancels.length, 1, 'one DELETE for the stopped turn');
      await page.getByRole('button', { name: 'Send' }).waitFor({ state: 'visible' });
      assert.equal(await page.getByRole('button', { name: 'Stop and revert' }).count(), 0);
    } finally {
      await close();
    }
  });

  for (const [build, path] of [
    ['production', ''],
    ['development (StrictMode mounts the chat twice)', 'dev/'],
  ] as const)
    it(`resumes a turn once after a reload mid-turn, and finishes it: React's ${build} build`, async () => {
      const { page, hops, held, close } = await openExample(3, path);
      try {
        await send(page, MESSAGE);
        await held();
        const before = hops.length;
        await page.reload();
        await page.locator('.chat .message.answer').waitFor({ timeout: 30_000 });
        const after = hops.slice(before).map((hop) => hop.hop);
        assert.deepEqual(after, [3, 4, 5], 'each hop after the reload went once');
        assert.deepEqual(await types(page), ['Hero', 'Button']);
        assert.equal(await page.locator('#page-title').textContent(), 'Mill Lane Bakery');
        const messages = await shown(page);
        assert.equal(messages.filter((text) => text === ANSWER).length, 1, 'the answer shown once');
        assert.equal(messages[0], MESSAGE, 'the conversation was kept');
        // Puck's history starts at the reload: the chat's Undo takes back the whole turn (its inverse outputs), the hero
        // placed before the reload included, though Puck filled in its anchor since (a derived prop: no conflict).
        await page.locator('.chat .controls').getByRole('button', { name: 'Undo' }).click();
        await page.locator('.chat .message.note', { hasText: 'Undone' }).waitFor();
        assert.deepEqual(await types(page), []);
        assert.equal(await page.locator('#page-title').textContent(), 'Untitled page');
      } finally {
        await close();
      }
    });
});

describe('Puck with a chat on /loop and the mock, no agent server', () => {
  let files: StaticServer;
  before(async () => {
    files = await startStaticServer(fileURLToPath(new URL('../dist/', import.meta.url)));
  });
  after(() => files?.close());

  it('runs the example’s own scenario with every API request answered in the page', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const page = await context.newPage();
      const answeredBy: string[] = [];
      page.on('response', (response) => {
        if (new URL(response.url()).pathname.startsWith('/api/'))
          answeredBy.push(response.fromServiceWorker() ? 'service worker' : 'network');
      });
      await page.goto(`${files.origin}/mock.html`);
      await page.locator('.chat form').waitFor();
      await send(page, MESSAGE);
      await page.locator('.chat .message.answer', { hasText: ANSWER }).waitFor({ timeout: 30_000 });
      assert.deepEqual(await types(page), ['Hero', 'Button']);
      assert.ok(answeredBy.length >= 6, `the hops went out (${answeredBy.length} API responses)`);
      assert.deepEqual(new Set(answeredBy), new Set(['service worker']), 'every API response came from the mock');
      assert.deepEqual(
        files.requested.filter((request) => request.includes('/api/')),
        [],
        'no API request reached the file server',
      );
    } finally {
      await context.close();
    }
  });
});
