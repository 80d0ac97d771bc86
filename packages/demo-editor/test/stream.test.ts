// Streamed hops end to end (spec §6.1, revision 1.4): the real reference server (its CLI, the scripted model speaking
// word by word with --scripted-word-delay) serving the built demo, driven in Debian's Chromium. The page records, in
// the order the DOM changed, each state of the narration block and the number of rows on the canvas: what a person
// sees, observed, never timed.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_FIXTURES_DIR, loadScenario } from '@canvas-ai/protocol/node';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { openDemo, type DemoPage } from './support/demo-page.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

/** One state of the page: the narration block's text and the rows on the canvas. */
interface Seen {
  narration: string;
  rows: number;
}

let server: ServerProcess;
let chromium: { browser: Browser; close(): Promise<void> };

before(async () => {
  server = await startServerProcess({ args: ['--scripted-word-delay', '25'] });
  chromium = await launchChromium();
});

after(async () => {
  await chromium?.close();
  await server?.stop();
});

/**
 * Records every change of the narration block (inside the chat's shadow roots) and of the canvas's rows, in the order
 * they happened: two mutation observers feeding one list, each entry the whole state at that moment.
 */
async function watchPage(demo: DemoPage): Promise<void> {
  await demo.page.evaluate(() => {
    const seen: Array<{ narration: string; rows: number }> = [];
    Object.assign(window, { __streamSeen: seen });
    const chat = document.querySelector('canvas-ai-chat')!.shadowRoot!.querySelector('deep-chat')!.shadowRoot!;
    const canvas = document.querySelector('#canvas')!;
    // No named function in here: the test's TypeScript build would wrap it in a helper the page does not have.
    for (const root of [chat, canvas])
      new MutationObserver(() => {
        const narration = chat.querySelector('.canvas-ai-progress-text')?.textContent ?? '';
        const rows = canvas.querySelectorAll('[data-region="content"] > .row').length;
        const last = seen.at(-1);
        if (!last || last.narration !== narration || last.rows !== rows) seen.push({ narration, rows });
      }).observe(root, { childList: true, subtree: true, characterData: true });
  });
}

describe('streamed hops in the demo', () => {
  let demo: DemoPage;
  before(async () => {
    demo = await openDemo(chromium.browser, server.url);
  });
  after(() => demo.close());

  it('grows the narration word by word, and puts each row on the page before the narration that follows it', async () => {
    const shop = await loadScenario(`${DEFAULT_FIXTURES_DIR}scenarios/cookie-shop.yaml`);
    const replies = shop.replies.map((reply) => reply.text.trim());
    await watchPage(demo);
    await demo.page.locator('#chips .chip', { hasText: 'Build a cookie-shop homepage' }).click();
    assert.equal(await demo.turnEnded(0), 'done');
    const seen = await demo.page.evaluate(() => (window as unknown as { __streamSeen: Seen[] }).__streamSeen);

    // Word by word: the first reply was on screen cut after a word, more than once, before it was whole.
    const first = replies[0]!;
    const partial = new Set(
      seen
        .map((state) => state.narration)
        .filter((text) => text.length > 0 && text.length < first.length && first.startsWith(text)),
    );
    assert.ok(partial.size >= 3, `the first reply grew in steps: ${JSON.stringify([...partial])}`);
    // One narration block all along.
    assert.equal(
      await demo.page.evaluate(
        () =>
          document
            .querySelector('canvas-ai-chat')!
            .shadowRoot!.querySelector('deep-chat')!
            .shadowRoot!.querySelectorAll('.canvas-ai-progress').length,
      ),
      1,
    );

    // Row k is placed by the call reply k announced, and its outputs come before reply k + 1 is spoken: when row k
    // first shows, no word of reply k + 1 is on screen yet.
    for (let row = 1; row <= 5; row += 1) {
      const appeared = seen.find((state) => state.rows >= row);
      assert.ok(appeared, `row ${row} appeared`);
      const next = replies[row]!;
      const firstWords = next.split(/\s+/).slice(0, 2).join(' ');
      assert.ok(
        !appeared.narration.includes(firstWords),
        `row ${row} was on the page before "${firstWords}…" was narrated; it was: ${appeared.narration}`,
      );
      assert.ok(
        seen.some((state) => state.rows >= row && state.narration.includes(firstWords)),
        `reply ${row + 1} was narrated after row ${row}`,
      );
    }
    assert.equal(await demo.rows(), 5);
    // The answer is in its bubble once, and not left in the narration block.
    const answer = replies.at(-1)!;
    const chat = demo.page.locator('canvas-ai-chat deep-chat');
    await chat.getByText(answer.slice(0, 40)).first().waitFor();
    assert.ok(!(seen.at(-1)?.narration ?? '').includes(answer.slice(0, 40)));
  });
});
