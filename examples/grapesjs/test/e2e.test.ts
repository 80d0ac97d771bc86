// End to end: GrapesJS with <canvas-ai-chat>, built, served by the real reference server (its CLI, scripted model,
// the example's fixtures) over HTTP on 127.0.0.1, driven in Debian's Chromium.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, openExample, rows, sendMessage, turnEnded, undoSteps } from './example-page.js';
import { startServer, type Server } from './server.js';

let server: Server;
let browser: Browser;

before(async () => {
  server = await startServer();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

describe('GrapesJS with <canvas-ai-chat> against the reference server', () => {
  it('builds the page in GrapesJS hop by hop, and one GrapesJS undo takes the whole turn back', async () => {
    const { page, hops, close } = await openExample(browser, server.url);
    try {
      const stepsBefore = await undoSteps(page);
      await sendMessage(page, 'Build a landing page for my bakery');
      assert.equal(await turnEnded(page, 0), 'done');

      // GrapesJS → protocol: every hop carried the GrapesJS page as it was after the previous hop's outputs.
      assert.deepEqual(
        hops.map((hop) => hop.context.current_layout.regions.content?.components.map((node) => node.component)),
        [[], [], ['gjs.hero'], ['gjs.hero', 'gjs.button'], ['gjs.hero', 'gjs.button']],
      );
      assert.deepEqual(hops.at(-1)?.context.page, { title: 'Mill Lane Bakery' });
      // protocol → GrapesJS: the components, their props in GrapesJS's own elements, in the canvas.
      assert.deepEqual(await rows(page), [
        {
          component: 'gjs.hero',
          props: { heading: 'Mill Lane Bakery', text: 'Sourdough, rye and croissants, baked at dawn.' },
        },
        { component: 'gjs.button', props: { label: 'Order now', url: '/order' } },
      ]);
      const canvas = page.frameLocator('#gjs iframe.gjs-frame');
      assert.equal(await canvas.locator('section[data-component="gjs.hero"] h1').textContent(), 'Mill Lane Bakery');
      assert.equal(await canvas.locator('a[href="/order"]').textContent(), 'Order now');
      assert.equal(await page.locator('#page-title').textContent(), 'Mill Lane Bakery');
      await page.locator('canvas-ai-chat deep-chat').getByText('Your landing page has a hero').waitFor();

      // One agent turn, one step of GrapesJS's UndoManager (placements and the title together).
      assert.equal(await undoSteps(page), stepsBefore + 1, 'the turn is one undo step');
      await page.evaluate(() =>
        (window as unknown as { editor: { UndoManager: { undo(): void } } }).editor.UndoManager.undo(),
      );
      assert.deepEqual(await rows(page), [], 'one undo removed both rows');
      assert.equal(await page.locator('#page-title').textContent(), 'Untitled page');
    } finally {
      await close();
    }
  });

  it('sends the person’s GrapesJS edits to the agent, and gives a copied component its own uuid', async () => {
    const { page, close } = await openExample(browser, server.url);
    try {
      await sendMessage(page, 'Build a landing page for my bakery');
      assert.equal(await turnEnded(page, 0), 'done');
      const result = await page.evaluate(async () => {
        type Gjs = {
          getWrapper(): {
            components(): {
              at(index: number): {
                components(): { at(index: number): { components(): { reset(items: unknown[]): void } } };
                clone(): unknown;
              };
              add(component: unknown): void;
            };
          };
        };
        const editor = (window as unknown as { editor: Gjs }).editor;
        const hero = editor.getWrapper().components().at(0);
        // The person retypes the heading in GrapesJS, and copies the hero.
        hero
          .components()
          .at(0)
          .components()
          .reset([{ type: 'textnode', content: 'Mill Lane, since 1921' }]);
        editor.getWrapper().components().add(hero.clone());
        const chat = document.querySelector('canvas-ai-chat') as unknown as { getLayout(): unknown };
        return (await chat.getLayout()) as {
          layout: { regions: { content: { components: Array<{ uuid: string; props: { heading?: string } }> } } };
        };
      });
      const [hero, button, copy] = result.layout.regions.content.components;
      assert.equal(hero?.props.heading, 'Mill Lane, since 1921', 'the agent sees the person’s heading');
      assert.equal(copy?.props.heading, 'Mill Lane, since 1921');
      assert.ok(copy?.uuid && copy.uuid !== hero?.uuid && copy.uuid !== button?.uuid, 'the copy has its own uuid');
    } finally {
      await close();
    }
  });
});
