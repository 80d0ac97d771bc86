// The example in Debian's Chromium for the end-to-end tests: the browser, the page with every hop recorded, and the
// readings of GrapesJS the tests share.
import { readFile } from 'node:fs/promises';
import type { HopRequest } from '@canvas-ai/protocol';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';

const HEADLESS_CHROMIUM = JSON.parse(
  await readFile(new URL('../../../scripts/headless-chromium.json', import.meta.url), 'utf8'),
) as { executablePath: string; args: string[] };

/** A row of the GrapesJS page as the glue maps it to the protocol. */
export interface Row {
  component: string;
  props: Record<string, unknown>;
}

/** The example open in a fresh browser context. */
export interface ExamplePage {
  page: Page;
  /** Every hop request the chat sent, in order. */
  hops: HopRequest[];
  /** Holds the response to hop `hop` (of any turn) until `release()` is called; `arrived` once it is held. */
  holdHop(hop: number): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with the repository's flags. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? HEADLESS_CHROMIUM.executablePath,
    headless: true,
    args: HEADLESS_CHROMIUM.args,
  });
}

/**
 * Opens the example served at `url` with every hop recorded; resolves once GrapesJS and the chat have rendered.
 * `prepare` runs before the page loads (a test's own init script).
 */
export async function openExample(
  browser: Browser,
  url: string,
  prepare?: (page: Page) => Promise<void>,
): Promise<ExamplePage> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const hops: HopRequest[] = [];
  const holds = new Map<number, { arrived: () => void; gate: Promise<void> }>();
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/hop')
      hops.push(JSON.parse(request.postData() ?? '{}') as HopRequest);
  });
  await page.route('**/api/hop', async (route: Route) => {
    const hop = (JSON.parse(route.request().postData() ?? '{}') as Partial<HopRequest>).hop ?? 0;
    const hold = holds.get(hop);
    if (!hold) return route.continue();
    holds.delete(hop);
    const response = await route.fetch();
    hold.arrived();
    await hold.gate;
    // The page may have aborted the request (Stop) meanwhile.
    await route.fulfill({ response }).catch(() => undefined);
  });
  await page.addInitScript(() => {
    const ended: string[] = [];
    Object.assign(window, { __ended: ended });
    document.addEventListener('canvas-ai-turn-end', (event) => ended.push((event as CustomEvent).detail.status));
  });
  await prepare?.(page);
  await page.goto(url);
  await page.locator('canvas-ai-chat deep-chat').waitFor({ state: 'attached' });
  await page.frameLocator('#gjs iframe.gjs-frame').locator('body').waitFor({ state: 'attached' });
  return {
    page,
    hops,
    holdHop(hop) {
      let arrived!: () => void;
      let release!: () => void;
      const arrivedPromise = new Promise<void>((resolve) => (arrived = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      holds.set(hop, { arrived, gate });
      return { arrived: arrivedPromise, release };
    },
    close: () => context.close(),
  };
}

/** Sends `text` to the chat as if typed. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.evaluate(
    (message) =>
      (document.querySelector('canvas-ai-chat') as unknown as { sendMessage(text: string): boolean }).sendMessage(
        message,
      ),
    text,
  );
}

/** The GrapesJS page's rows, read with the glue's own mapping (what the agent is sent). */
export function rows(page: Page): Promise<Row[]> {
  return page.evaluate(async () => {
    const chat = document.querySelector('canvas-ai-chat') as unknown as { getLayout(): Promise<unknown> | unknown };
    const document_ = (await chat.getLayout()) as { layout: { regions: { content?: { components: Row[] } } } };
    return (document_.layout.regions.content?.components ?? []).map(({ component, props }) => ({ component, props }));
  });
}

/** How many undo steps GrapesJS has (entries undone together count once). */
export function undoSteps(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      (
        window as unknown as { editor: { UndoManager: { getStackGroup(): unknown[] } } }
      ).editor.UndoManager.getStackGroup().length,
  );
}

/** The `canvas-ai-turn-end` status of the next turn to end, counting from `count` ended turns. */
export async function turnEnded(page: Page, count: number): Promise<string> {
  await page.waitForFunction((n) => ((window as unknown as { __ended?: string[] }).__ended ?? []).length > n, count, {
    timeout: 60_000,
  });
  return page.evaluate((n) => (window as unknown as { __ended: string[] }).__ended[n]!, count);
}
