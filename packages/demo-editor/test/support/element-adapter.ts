// The client kit's adapter for <canvas-ai-chat> (spec/conformance.md §7): one turn of the element in Debian's
// Chromium, in the built demo editor, against the agent server the kit names. Run as the kit's command:
//   element-adapter.ts SERVER MESSAGE AGENT ANSWERS [OUT [SHOWN]]
// The demo is served from 127.0.0.1 with /api/ forwarded to SERVER, as a host's reverse proxy would. SIGINT presses
// the shown plan's Cancel, or else the chat's stop. ANSWERS is the kit's {answers}: the person clicks the question's, the plan's and the approval's cards as it says,
// in order; a screenshot is the demo's own (its getScreenshot draws the canvas), or none where it says `null`.
// OUT is the kit's {out}: once the turn has ended (and a stop's cancel was answered), the page the chat's getLayout()
// returns is written there. SHOWN is the kit's {shown}: the text the chat shows then (its messages, narration and
// notices, read through its shadow roots as the person reads them). Exit code 0 when the turn ended with its answer,
// 1 otherwise.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchChromium } from './browser.js';
import { startStaticServer } from './static-server.js';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** The element's methods this adapter drives. */
interface ChatElement extends HTMLElement {
  sendMessage(text: string, options?: { agent?: string }): void;
  stop(): void;
  getLayout(): unknown;
}

/** One of the kit's scripted answers (spec/conformance.md §7). */
type ScriptedAnswer =
  | { kind: 'question'; choices?: number[]; text?: string; dismissed?: boolean }
  | { kind: 'plan'; decision: 'approve' | 'revise'; feedback?: string }
  | { kind: 'screenshot'; image: string | null }
  | { kind: 'approval'; approved: number[] };

const [server = '', message = '', agent, answersJson = '[]', out, shown] = process.argv.slice(2);

/**
 * The text of every text node under the chat, shadow roots included; a <br> is a line break. Styles and scripts are
 * not read: a script the page runs is not text the person reads. A string, as tsx's helpers do not exist in the page.
 */
const READ_SHOWN_TEXT = `(() => {
  const read = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
    if (!(node instanceof Element || node instanceof DocumentFragment)) return '';
    if (node instanceof Element && ['STYLE', 'SCRIPT', 'TEMPLATE'].includes(node.tagName)) return '';
    if (node instanceof Element && node.tagName === 'BR') return '\\n';
    const own = node instanceof Element && node.shadowRoot ? read(node.shadowRoot) : '';
    return own + [...node.childNodes].map(read).join('');
  };
  return read(document.querySelector('canvas-ai-chat'));
})()`;
const answers = JSON.parse(answersJson) as ScriptedAnswer[];

/**
 * The person answers the cards the turn shows, in order: each waits for a card of its kind other than the one
 * answered before it (a plan proposed again is a new card), then clicks as the answer says.
 */
async function answerCards(page: Page): Promise<void> {
  let previous = '';
  for (const answer of answers) {
    if (answer.kind === 'screenshot') continue;
    const card = page.locator(`canvas-ai-chat [part="${answer.kind}"]`);
    let label = await card.getAttribute('aria-labelledby', { timeout: 25_000 });
    while (label === previous) {
      await page.waitForTimeout(50);
      label = await card.getAttribute('aria-labelledby', { timeout: 25_000 });
    }
    previous = label ?? '';
    if (answer.kind === 'approval') {
      if (answer.approved.length === 0) {
        await card.locator('[part="approval-reject"]').click();
        continue;
      }
      // Every change comes ticked: the person unticks those they do not approve.
      const changes = card.locator('[part="approval-change"]');
      for (let index = 0; index < (await changes.count()); index += 1)
        if (!answer.approved.includes(index)) await changes.nth(index).click();
      await card.locator('[part="approval-approve"]').click();
    } else if (answer.kind === 'question') {
      if (answer.dismissed) {
        await card.locator('[part="question-dismiss"]').click();
        continue;
      }
      for (const index of answer.choices ?? []) await card.locator('[part="question-choice"]').nth(index).click();
      if (answer.text) await card.locator('[part="question-input"]').fill(answer.text);
      await card.locator('[part="question-answer"]').click();
    } else if (answer.decision === 'approve') {
      await card.locator('[part="plan-approve"]').click();
    } else {
      await card.locator('[part="plan-feedback"]').fill(answer.feedback ?? '');
      await card.locator('[part="plan-revise"]').click();
    }
  }
}
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
    // A plan shown is cancelled by its own Cancel button (spec §20.4); anything else by the chat's stop.
    void page
      .evaluate(() => {
        const chat = document.querySelector('canvas-ai-chat') as unknown as ChatElement;
        const cancel = chat.shadowRoot?.querySelector<HTMLButtonElement>('[part="plan-cancel"]');
        if (cancel) cancel.click();
        else chat.stop();
      })
      .catch(() => undefined);
  });
  // The host's screenshots, in order: the demo's own hook, or none this time (a stub that has nothing).
  await page.evaluate(
    (images) => {
      const chat = document.querySelector('canvas-ai-chat') as unknown as {
        getScreenshot?: (...args: unknown[]) => unknown;
      };
      const own = chat.getScreenshot;
      chat.getScreenshot = (...args) => (images.shift() === null ? null : own?.(...args));
    },
    answers.flatMap((answer) => (answer.kind === 'screenshot' ? [answer.image] : [])),
  );
  await page.evaluate(
    ([text, to]) =>
      (document.querySelector('canvas-ai-chat') as unknown as ChatElement).sendMessage(text!, to ? { agent: to } : {}),
    [message, agent] as const,
  );
  const ended = page.waitForFunction(
    () => (window as unknown as { __turnsEnded: string[] }).__turnsEnded.length > 0,
    null,
    { timeout: 25_000 },
  );
  // A turn that ends before a card the answers expect (the kit offered no wait) ends the answering too.
  await Promise.race([answerCards(page).catch((error: unknown) => process.stderr.write(`${String(error)}\n`)), ended]);
  await ended;
  status = await page.evaluate(() => (window as unknown as { __turnsEnded: string[] }).__turnsEnded[0] ?? '');
  await cancelled;
  process.stderr.write(`the turn ended: ${status}\n`);
  if (out) {
    // A response that came after a stop would be applied by now: the page is read once the cancel was answered.
    const written = await page.evaluate(() =>
      (document.querySelector('canvas-ai-chat') as unknown as ChatElement).getLayout(),
    );
    await writeFile(out, JSON.stringify(written));
  }
  if (shown) {
    const text = await page.evaluate<string>(READ_SHOWN_TEXT);
    await writeFile(shown, text);
  }
} finally {
  await chromium.close();
  await site.close();
}
process.exitCode = status === 'done' ? 0 : 1;
