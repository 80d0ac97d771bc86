// A look at the page (spec §20.3), end to end: the real reference server (its CLI, scripted provider) serving the
// built demo, in Debian's Chromium. The page builder asks for a screenshot; the demo draws its canvas to a PNG, which
// goes as the one attachment of the next hop, and the model is told it came.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_FIXTURES_DIR, loadScenario } from '@canvas-ai/protocol/node';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { openDemo } from './support/demo-page.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

let server: ServerProcess;
let chromium: { browser: Browser; close(): Promise<void> };

before(async () => {
  server = await startServerProcess();
  chromium = await launchChromium();
});

after(async () => {
  await chromium?.close();
  await server?.stop();
});

const scripted = await loadScenario(`${DEFAULT_FIXTURES_DIR}scenarios/screenshot-page.yaml`);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('a look at the page, in the demo', () => {
  it('sends a PNG of the canvas with the hop after the request, and the model is told it came', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      await demo.page.locator('#chips .chip', { hasText: 'Take a look at the page' }).click();
      assert.equal(await demo.turnEnded(0), 'done');
      assert.deepEqual(demo.hops[0]!.body.capabilities?.waits, ['question', 'plan', 'screenshot', 'approval']);
      const answered = demo.hops.find((hop) => hop.body.answer !== undefined)!;
      assert.deepEqual(
        [answered.hop, answered.contentType, answered.body.answer],
        [3, 'multipart/form-data', { kind: 'screenshot', call_id: 'call_look', unavailable: false }],
      );
      assert.equal(answered.files.length, 1);
      const image = answered.files[0]!.bytes;
      assert.deepEqual(image.subarray(0, 8), PNG_SIGNATURE, 'a PNG');
      // The PNG's own size (its IHDR chunk) is the canvas's as the page shows it.
      const box = (await demo.page.locator('#canvas').boundingBox())!;
      assert.deepEqual([image.readUInt32BE(16), image.readUInt32BE(20)], [Math.ceil(box.width), Math.ceil(box.height)]);
      // What it shows is the page: decoded in the browser, the picture has the title's text in it, not one colour.
      const colours = await demo.page.evaluate(async (base64) => {
        const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
        const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const context = canvas.getContext('2d')!;
        context.drawImage(bitmap, 0, 0);
        const { data } = context.getImageData(0, 0, bitmap.width, bitmap.height);
        const seen = new Set<number>();
        for (let at = 0; at < data.length; at += 4) seen.add((data[at]! << 16) | (data[at + 1]! << 8) | data[at + 2]!);
        return seen.size;
      }, image.toString('base64'));
      assert.ok(colours > 16, `the picture shows the page's text and shapes (${colours} colours)`);
      await demo.page.locator('canvas-ai-chat deep-chat').getByText(scripted.hops.at(-1)!.message!).waitFor();
    } finally {
      await demo.close();
    }
  });
});
