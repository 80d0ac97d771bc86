// A plan on the canvas (spec §20.4), end to end: the real reference server (its CLI, scripted provider) serving the
// built demo, in Debian's Chromium. The page builder proposes its rows, which the demo draws as placeholders; the
// person revises the plan once with feedback by keyboard, approves the new one by a click, and each built row takes
// the place of the next placeholder until none is left.
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

const scripted = await loadScenario(`${DEFAULT_FIXTURES_DIR}scenarios/plan-revised-then-built.yaml`);
const FINAL = scripted.hops.at(-1)!.message!;

describe('a plan the page builder proposes, in the demo', () => {
  it('draws the plan as placeholders; revised by keyboard, approved by a click, the rows replace them one by one', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      await demo.page.locator('#chips .chip', { hasText: 'A bakery homepage, planned first' }).click();
      const card = demo.page.locator('canvas-ai-chat [part="plan"]');
      const placeholders = demo.page.locator('#canvas .planned-row');
      await card.waitFor();
      assert.deepEqual(await card.locator('[part="plan-row"] .plan-row-title').allTextContents(), [
        "Hero with the bakery's name",
        'Best sellers on cards',
      ]);
      await placeholders.nth(1).waitFor();
      assert.deepEqual(await placeholders.locator('.planned-row__title').allTextContents().then(squeezed), [
        "Planned row 1 Hero with the bakery's name",
        'Planned row 2 Best sellers on cards',
      ]);
      assert.equal(await demo.rows(), 0, 'nothing built while the plan waits');

      // Approve has the focus; Shift+Tab goes back to the feedback field above the buttons, and Enter in it revises.
      await demo.page.waitForFunction(
        () =>
          document.querySelector('canvas-ai-chat')?.shadowRoot?.activeElement?.getAttribute('part') === 'plan-approve',
      );
      await demo.page.keyboard.press('Shift+Tab');
      await demo.page.keyboard.type('Add a footer with our address.');
      await demo.page.keyboard.press('Enter');
      await card.locator('[part="plan-row"]').nth(2).waitFor();
      assert.deepEqual(await placeholders.locator('.planned-row__title').allTextContents().then(squeezed), [
        "Planned row 1 Hero with the bakery's name",
        'Planned row 2 Best sellers on cards',
        'Planned row 3 Footer with the address',
      ]);
      await card.locator('[part="plan-approve"]').click();

      assert.equal(await demo.turnEnded(0), 'done');
      await demo.page.waitForLoadState('networkidle');
      assert.equal(await card.count(), 0, 'the card went with the approval');
      assert.equal(await placeholders.count(), 0, 'no placeholder is left');
      const answers = demo.hops.flatMap((hop) => (hop.body.answer ? [hop.body.answer] : []));
      assert.deepEqual(answers, [
        { kind: 'plan', call_id: 'call_plan', decision: 'revise', feedback: 'Add a footer with our address.' },
        { kind: 'plan', call_id: 'call_plan_2', decision: 'approve' },
      ]);
      // Each hop that built a row: the row is on the page, and the placeholders left are the later planned rows.
      const building = (await demo.hopsSeen()).filter((hop) => hop.outputs > 0);
      assert.deepEqual(
        building.map((hop) => [hop.rows, hop.planned]),
        [
          [1, ['2', '3']],
          [2, ['3']],
          [3, []],
        ],
      );
      assert.deepEqual(
        await demo.page
          .locator('#canvas [data-region="content"] > .row > .node')
          .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-component'))),
        ['sdc.demo.hero', 'sdc.demo.section', 'sdc.demo.footer'],
      );
      assert.ok(
        demo.hops.every((hop) => !JSON.stringify(hop.body.context).includes('Planned row')),
        'the placeholders never went in the document',
      );
      await demo.page.locator('canvas-ai-chat deep-chat').getByText(FINAL).waitFor();
    } finally {
      await demo.close();
    }
  });
});

/** Each text with its runs of whitespace made one space, trimmed. */
function squeezed(texts: string[]): string[] {
  return texts.map((text) => text.replace(/\s+/g, ' ').trim());
}
