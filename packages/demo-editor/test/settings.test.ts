// The walk-through of #23 in Chromium against the real server process: the settings screen changes who answers and
// what the picker offers, and the editor's chat follows with no reload.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_FIXTURES_DIR, loadScenario } from '@canvas-ai/protocol/node';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { openDemo, type DemoPage } from './support/demo-page.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

const TOKEN = 'the-demo-admin-token-of-this-test';
const qa = await loadScenario(`${DEFAULT_FIXTURES_DIR}scenarios/qa-one-hop.yaml`);
const hero = await loadScenario(`${DEFAULT_FIXTURES_DIR}scenarios/place-hero-two-hop.yaml`);

let server: ServerProcess;
let chromium: { browser: Browser; close(): Promise<void> };

before(async () => {
  server = await startServerProcess({ env: { CANVAS_AI_ADMIN_TOKEN: TOKEN } });
  chromium = await launchChromium();
});

after(async () => {
  await chromium?.close();
  await server?.stop();
});

/** Sends a message through the chat as typing it would (the picked agent, if any, goes with it). */
async function send(demo: DemoPage, text: string): Promise<void> {
  await demo.page.evaluate(
    (message) =>
      (document.querySelector('canvas-ai-chat') as unknown as { sendMessage(text: string): void }).sendMessage(message),
    text,
  );
}

/** The agent the server ran each hop of the turn `requestId` with, from its `hop` log lines. */
function agentsOfTurn(requestId: string): string[] {
  return server.log
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { event?: string; request_id?: string; agent?: string })
    .filter((entry) => entry.event === 'hop' && entry.request_id === requestId)
    .map((entry) => entry.agent!);
}

/** The labels of the picker's options (the main agent first), its menu opened and closed again. */
async function pickerOptions(demo: DemoPage): Promise<string[]> {
  const picker = demo.page.locator('canvas-ai-chat canvas-ai-tool-picker');
  await picker.locator('[part="button"]').click();
  const labels = (await picker.locator('[part="option"]').allTextContents()).map((text) =>
    text.replace(/\s+/g, ' ').trim(),
  );
  await demo.page.keyboard.press('Escape');
  return labels;
}

describe('the settings screen: the chat follows, live', () => {
  let demo: DemoPage;
  before(async () => {
    demo = await openDemo(chromium.browser, `${server.url}/#admin-token=${TOKEN}`);
  });
  after(() => demo.close());

  it('walks the prototype: Q&A answers, the page builder builds, the settings change both, and the editor follows', async () => {
    // The token was taken from the address and hidden from it.
    assert.equal(new URL(demo.page.url()).hash, '');
    await demo.page.evaluate(() => {
      (window as unknown as { __notReloaded: boolean }).__notReloaded = true;
    });

    // 1. A message with nothing picked: the main agent, Q&A, answers.
    await send(demo, qa.user_message);
    assert.equal(await demo.turnEnded(0), 'done');
    assert.deepEqual(agentsOfTurn(demo.hops.at(-1)!.requestId), ['qa']);
    assert.equal(demo.hops.at(-1)!.body.agent, undefined);

    // 2. The page builder picked with the wrench: it builds.
    const picker = demo.page.locator('canvas-ai-chat canvas-ai-tool-picker');
    await picker.locator('[part="button"]').click();
    await picker.locator('[part="option"][data-agent="page_builder"]').click();
    await send(demo, hero.user_message);
    assert.equal(await demo.turnEnded(1), 'done');
    const built = agentsOfTurn(demo.hops.at(-1)!.requestId);
    assert.ok(built.length > 0 && built.every((agent) => agent === 'page_builder'), built.join(', '));
    assert.equal(await demo.rows(), 1, 'the page builder placed the hero');

    // 3. The settings, from the top bar: the page builder as main agent, the copy editor the only tool; save.
    await demo.page.locator('#settings-link').click();
    const main = demo.page.locator('#main-agent');
    await main.waitFor();
    assert.equal(await main.inputValue(), 'qa');
    assert.ok(await demo.page.locator('input[name="tools"][value="qa"]').isDisabled(), "the main agent's own box");
    await main.selectOption('page_builder');
    assert.ok(await demo.page.locator('input[name="tools"][value="page_builder"]').isDisabled());
    assert.ok(!(await demo.page.locator('input[name="tools"][value="qa"]').isDisabled()));
    await demo.page.locator('input[name="tools"][value="qa"]').setChecked(false);
    await demo.page.locator('input[name="tools"][value="careful_builder"]').setChecked(false);
    await demo.page.locator('input[name="tools"][value="copy_editor"]').setChecked(true);
    await demo.page.locator('#save-settings').click();
    await demo.page.getByText('Saved. Page builder answers; the picker offers: Copy editor.').waitFor();

    // 4. Back in the editor, no reload: the next message goes to the page builder, the picker offers the copy editor.
    await demo.page.locator('#back-to-editor').click();
    await demo.page.locator('#canvas').waitFor({ state: 'visible' });
    await send(demo, hero.user_message);
    assert.equal(await demo.turnEnded(2), 'done');
    const turn = demo.hops.at(-1)!;
    assert.equal(turn.body.agent, undefined, 'nothing was picked');
    assert.ok(agentsOfTurn(turn.requestId).length > 0);
    assert.ok(
      agentsOfTurn(turn.requestId).every((agent) => agent === 'page_builder'),
      'answered by the page builder',
    );
    const options = await pickerOptions(demo);
    assert.equal(options.length, 2, options.join(' | '));
    assert.match(options[0]!, /Page builder/);
    assert.match(options[1]!, /Copy editor/);
    assert.ok(await demo.page.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded));
    // The conversation is all there: the Q&A answer is still shown.
    await demo.page.locator('canvas-ai-chat deep-chat').getByText(qa.hops[0]!.message!.slice(0, 40)).first().waitFor();
  });

  it('shows a refused rule next to its field, and a wrong token next to the token field', async () => {
    await demo.page.locator('#settings-link').click();
    await demo.page.locator('#main-agent').waitFor();
    // The server refuses the save (as it would had the agents file dropped the tool meanwhile): its issue at tools.0
    // is shown under the tools, and the settings stay as they were.
    await demo.page.route('**/api/admin/settings', (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({
            status: 400,
            contentType: 'application/json',
            body: JSON.stringify({
              status: false,
              should_continue: false,
              protocol: 'canvas-ai/1',
              progress: '',
              message: 'tools.0: tools names "copy_editor", which is not defined under agents',
              error: {
                code: 'invalid_request',
                field: 'tools.0',
                issues: [{ path: 'tools.0', message: 'tools names "copy_editor", which is not defined under agents' }],
              },
            }),
          })
        : route.continue(),
    );
    await demo.page.locator('#save-settings').click();
    await demo.page.locator('#error-tools').waitFor();
    assert.match((await demo.page.locator('#error-tools').textContent()) ?? '', /copy_editor", which is not defined/);
    await demo.page.unroute('**/api/admin/settings');

    await demo.page.locator('.settings-token input').fill('not-the-token');
    await demo.page.locator('.settings-token input').dispatchEvent('change');
    await demo.page.locator('#error-token').waitFor();
    assert.match((await demo.page.locator('#error-token').textContent()) ?? '', /admin token is missing or wrong/);
  });
});
