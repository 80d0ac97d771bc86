// Accessibility of the demo page in Debian's Chromium against the real reference server: an axe-core scan with the
// chat open and after a turn, and a whole turn driven from the keyboard alone.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { openDemo, type DemoPage } from './support/demo-page.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

// axe-core's own build, as one script to inject into the page (axe.source is its text).
const AXE_SOURCE = axe.source;

/** One axe violation, as much as a failure message needs. */
interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Runs axe-core in the page (shadow roots included) and returns its serious and critical violations. */
async function seriousViolations(page: Page): Promise<Violation[]> {
  // Evaluated, not a script tag: the server's content security policy runs no inline script (spec §4.5).
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<AxeResults> } }).axe;
    const results = await axe.run(document);
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        id: violation.id,
        impact: violation.impact,
        help: violation.help,
        targets: violation.nodes.map((node) => JSON.stringify(node.target)),
      }));
  });
}
interface AxeResults {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown }> }>;
}

function report(violations: Violation[]): string {
  return violations.map((v) => `${v.impact} ${v.id}: ${v.help}\n  ${v.targets.join('\n  ')}`).join('\n');
}

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

describe('the demo page, accessible', () => {
  let demo: DemoPage;
  before(async () => {
    demo = await openDemo(chromium.browser, server.url);
  });
  after(() => demo.close());

  it('has no serious or critical axe violations with the chat open', async () => {
    const violations = await seriousViolations(demo.page);
    assert.deepEqual(violations, [], report(violations));
  });

  it('has none after a turn either, with its narration, answer and Undo shown', async () => {
    await demo.page.locator('#chips .chip', { hasText: 'Build a cookie-shop homepage' }).click();
    assert.equal(await demo.turnEnded(0), 'done');
    await demo.page.locator('canvas-ai-chat [part~="undo-button"]').waitFor();
    const violations = await seriousViolations(demo.page);
    assert.deepEqual(violations, [], report(violations));
  });
});

/** The focused element, through every shadow root: its tag, id, part and class, and whether an outline shows. */
async function focused(page: Page): Promise<{ tag: string; id: string; part: string; cls: string; outline: string }> {
  return page.evaluate(() => {
    let element = document.activeElement;
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
    const style = element ? getComputedStyle(element) : undefined;
    return {
      tag: element?.tagName.toLowerCase() ?? '',
      id: element?.id ?? '',
      part: element?.getAttribute('part') ?? '',
      cls: element?.getAttribute('class') ?? '',
      outline: style ? `${style.outlineStyle} ${style.outlineWidth}` : '',
    };
  });
}

/** Presses Tab until `match` accepts the focused element (at most `limit` times): how a keyboard user gets there. */
async function tabTo(page: Page, match: (element: Awaited<ReturnType<typeof focused>>) => boolean, limit = 60) {
  for (let presses = 0; presses < limit; presses += 1) {
    await page.keyboard.press('Tab');
    const element = await focused(page);
    if (match(element)) return element;
  }
  throw new Error(`Tab never reached the control; focus is on ${JSON.stringify(await focused(page))}`);
}

describe('the chat, by keyboard alone', () => {
  let demo: DemoPage;
  before(async () => {
    demo = await openDemo(chromium.browser, server.url);
  });
  after(() => demo.close());

  it('picks an agent, sends a message, runs the turn and undoes it without a mouse, focus always visible', async () => {
    const { page } = demo;
    // The picker: Enter opens it with an agent focused, the arrows move, Enter picks, focus goes back to the wrench.
    const wrench = await tabTo(page, (element) => element.part === 'button' && element.cls.includes('wrench'));
    assert.notEqual(wrench.outline.split(' ')[0], 'none', 'the wrench shows its focus');
    await page.keyboard.press('Enter');
    let option = await focused(page);
    assert.equal(option.part, 'option', 'opening the list focuses an agent');
    for (let presses = 0; presses < 5 && !(await page.evaluate(pickerFocusIs, 'page_builder')); presses += 1)
      await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate(pickerFocusIs, 'page_builder'), true, 'the arrows reach the page builder');
    option = await focused(page);
    assert.notEqual(option.outline.split(' ')[0], 'none', 'the focused agent shows its focus');
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).cls.includes('wrench'), true, 'focus is back on the wrench');
    await page.locator('canvas-ai-chat canvas-ai-tool-picker [part="chip"]').waitFor();

    // The message: typed into deep-chat's input, sent with Enter.
    await tabTo(page, (element) => element.id === 'text-input');
    await page.keyboard.type('Build a homepage for a cookie shop');
    await page.keyboard.press('Enter');
    assert.equal(await demo.turnEnded(0), 'done');
    assert.equal(demo.hops.at(0)?.body.agent, 'page_builder', 'the pick made with the keyboard was sent');
    assert.equal(await demo.rows(), 5);

    // Undo: reached with Tab, pressed with Space.
    const undo = await tabTo(page, (element) => element.part === 'undo-button');
    assert.notEqual(undo.outline.split(' ')[0], 'none', 'Undo shows its focus');
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.querySelectorAll('#canvas [data-region="content"] > .row').length === 0);
    const announced = await page.locator('canvas-ai-chat [part="announcer"] p').allTextContents();
    assert.ok(
      announced.some((text) => text.startsWith('Undone')),
      `the live region read the undo out: ${JSON.stringify(announced)}`,
    );

    // Stop: a second message held at its first hop, stopped with Tab and Enter.
    const held = demo.holdHop(1);
    await tabTo(page, (element) => element.id === 'text-input');
    await page.keyboard.type('How do I get the assistant to change my page?');
    await page.keyboard.press('Enter');
    await held.arrived;
    const stop = await tabTo(page, (element) => element.part === 'stop-button');
    assert.notEqual(stop.outline.split(' ')[0], 'none', 'Stop shows its focus');
    await page.keyboard.press('Enter');
    assert.equal(await demo.turnEnded(1), 'stopped');
    held.release();
  });
});

describe('the chat, for those who asked for less motion', () => {
  it('stops the narration spinner under prefers-reduced-motion, and spins it otherwise', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      const spinner = demo.page.locator('canvas-ai-chat .canvas-ai-progress-icon-running');
      const animation = () => spinner.evaluate((icon) => getComputedStyle(icon).animationName);
      const held = demo.holdHop(2);
      await demo.page.locator('#chips .chip', { hasText: 'Build a cookie-shop homepage' }).click();
      await held.arrived;
      await spinner.waitFor();
      assert.equal(await animation(), 'canvas-ai-spin');
      await demo.page.emulateMedia({ reducedMotion: 'reduce' });
      assert.equal(await animation(), 'none');
      held.release();
      assert.equal(await demo.turnEnded(0), 'done');
    } finally {
      await demo.close();
    }
  });
});

/** Whether the picker's focused option is the agent `agent` (run in the page). */
function pickerFocusIs(agent: string): boolean {
  const picker = document.querySelector('canvas-ai-chat')?.shadowRoot?.querySelector('canvas-ai-tool-picker');
  return (picker?.shadowRoot?.activeElement as HTMLElement | null)?.dataset.agent === agent;
}
