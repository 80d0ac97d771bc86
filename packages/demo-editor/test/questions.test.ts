// A question inside a turn (spec §20), end to end: the real reference server (its CLI, scripted provider) serving the
// built demo, in Debian's Chromium. The page builder asks which tone the hero should have; the person answers by a
// click, or the page reloads while the question waits and the reloaded chat asks again, answered by keyboard.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_FIXTURES_DIR, loadScenario } from '@canvas-ai/protocol/node';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { openDemo, type DemoPage } from './support/demo-page.js';
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

const scripted = await loadScenario(`${DEFAULT_FIXTURES_DIR}scenarios/question-answered.yaml`);
const FINAL = scripted.hops.at(-1)!.message!;

/** Sends the question scenario's message to the page builder, as typing it with the agent picked would. */
async function ask(demo: DemoPage): Promise<void> {
  await demo.page.evaluate(
    (message) =>
      (
        document.querySelector('canvas-ai-chat') as unknown as { sendMessage(text: string, o: object): void }
      ).sendMessage(message, { agent: 'page_builder' }),
    scripted.user_message,
  );
}

describe('a question the page builder asks, in the demo', () => {
  it('shows the question with its choices; a click on a choice and on Answer goes on with the turn', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      await demo.page.locator('#chips .chip', { hasText: 'A hero, after a question' }).click();
      const card = demo.page.locator('canvas-ai-chat [part="question"]');
      await card.waitFor();
      assert.equal(await card.locator('[part="question-text"]').textContent(), 'Which tone should the hero have?');
      assert.deepEqual(await card.locator('[part="question-choice"]').allTextContents().then(trimmed), [
        'Playful',
        'Elegant',
        'Bold',
      ]);
      assert.equal(await demo.rows(), 0, 'nothing built while the question waits');
      await card.getByText('Elegant').click();
      await card.locator('[part="question-answer"]').click();

      assert.equal(await demo.turnEnded(0), 'done');
      await demo.page.waitForLoadState('networkidle');
      assert.equal(await card.count(), 0, 'the card went with the answer');
      assert.equal(await demo.rows(), 1, 'the hero the answer led to');
      const answered = demo.hops.find((hop) => hop.body.answer !== undefined);
      assert.deepEqual(answered?.body.answer, {
        kind: 'question',
        call_id: 'call_tone',
        dismissed: false,
        choices: [1],
      });
      const chat = demo.page.locator('canvas-ai-chat deep-chat');
      await chat.getByText(FINAL).waitFor();
      await chat.getByText("The person answered: Elegant. I'll add an elegant hero.").waitFor();
    } finally {
      await demo.close();
    }
  });

  it('asks again after a reload while the question waits; answered by keyboard, the same turn goes on', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      await ask(demo);
      const card = demo.page.locator('canvas-ai-chat [part="question"]');
      await card.waitFor();
      const requestId = demo.hops[0]!.requestId;
      const sentBeforeReload = demo.hops.length;
      await demo.page.reload();
      await demo.ready();

      await card.waitFor();
      assert.equal(await card.locator('[part="question-text"]').textContent(), 'Which tone should the hero have?');
      // The first choice has the focus: the arrow moves to the next one, Enter answers.
      await demo.page.waitForFunction(() => {
        const chat = document.querySelector('canvas-ai-chat');
        return chat?.shadowRoot?.activeElement?.getAttribute('value') === '0';
      });
      await demo.page.keyboard.press('ArrowDown');
      await demo.page.keyboard.press('Enter');

      assert.equal(await demo.turnEnded(0), 'done');
      await demo.page.waitForLoadState('networkidle');
      const after = demo.hops.slice(sentBeforeReload);
      assert.deepEqual(
        after.map((hop) => [
          hop.requestId,
          hop.hop,
          hop.body.answer?.kind === 'question' ? hop.body.answer.choices : undefined,
        ]),
        [
          [requestId, 3, [1]],
          [requestId, 4, undefined],
          [requestId, 5, undefined],
        ],
        'the same turn went on from the answer',
      );
      assert.equal(await demo.rows(), 1);
      assert.equal(demo.cancels.length, 0, 'the reload cancelled nothing');
      await demo.page.locator('canvas-ai-chat deep-chat').getByText(FINAL).waitFor();
    } finally {
      await demo.close();
    }
  });
});

function trimmed(texts: string[]): string[] {
  return texts.map((text) => text.trim());
}
