// Approval of a destructive change (spec §20.5), end to end: the real reference server (its CLI, scripted provider)
// serving the built demo, in Debian's Chromium. The careful builder proposes removing the selected hero; the person
// rejects it in the chat's card, the hero stays, and the model is told (its answer repeats the fixed words).
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

const hero = await loadScenario(`${DEFAULT_FIXTURES_DIR}scenarios/place-hero-two-hop.yaml`);
const rejected = await loadScenario(`${DEFAULT_FIXTURES_DIR}scenarios/approval-removal-rejected.yaml`);

describe('a removal that waits for approval, in the demo', () => {
  it('shows the proposal named by its component; Reject keeps the hero and the model is told', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      await demo.page.evaluate(
        (message) =>
          (
            document.querySelector('canvas-ai-chat') as unknown as { sendMessage(text: string, o: object): void }
          ).sendMessage(message, { agent: 'page_builder' }),
        hero.user_message,
      );
      assert.equal(await demo.turnEnded(0), 'done');
      assert.equal(await demo.rows(), 1);
      await demo.page.locator('#canvas [data-component="sdc.demo.hero"]').first().click();
      await demo.page.locator('#chips .chip', { hasText: 'Ask before removing the selected component' }).click();

      const card = demo.page.locator('canvas-ai-chat [part="approval"]');
      await card.waitFor();
      const line = (await card.locator('[part="approval-change"]').textContent())!.trim();
      assert.match(line, /^Remove: Hero “.+”$/);
      assert.equal(await demo.rows(), 1, 'nothing removed while the proposal waits');
      await card.locator('[part="approval-reject"]').click();

      assert.equal(await demo.turnEnded(1), 'done');
      await demo.page.waitForLoadState('networkidle');
      assert.equal(await card.count(), 0, 'the card went with the decision');
      assert.equal(await demo.rows(), 1, 'the hero stays');
      const answered = demo.hops.find((hop) => hop.body.answer !== undefined);
      assert.deepEqual(answered?.body.answer, { kind: 'approval', call_id: 'call_remove', approved: [] });
      assert.ok(
        demo.hops.every((hop) => hop.body.apply_results?.every((result) => result.call_id !== 'call_remove') ?? true),
        'the removal never reached the page',
      );
      await demo.page.locator('canvas-ai-chat deep-chat').getByText(rejected.hops.at(-1)!.message!).waitFor();
    } finally {
      await demo.close();
    }
  });
});
