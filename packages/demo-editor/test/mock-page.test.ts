// mock.html: the demo with the reference server mocked in the page (setupCanvasAiMock with the repository's
// fixtures), served by a plain file server. A whole turn runs, and no request for the API leaves the page.
import { strict as assert } from 'node:assert';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { startStaticServer, type StaticServer } from './support/static-server.js';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

let files: StaticServer;
let chromium: { browser: Browser; close(): Promise<void> };

before(async () => {
  files = await startStaticServer(DIST);
  chromium = await launchChromium();
});

after(async () => {
  await chromium?.close();
  await files?.close();
});

describe('the demo with the mock, no agent server', () => {
  it('builds the cookie-shop page with every API request answered in the page', async () => {
    const context = await chromium.browser.newContext({ viewport: { width: 1400, height: 1000 } });
    try {
      const page = await context.newPage();
      const answeredBy: string[] = [];
      page.on('response', (response) => {
        if (new URL(response.url()).pathname.startsWith('/api/'))
          answeredBy.push(response.fromServiceWorker() ? 'service worker' : 'network');
      });
      await page.addInitScript(() => {
        document.addEventListener('canvas-ai-turn-end', (event) =>
          Object.assign(window, { __ended: (event as CustomEvent).detail.status }),
        );
      });
      await page.goto(`${files.origin}/mock.html`);
      // The agents config came from the mock: the picker shows.
      await page.locator('canvas-ai-chat canvas-ai-tool-picker [part="button"]').waitFor();
      await page.locator('#chips .chip', { hasText: 'Build a cookie-shop homepage' }).click();
      await page.waitForFunction(() => '__ended' in window, undefined, { timeout: 60_000 });

      assert.equal(await page.evaluate(() => (window as unknown as { __ended: string }).__ended), 'done');
      assert.equal(await page.locator('#canvas [data-region="content"] > .row').count(), 5);
      await page.locator('canvas-ai-chat deep-chat').getByText('Your cookie shop homepage is ready').waitFor();
      assert.ok(answeredBy.length >= 8, `the hops went out (${answeredBy.length} API responses)`);
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
