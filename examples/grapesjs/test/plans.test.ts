// A plan on the GrapesJS canvas (spec §20.4), end to end: the reference server CLI (scripted model, the example's
// fixtures) over HTTP on 127.0.0.1, the built example in Debian's Chromium. The page builder proposes three rows,
// which the glue draws as placeholders after the page's last row, outside GrapesJS's component tree; each built row
// takes the place of the next one, and Cancel or Stop takes them all away.
import { strict as assert } from 'node:assert';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { loadScenario } from '@canvas-ai/protocol/node';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openExample, sendMessage, turnEnded } from './example-page.js';
import { startServer, type Server } from './server.js';

const scenario = await loadScenario(
  fileURLToPath(new URL('../fixtures/scenarios/bakery-planned.yaml', import.meta.url)),
);
const planned = scenario.hops.flatMap((hop) => (hop.waiting?.kind === 'plan' ? hop.waiting.plan.rows : []));
/** What only a placeholder shows: its layer's class, its label and the plan's titles (no built row has them). */
const PLACEHOLDER_MARKS = ['canvas-ai-plan', 'Planned row', ...planned.map((row) => row.title)];

/** The canvas as a hop left it: GrapesJS's rows, the placeholders, and where GrapesJS carries a placeholder. */
interface CanvasReading {
  /** The wrapper's components (GrapesJS's tree, not the frame's elements). */
  components: number;
  /** The plan's numbers of the placeholders drawn, in the frame's order. */
  planned: string[];
  /** Pixels from the bottom of the wrapper's last component (its top when empty) to the first placeholder's top. */
  gap: number | null;
  /** Which of GrapesJS's component tree (project data), HTML and CSS export, and undo stack hold a placeholder mark. */
  leaks: string[];
  /** The three as text, for the checks that they are read at all. */
  tree: string;
  html: string;
  undo: string;
}

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

/** Records the canvas after every hop (`canvas-ai-hop` comes once the outputs were applied and the plan drawn). */
async function recordCanvasPerHop(page: Page): Promise<void> {
  // Functions are assigned to properties only: tsx would wrap a named one in a helper the page does not have.
  await page.addInitScript((marks: string[]) => {
    type Model = { toJSON?(): unknown };
    type Gjs = {
      getWrapper(): {
        components(): { length: number; last(): { getEl(): HTMLElement } | undefined };
        getEl(): HTMLElement;
      };
      getProjectData(): unknown;
      getHtml(): string;
      getCss(): string;
      UndoManager: { getStack(): { models: Array<{ get(key: string): Model | undefined }> } };
      Canvas: { getDocument(): Document };
    };
    const probe = window as unknown as CanvasProbe & { editor: Gjs };
    probe.__canvasPerHop = [];
    probe.__readCanvas = () => {
      const editor = probe.editor;
      const wrapper = editor.getWrapper().getEl();
      const placeholders = [...editor.Canvas.getDocument().querySelectorAll<HTMLElement>('.canvas-ai-plan__row')];
      const lastRow = editor.getWrapper().components().last()?.getEl();
      const floor = lastRow?.getBoundingClientRect().bottom ?? wrapper.getBoundingClientRect().top;
      const tree = JSON.stringify(editor.getProjectData());
      const html = editor.getHtml() + editor.getCss();
      // Each undo entry's model and its states before and after: what GrapesJS would put back or take away.
      const undo = editor.UndoManager.getStack()
        .models.map((entry) =>
          ['object', 'before', 'after'].map((key) => {
            const value = entry.get(key);
            return JSON.stringify(value?.toJSON ? value.toJSON() : (value ?? null));
          }),
        )
        .join('\n');
      const texts = { tree, html, undo };
      return {
        components: editor.getWrapper().components().length,
        planned: placeholders.map((row) => row.dataset.plannedRow ?? ''),
        gap: placeholders[0] ? placeholders[0].getBoundingClientRect().top - floor : null,
        leaks: Object.entries(texts)
          .filter(([, text]) => marks.some((mark) => text.includes(mark)))
          .map(([name]) => name),
        ...texts,
      };
    };
    document.addEventListener('canvas-ai-hop', (event) => {
      const { hop, response } = (event as CustomEvent).detail;
      probe.__canvasPerHop.push({ hop, outputs: response.outputs.length, ...probe.__readCanvas() });
    });
  }, PLACEHOLDER_MARKS);
}

