// The agent server on another origin than the host page (spec §4.6), in real Chromium: the page comes from the
// host's own web server, the widget talks to the reference server's CLI by CORS with credentials.
import { strict as assert } from 'node:assert';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { openDemo } from './support/demo-page.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { startStaticServer, type StaticServer } from './support/static-server.js';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

let page: StaticServer;
let chromium: { browser: Browser; close(): Promise<void> };

before(async () => {
  page = await startStaticServer(DIST);
  chromium = await launchChromium();
});

after(async () => {
  await chromium?.close();
  await page?.close();
});

/**
 * Sends `text` once the chat has rendered: before that `sendMessage()` refuses (and says so on the console), and on a
 * busy machine the module that renders it may still be loading when the element is already in the page.
 */
async function sendWhenRendered(tab: Page, text: string): Promise<void> {
  await tab.waitForFunction(() => (document.querySelector('canvas-ai-chat') as unknown as { chat?: unknown })?.chat);
  const sent = await tab.evaluate(
    (message) =>
      (document.querySelector('canvas-ai-chat') as unknown as { sendMessage(text: string): boolean }).sendMessage(
        message,
      ),
    text,
  );
  assert.equal(sent, true, 'the chat took the message');
}

describe('the demo page with its agent server on another origin', () => {
  let agentServer: ServerProcess;
  before(async () => {
    agentServer = await startServerProcess({ args: ['--allowed-origins', page.origin] });
  });
  after(() => agentServer?.stop());

  it('runs the cookie-shop turn by CORS, with the session cookie and the CSRF token', async () => {
    const apiOrigin = new URL(agentServer.url).origin;
    assert.notEqual(apiOrigin, page.origin, 'two origins');
    const demo = await openDemo(chromium.browser, `${page.origin}/?agent-server=${encodeURIComponent(apiOrigin)}`);
    try {
      const requested: string[] = [];
      demo.page.on('request', (request) => requested.push(`${request.method()} ${request.url()}`));
      await demo.ready();
      await demo.page.locator('#chips .chip', { hasText: 'Build a cookie-shop homepage' }).click();
      assert.equal(await demo.turnEnded(0), 'done');
      assert.equal(await demo.rows(), 5);
      assert.equal(demo.hops.length, 8);
      const hops = requested.filter((line) => line.startsWith('POST ') && line.includes('/api/hop'));
      assert.equal(hops.length, 8);
      assert.ok(
        hops.every((line) => line === `POST ${apiOrigin}/api/hop`),
        hops.join('\n'),
      );
      assert.equal(await demo.page.locator('canvas-ai-chat .canvas-ai-error').count(), 0, 'no error bubble');
    } finally {
      await demo.close();
    }
  });
});

describe('the demo page with an agent server that does not list its origin', () => {
  let agentServer: ServerProcess;
  before(async () => {
    agentServer = await startServerProcess();
  });
  after(() => agentServer?.stop());

  it('sends no hop the server would run, tells the host and the person, and leaves the page as it was', async () => {
    const apiOrigin = new URL(agentServer.url).origin;
    const context = await chromium.browser.newContext();
    try {
      const tab = await context.newPage();
      await tab.addInitScript(() => {
        const errors: string[] = [];
        Object.assign(window, { __errors: errors });
        document.addEventListener('canvas-ai-error', (event) =>
          errors.push(String((event as CustomEvent<{ error: Error }>).detail.error.message)),
        );
      });
      await tab.goto(`${page.origin}/?agent-server=${encodeURIComponent(apiOrigin)}`);
      const errors = () => tab.evaluate(() => (window as unknown as { __errors: string[] }).__errors);
      await tab.waitForFunction(() => (window as unknown as { __errors: string[] }).__errors.length > 0);
      assert.match((await errors())[0]!, /agents config/, 'the agents config could not be read across origins');

      await sendWhenRendered(tab, 'Build a cookie-shop homepage');
      await tab.locator('canvas-ai-chat .canvas-ai-error').first().waitFor();
      assert.equal(await tab.locator('#canvas [data-uuid]').count(), 0, 'nothing was applied');
      assert.deepEqual(
        agentServer.log.filter((line) => line.includes('"event":"hop"')),
        [],
        'the server ran no hop',
      );
    } finally {
      await context.close();
    }
  });
});

describe("G7: the demo page with ?agent-server= naming an origin not on its build's allow-list", () => {
  let agentServer: ServerProcess;
  before(async () => {
    agentServer = await startServerProcess({ args: ['--allowed-origins', page.origin] });
  });
  after(() => agentServer?.stop());

  it('G7: ignores it with a console warning, and sends nothing there', async () => {
    // The test build allows http://127.0.0.1:* (package.json); the same server named as localhost is not on it.
    const elsewhere = `http://localhost:${new URL(agentServer.url).port}`;
    const context = await chromium.browser.newContext();
    try {
      const tab = await context.newPage();
      const warnings: string[] = [];
      const requested: string[] = [];
      tab.on('console', (message) => {
        if (message.type() === 'warning') warnings.push(message.text());
      });
      tab.on('request', (request) => requested.push(request.url()));
      await tab.goto(`${page.origin}/?agent-server=${encodeURIComponent(elsewhere)}`);
      await tab.waitForFunction(() => document.querySelector('canvas-ai-chat') !== null);
      await sendWhenRendered(tab, 'Build a cookie-shop homepage');
      await tab.locator('canvas-ai-chat .canvas-ai-error').first().waitFor();
      assert.ok(
        warnings.some((warning) => warning.includes(`?agent-server=${elsewhere} is ignored`)),
        warnings.join('\n'),
      );
      assert.deepEqual(
        requested.filter((url) => url.startsWith(elsewhere)),
        [],
        'nothing went to the server the link named',
      );
      assert.ok(
        requested.some((url) => url.startsWith(`${page.origin}/api/`)),
        "the chat talked to the page's own origin",
      );
      assert.deepEqual(
        agentServer.log.filter((line) => line.includes('"event":"hop"')),
        [],
        'the server ran no hop',
      );
    } finally {
      await context.close();
    }
  });
});
