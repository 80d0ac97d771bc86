// The client kit's adapter for <canvas-ai-chat> (spec/conformance.md §7): one turn of the element in Debian's
// Chromium, in the built demo editor, against the agent server the kit names. Run as the kit's command:
//   element-adapter.ts SERVER MESSAGE AGENT
// The demo is served from 127.0.0.1 with /api/ forwarded to SERVER, as a host's reverse proxy would. SIGINT presses
// the chat's stop. Exit code 0 when the turn ended with its answer, 1 otherwise.
import { fileURLToPath } from 'node:url';
import { launchChromium } from './browser.js';
import { startStaticServer } from './static-server.js';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** The element's methods this adapter drives. */
interface ChatElement extends HTMLElement {
  sendMessage(text: string, options?: { agent?: string }): void;
  stop(): void;
}

const [server = '', message = '', agent] = process.argv.slice(2);
const site = await startStaticServer(DIST, { apiTarget: server });
const chromium = await launchChromium({ keepOnSigint: true });
let status = '';
try {
  const page = await chromium.browser.newPage();
  await page.addInitScript(() => {
    const ended: string[] = [];
    Object.assign(window, { __turnsEnded: ended });
    document.addEventListener('canvas-ai-turn-end', (event) => ended.push((event as CustomEvent).detail.status));
  });
  await page.goto(`${site.origin}/`);
  await page.locator('canvas-ai-chat deep-chat').waitFor({ state: 'attached' });
  await page.locator('canvas-ai-chat canvas-ai-tool-picker [part="button"]').waitFor({ state: 'visible' });
  // A stop's cancel may leave the page after the turn's end event: the adapter waits for its answer (or 5 s) before it
  // closes the browser, and sends nothing itself.
  let cancelled: Promise<unknown> = Promise.resolve();
  process.on('SIGINT', () => {
    cancelled = page
      .waitForResponse((response) => response.request().method() === 'DELETE', { timeout: 5_000 })
      .catch(() => undefined);
    void page
      .evaluate(() => (document.querySelector('canvas-ai-chat') as unknown as ChatElement).stop())
      .catch(() => undefined);
  });
  await page.evaluate(
    ([text, to]) =>
      (document.querySelector('canvas-ai-chat') as unknown as ChatElement).sendMessage(text!, to ? { agent: to } : {}),
    [message, agent] as const,
  );
  await page.waitForFunction(() => (window as unknown as { __turnsEnded: string[] }).__turnsEnded.length > 0, null, {
    timeout: 25_000,
  });
  status = await page.evaluate(() => (window as unknown as { __turnsEnded: string[] }).__turnsEnded[0] ?? '');
  await cancelled;
  process.stderr.write(`the turn ended: ${status}\n`);
} finally {
  await chromium.close();
  await site.close();
}
process.exitCode = status === 'done' ? 0 : 1;