/** What {@link recordCanvasPerHop} puts on the page's window. */
interface CanvasProbe {
  __readCanvas(): CanvasReading;
  __canvasPerHop: Array<{ hop: number; outputs: number } & CanvasReading>;
}

function readCanvas(page: Page): Promise<CanvasReading> {
  return page.evaluate(() => (window as unknown as CanvasProbe).__readCanvas());
}

function canvasPerHop(page: Page): Promise<CanvasProbe['__canvasPerHop']> {
  return page.evaluate(() => (window as unknown as CanvasProbe).__canvasPerHop);
}

/** The placeholders' texts in the canvas frame, each with its runs of whitespace made one space. */
async function placeholderTexts(page: Page): Promise<string[]> {
  const texts = await page.frameLocator('#gjs iframe.gjs-frame').locator('.canvas-ai-plan__row').allInnerTexts();
  return texts.map((text) => text.replace(/\s+/g, ' ').trim());
}

/** Whether the row placeholders are drawn right after the wrapper's last row (the row margin, not the frame's rest). */
function justBelowTheRows(gap: number | null): boolean {
  return gap !== null && gap >= 0 && gap < 32;
}

describe('a plan on the GrapesJS canvas', () => {
  it('draws the planned rows after the last row, outside GrapesJS, and the built rows replace them one by one', async () => {
    const example = await openExample(browser, server.url, recordCanvasPerHop);
    const { page, hops } = example;
    try {
      // Hop 5 brings the second row: while its response is held, the hero is built and two rows are planned.
      const held = example.holdHop(5);
      await sendMessage(page, scenario.user_message);

      const card = page.locator('canvas-ai-chat [part="plan"]');
      await card.locator('[part="plan-approve"]').waitFor();
      assert.deepEqual(await placeholderTexts(page), [
        "Planned row 1 Hero with the bakery's name hero",
        'Planned row 2 A few words about the bakery text',
        'Planned row 3 Order button button',
      ]);
      const layer = page.frameLocator('#gjs iframe.gjs-frame').locator('.canvas-ai-plan');
      assert.equal(await layer.getAttribute('aria-hidden'), 'true', 'decoration: the plan card reads the plan out');
      const waiting = await readCanvas(page);
      assert.deepEqual(waiting.leaks, [], 'no placeholder in the tree, export or undo stack of GrapesJS');
      assert.equal(waiting.components, 0, 'nothing built while the plan waits');
      assert.ok(
        justBelowTheRows(waiting.gap),
        `the placeholders start at the top of the empty page (gap ${waiting.gap})`,
      );

      await card.locator('[part="plan-approve"]').click();
      await held.arrived;
      const building = await readCanvas(page);
      assert.deepEqual([building.components, building.planned], [1, ['2', '3']], 'the hero took placeholder 1');
      assert.ok(justBelowTheRows(building.gap), `the placeholders follow the hero (gap ${building.gap})`);

      // GrapesJS renders the wrapper again, then the whole frame (a page switched away and back): the placeholders stay.
      await page.evaluate(() =>
        (window as unknown as { editor: { getWrapper(): { view: { render(): void } } } }).editor
          .getWrapper()
          .view.render(),
      );
      assert.deepEqual(await placeholderTexts(page), [
        'Planned row 2 A few words about the bakery text',
        'Planned row 3 Order button button',
      ]);
      await page.evaluate(() => {
        type Pages = { getSelected(): unknown; add(page: { id: string }): unknown; select(page: unknown): void };
        const pages = (window as unknown as { editor: { Pages: Pages } }).editor.Pages;
        const main = pages.getSelected();
        pages.select(pages.add({ id: 'elsewhere' }));
        pages.select(main);
      });
      await page.frameLocator('#gjs iframe.gjs-frame').locator('[data-planned-row="3"]').waitFor();
      const rendered = await readCanvas(page);
      assert.deepEqual([rendered.components, rendered.planned], [1, ['2', '3']], 'drawn again in the new frame');
      assert.ok(justBelowTheRows(rendered.gap), `still after the hero (gap ${rendered.gap})`);
      held.release();

      assert.equal(await turnEnded(page, 0), 'done');
      await page.locator('canvas-ai-chat deep-chat').getByText(scenario.hops.at(-1)!.message!).waitFor();
      const perHop = await canvasPerHop(page);
      assert.deepEqual(
        perHop.filter((hop) => hop.outputs > 0).map((hop) => [hop.hop, hop.components, hop.planned]),
        [
          [4, 1, ['2', '3']],
          [5, 2, ['3']],
          [6, 3, []],
        ],
        'each hop that built a row took the first placeholder left',
      );
      for (const hop of perHop) {
        if (hop.planned.length > 0)
          assert.ok(justBelowTheRows(hop.gap), `hop ${hop.hop}: after the rows (gap ${hop.gap})`);
        assert.deepEqual(hop.leaks, [], `hop ${hop.hop}: no placeholder in GrapesJS's tree, export or undo stack`);
      }
      const end = await readCanvas(page);
      assert.deepEqual(end.planned, [], 'no placeholder is left');
      assert.deepEqual(end.leaks, []);
      // The probes read what they claim to: the built rows are in all three.
      for (const text of [end.tree, end.html, end.undo]) assert.match(text, /A few words|We bake every loaf/);

      // No request's layout held a placeholder; each carried the rows built so far.
      assert.deepEqual(
        hops.map((hop) => hop.context.current_layout.regions.content?.components.map((node) => node.component)),
        [[], [], [], [], ['gjs.hero'], ['gjs.hero', 'gjs.text'], ['gjs.hero', 'gjs.text', 'gjs.button']],
      );
      for (const hop of hops) {
        const context = JSON.stringify(hop.context);
        assert.ok(
          !PLACEHOLDER_MARKS.some((mark) => context.includes(mark)),
          `hop ${hop.hop}'s context has no placeholder`,
        );
      }
    } finally {
      await example.close();
    }
  });

  it('takes the placeholders away when the person cancels the plan', async () => {
    const { page, close } = await openExample(browser, server.url);
    try {
      await sendMessage(page, scenario.user_message);
      const cancel = page.locator('canvas-ai-chat [part="plan-cancel"]');
      await cancel.waitFor();
      assert.equal((await placeholderTexts(page)).length, 3);
      await cancel.click();
      assert.equal(await turnEnded(page, 0), 'stopped');
      assert.deepEqual(await placeholderTexts(page), []);
    } finally {
      await close();
    }
  });

  it('takes the placeholders left away when the person stops the build', async () => {
    const example = await openExample(browser, server.url);
    const { page } = example;
    try {
      const held = example.holdHop(5);
      await sendMessage(page, scenario.user_message);
      await page.locator('canvas-ai-chat [part="plan-approve"]').click();
      await held.arrived;
      assert.equal((await placeholderTexts(page)).length, 2);
      // The example hides the Stop button (one turn, one GrapesJS undo step): the element's stop() is what it does.
      await page.evaluate(() => (document.querySelector('canvas-ai-chat') as unknown as { stop(): void }).stop());
      held.release();
      assert.equal(await turnEnded(page, 0), 'stopped');
      assert.deepEqual(await placeholderTexts(page), []);
      assert.equal(
        await page.frameLocator('#gjs iframe.gjs-frame').locator('[data-component="gjs.hero"]').count(),
        1,
        'the row built before the stop stays',
      );
    } finally {
      await example.close();
    }
  });
});
