// End to end: the real reference server (its CLI, scripted provider) serving the built demo, driven in Debian's
// Chromium. Timing is controlled by holding a hop's response, never by sleeping and hoping.
import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_FIXTURES_DIR, loadScenario } from '@canvas-ai/protocol/node';
import type { Scenario } from '@canvas-ai/protocol/scenario';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { openDemo, type DemoPage } from './support/demo-page.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

const COOKIE_SHOP_HOPS = 8;
const FINAL_ANSWER = 'Your cookie shop homepage is ready';
const ARTIFACTS = new URL('../.artifacts/', import.meta.url);

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

// Texts in the chat are looked up inside <deep-chat>, where they are shown: the chat's live region repeats them for
// screen readers.

/** Clicks a suggestion chip by its label. */
async function clickChip(demo: DemoPage, label: string): Promise<void> {
  await demo.page.locator('#chips .chip', { hasText: label }).click();
}

/** Sends a message through the chat, as typing it would, to the agent `agent`. */
async function sendMessage(demo: DemoPage, text: string, agent: string): Promise<void> {
  await demo.page.evaluate(
    ([message, to]) =>
      (document.querySelector('canvas-ai-chat') as unknown as CanvasAiChatLike).sendMessage(message!, { agent: to }),
    [text, agent],
  );
}
interface CanvasAiChatLike {
  sendMessage(text: string, options: { agent?: string }): void;
}

/** A scenario of fixtures/scenarios, which the scripted provider replays. */
function scenario(id: string): Promise<Scenario> {
  return loadScenario(`${DEFAULT_FIXTURES_DIR}scenarios/${id}.yaml`);
}

/** The final message a scenario's turn ends with. */
function finalMessage(scripted: Scenario): string {
  const message = scripted.hops.at(-1)?.message;
  assert.ok(message, `scenario ${scripted.id} ends with a message`);
  return message;
}

/** What `CANVAS_AI_LOG_MODEL_REQUESTS=1` logs for one model call. */
interface ModelRequestLine {
  event: 'model_request';
  request_id: string;
  hop: number;
  decision: number;
  messages: Array<{ role: string; text?: string }>;
}

/** The server's `model_request` line for decision `decision` of the turn `requestId`, once it is logged. */
async function modelRequest(server: ServerProcess, requestId: string, decision: number): Promise<ModelRequestLine> {
  const parse = (line: string): ModelRequestLine | undefined => {
    if (!line.startsWith('{')) return undefined;
    const entry = JSON.parse(line) as Partial<ModelRequestLine>;
    return entry.event === 'model_request' && entry.request_id === requestId && entry.decision === decision
      ? (entry as ModelRequestLine)
      : undefined;
  };
  return parse(await server.waitForLine((line) => parse(line) !== undefined))!;
}

/** The texts of the notices (role `notice`) the model was sent. */
function notices(request: ModelRequestLine): string[] {
  return request.messages.filter((message) => message.role === 'notice').map((message) => message.text ?? '');
}

/** Waits until no request is pending for a moment, so "nothing more was sent" is observed, not assumed. */
async function settle(demo: DemoPage): Promise<void> {
  await demo.page.waitForLoadState('networkidle');
}

describe('the demo editor against the reference server', () => {
  describe('a cookie-shop homepage, then a follow-up edit in the same conversation', () => {
    let demo: DemoPage;
    before(async () => {
      demo = await openDemo(chromium.browser, server.url);
    });
    after(() => demo.close());

    it('builds the page row by row, narrating before the final answer', async () => {
      const held = demo.holdHop(3);
      await clickChip(demo, 'Build a cookie-shop homepage');

      // While hop 3 is held, the narration of hops 1–2 is on screen and the final answer is not.
      await held.arrived;
      const chat = demo.page.locator('canvas-ai-chat deep-chat');
      await chat.getByText('Next, a section with your three best sellers').waitFor();
      assert.equal(await chat.getByText(FINAL_ANSWER).count(), 0, 'the final answer appeared before the last hop');
      assert.equal(await demo.rows(), 1, 'hop 2 placed the hero, and only the hero');
      held.release();

      assert.equal(await demo.turnEnded(0), 'done');
      const seen = await demo.hopsSeen();
      assert.deepEqual(
        seen.map((hop) => hop.rows),
        [0, 1, 2, 3, 4, 5, 5, 5],
        'after each hop the canvas has exactly one more row while rows are being placed',
      );
      assert.deepEqual(
        seen.map((hop) => hop.shouldContinue),
        [true, true, true, true, true, true, true, false],
      );
      // Hops 2–6 place one row each, hop 7 sets the title and description; the answer waits one more hop for the
      // apply results of hop 7 and carries no outputs itself (spec §16.3).
      assert.deepEqual(
        seen.map((hop) => hop.outputs),
        [0, 1, 1, 1, 1, 1, 2, 0],
      );
      const lastHop = demo.hops.at(-1)!.body;
      assert.deepEqual(
        lastHop.apply_results?.map((result) => result.status),
        ['applied', 'applied'],
        'the hop that ends the turn reported both page values applied',
      );

      assert.equal(demo.hops.length, COOKIE_SHOP_HOPS, 'one request per hop');
      assert.deepEqual(
        demo.hops.map((hop) => hop.hop),
        [1, 2, 3, 4, 5, 6, 7, 8],
      );
      assert.equal(new Set(demo.hops.map((hop) => hop.requestId)).size, 1, 'one request_id for the whole turn');
      // zod asks once whether eval is allowed (new Function, caught); that the policy says no is the point.
      const violations = (await demo.policyViolations()).filter((violation) => violation !== 'script-src eval');
      assert.deepEqual(violations, [], "the demo lives within the server's content security policy");
      // Each hop carries the layout the browser held after applying the previous hop's outputs.
      assert.deepEqual(
        demo.hops.map((hop) => hop.body.context.current_layout.regions.content?.components.length),
        [0, ...seen.slice(0, -1).map((hop) => hop.rows)],
      );

      await chat.getByText(FINAL_ANSWER).waitFor();
      assert.equal(await chat.getByText(FINAL_ANSWER).count(), 1, 'the final answer is rendered once');
      assert.equal(
        (await demo.page.locator('[data-field="title"]').textContent())?.trim(),
        'Crumb & Co. | Fresh cookies, baked every morning',
      );
      assert.match(
        (await demo.page.locator('[data-field="description"]').textContent()) ?? '',
        /Hand-made cookies baked in small batches/,
      );
      assert.equal(await demo.page.locator('#canvas [data-component="sdc.demo.card"]').count(), 3);
      assert.equal(await demo.page.locator('#canvas [data-component="sdc.demo.footer"]').count(), 1);

      mkdirSync(ARTIFACTS, { recursive: true });
      // A tall viewport so the whole page fits, once the placement highlight has faded: the page drops the
      // highlight's class when its animation is over (a locator wait: the page's policy forbids evaluated strings).
      await demo.page.setViewportSize({ width: 1400, height: 2400 });
      await demo.page.locator('#canvas .is-highlighted').first().waitFor({ state: 'detached' });
      await demo.page.screenshot({ path: new URL('cookie-shop.png', ARTIFACTS).pathname });
      await demo.page.setViewportSize({ width: 1400, height: 1000 });
    });

    it('edits the component selected on the canvas', async () => {
      const turnsBefore = new Set(demo.hops.map((hop) => hop.requestId));
      const card = demo.page.locator('#canvas [data-component="sdc.demo.card"]').first();
      const uuid = await card.getAttribute('data-uuid');
      await card.click();
      await clickChip(demo, 'Edit the selected card');
      assert.equal(await demo.turnEnded(1), 'done');

      const turn = demo.hops.filter((hop) => !turnsBefore.has(hop.requestId));
      assert.deepEqual(
        turn.map((hop) => hop.hop),
        [1, 2, 3],
        'decide, execute the edit, then end the turn once the edit is reported applied',
      );
      assert.deepEqual(turn[2]!.body.apply_results, [{ call_id: 'call_title', status: 'applied' }]);
      const seen = (await demo.hopsSeen()).slice(-3);
      assert.deepEqual(
        seen.map((hop) => [hop.hop, hop.outputs, hop.shouldContinue]),
        [
          [1, 0, true],
          [2, 1, true],
          [3, 0, false],
        ],
        'the edit comes with hop 2, the answer with hop 3 and no outputs',
      );
      assert.equal(turn[0]!.body.context.selected_component, uuid);
      assert.equal(turn[0]!.body.conversation_id, demo.hops[0]!.body.conversation_id, 'same conversation');
      assert.equal(turn[0]!.body.agent, 'page_builder');
      await demo.page.locator(`#canvas [data-uuid="${uuid}"] h3`, { hasText: 'Gooey double chocolate chip' }).waitFor();
      assert.equal(await demo.rows(), 5, 'an edit adds no row');
    });

    it('edits and removes a nested component from the inspector; its row stays', async () => {
      const cards = demo.page.locator('#canvas [data-component="sdc.demo.card"]');
      const card = cards.nth(1);
      const uuid = (await card.getAttribute('data-uuid'))!;
      await card.click();
      const inspector = demo.page.locator('#inspector');
      const title = inspector.getByLabel('title', { exact: true });
      assert.equal(await title.inputValue(), 'Oatmeal raisin');
      await title.fill('Oatmeal & raisin');
      await inspector.getByLabel('price', { exact: true }).focus(); // leaving the field commits it
      await demo.page.locator(`#canvas [data-uuid="${uuid}"] h3`, { hasText: 'Oatmeal & raisin' }).waitFor();

      await inspector.getByRole('button', { name: 'Remove the selected card' }).click();
      assert.equal(await cards.count(), 2);
      assert.equal(await demo.page.locator(`#canvas [data-uuid="${uuid}"]`).count(), 0);
      assert.equal(await demo.rows(), 5, 'the section that held the card stays');
      await inspector.getByText('Click a component on the page to edit it.').waitFor();
    });

    it('removes the selected component with remove_components, and Undo in the chat puts it back where it was', async () => {
      const quotes = demo.page.locator('#canvas [data-component="sdc.demo.testimonial"]');
      assert.equal(await quotes.count(), 2);
      const first = (await quotes.first().getAttribute('data-uuid'))!;
      await quotes.first().click();
      await clickChip(demo, 'Remove the selected component');
      assert.equal(await demo.turnEnded(2), 'done');
      const turn = demo.hops.filter((hop) => hop.body.context.selected_component === first);
      assert.deepEqual(turn[0]!.body.capabilities, {
        outputs: ['remove_components', 'move_components'],
        waits: ['question', 'plan', 'screenshot', 'approval'],
      });
      assert.equal(await quotes.count(), 1);
      assert.equal(await demo.page.locator(`#canvas [data-uuid="${first}"]`).count(), 0);

      await demo.page.locator('canvas-ai-chat [part="undo-button"]').click();
      await demo.page.locator(`#canvas [data-uuid="${first}"]`).waitFor();
      assert.equal(await quotes.first().getAttribute('data-uuid'), first, 'back in its place, first of the two');
    });
  });

  it('resumes after a reload during a held hop: the turn finishes with every row once, the answer shown once', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      const held = demo.holdHop(3);
      await clickChip(demo, 'Build a cookie-shop homepage');
      await held.arrived;
      const requestId = demo.hops[0]!.requestId;
      assert.equal(await demo.rows(), 1, 'the hero is on the page when the page reloads');
      const sentBeforeReload = demo.hops.length;
      // The server answered hop 3 (the test holds only its way back): the reload loses the response, not the hop.
      await demo.page.reload();
      held.release();
      await demo.ready();

      assert.equal(await demo.turnEnded(0), 'done');
      await settle(demo);
      const after = demo.hops.slice(sentBeforeReload);
      assert.deepEqual(
        after.map((hop) => [hop.requestId, hop.hop]),
        [3, 4, 5, 6, 7, 8].map((hop) => [requestId, hop]),
        'the same turn goes on from the hop whose response was lost',
      );
      const uuids = await demo.page
        .locator('#canvas [data-region="content"] > .row')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-row')));
      assert.equal(uuids.length, 5, 'every row of the cookie shop');
      assert.equal(new Set(uuids).size, 5, 'each row once');
      const chat = demo.page.locator('canvas-ai-chat deep-chat');
      await chat.getByText(FINAL_ANSWER).waitFor();
      assert.equal(await chat.getByText(FINAL_ANSWER).count(), 1, 'the answer is shown once');
      assert.equal(await chat.getByText('Build a homepage for a cookie shop').count(), 1, 'the message is shown again');
      assert.equal(demo.cancels.length, 0, 'the reload cancelled nothing');
    } finally {
      await demo.close();
    }
  });

  it('shows the answer once after a reload that lost the final response, and sends no hop', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      const held = demo.holdHop(COOKIE_SHOP_HOPS);
      await clickChip(demo, 'Build a cookie-shop homepage');
      await held.arrived;
      const sentBeforeReload = demo.hops.length;
      await demo.page.reload();
      held.release();
      await demo.ready();
      const chat = demo.page.locator('canvas-ai-chat deep-chat');
      await chat.getByText(FINAL_ANSWER).waitFor();
      await settle(demo);
      assert.equal(await chat.getByText(FINAL_ANSWER).count(), 1, 'the missed answer, once');
      assert.equal(demo.hops.length, sentBeforeReload, 'nothing was sent after the reload');
      assert.equal(await demo.rows(), 5);
      assert.equal(await demo.turnEnded(0), 'done');
    } finally {
      await demo.close();
    }
  });

  it('undoes the cookie-shop turn from the chat: the empty page and no page values, and the model hears of it', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      await clickChip(demo, 'Build a cookie-shop homepage');
      assert.equal(await demo.turnEnded(0), 'done');
      assert.equal(await demo.rows(), 5);
      // The editor filled in the heading's derived anchor (spec §10.1); the undo below removes the heading anyway.
      assert.equal(await demo.page.locator('h2#baked-by-hand-since-2015').count(), 1);
      const undo = demo.page.locator('canvas-ai-chat [part="undo-button"]');
      await undo.waitFor({ state: 'visible' });
      assert.equal(await undo.getAttribute('aria-label'), "Undo the agent's last turn");
      await undo.focus();
      await demo.page.keyboard.press('Enter');

      const chat = demo.page.locator('canvas-ai-chat deep-chat');
      await chat.getByText("↶ Undone: the page is back as it was before the agent's turn.").waitFor();
      assert.equal(await demo.rows(), 0, 'the page is empty again');
      assert.equal((await demo.page.locator('[data-field="title"]').textContent())?.trim(), 'Untitled page');
      assert.equal(
        (await demo.page.locator('[data-field="description"]').textContent())?.trim(),
        'No description yet.',
      );
      assert.equal(await undo.count(), 0, 'nothing left to undo in the chat');
      assert.equal(await demo.page.locator('#undo').isDisabled(), true, "the editor's history has no step left either");

      await clickChip(demo, 'Ask about the editor');
      assert.equal(await demo.turnEnded(1), 'done');
      const question = demo.hops.at(-1)!.body;
      assert.deepEqual(question.messages?.at(-2), {
        role: 'user',
        text: '(I undid your last turn: the page is back as it was before it.)',
      });
    } finally {
      await demo.close();
    }
  });

  it('stops and reverts in the middle of the turn: the page is as it was before, the turn cancelled', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      const held = demo.holdHop(4);
      await clickChip(demo, 'Build a cookie-shop homepage');
      await held.arrived;
      assert.equal(await demo.rows(), 2, 'hops 2 and 3 placed two rows');
      const revert = demo.page.locator('canvas-ai-chat [part="revert-button"]');
      assert.ok(await revert.isVisible(), 'Stop and revert is in the chat while the turn runs');
      await revert.click();
      held.release();

      assert.equal(await demo.turnEnded(0), 'stopped');
      await demo.page
        .locator('canvas-ai-chat deep-chat')
        .getByText("↶ Stopped and reverted: the page is back as it was before the agent's turn.")
        .waitFor();
      await settle(demo);
      assert.equal(await demo.rows(), 0, 'the rows the turn placed are gone');
      assert.equal((await demo.page.locator('[data-field="title"]').textContent())?.trim(), 'Untitled page');
      assert.deepEqual(demo.cancels, [demo.hops[0]!.requestId], 'the turn is cancelled on the server');
      assert.deepEqual(
        demo.hops.map((hop) => hop.hop),
        [1, 2, 3, 4],
        'no hop after the stop',
      );
      assert.equal(await demo.page.locator('#undo').isDisabled(), true, 'a reverted turn is no step to undo');
    } finally {
      await demo.close();
    }
  });

  it("makes one agent turn one step of the editor's undo, beside the person's own steps", async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      await clickChip(demo, 'Build a cookie-shop homepage');
      assert.equal(await demo.turnEnded(0), 'done');
      const hero = demo.page.locator('#canvas [data-component="sdc.demo.hero"]');
      await hero.click();
      const heading = demo.page.locator('#inspector').getByLabel('heading', { exact: true });
      await heading.fill('Warm cookies');
      await heading.press('Enter');
      await hero.locator('h1', { hasText: 'Warm cookies' }).waitFor();

      const undo = demo.page.locator('#undo');
      await undo.click(); // the person's edit
      await hero.locator('h1', { hasText: 'Fresh cookies, baked every morning' }).waitFor();
      assert.equal(await demo.rows(), 5);
      await demo.page.locator('#canvas').click({ position: { x: 5, y: 5 } });
      await demo.page.keyboard.press('Control+z'); // the whole agent turn, in one step
      await demo.page
        .locator('canvas-ai-chat deep-chat')
        .getByText("↶ Undone: the page is back as it was before the agent's turn.")
        .waitFor();
      assert.equal(await demo.rows(), 0);
      assert.equal(await undo.isDisabled(), true);
    } finally {
      await demo.close();
    }
  });

  it('stops in the middle of a turn: no further request, the canvas keeps the rows applied so far', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      const held = demo.holdHop(4);
      await clickChip(demo, 'Build a cookie-shop homepage');
      await held.arrived;
      const rowsAtStop = await demo.rows();
      assert.equal(rowsAtStop, 2, 'hops 2 and 3 placed two rows');
      const sentAtStop = demo.hops.length;
      await demo.page.locator('canvas-ai-chat [part="stop-button"]').click();
      held.release();

      assert.equal(await demo.turnEnded(0), 'stopped');
      await settle(demo);
      assert.equal(demo.hops.length, sentAtStop, 'no request after stop');
      assert.deepEqual(demo.cancels, [demo.hops[0]!.requestId], 'the turn is cancelled on the server');
      assert.equal(await demo.rows(), rowsAtStop, 'the held response was not applied');
      await demo.page.locator('canvas-ai-chat deep-chat').getByText("I'll start with a hero").waitFor();
    } finally {
      await demo.close();
    }
  });

  it('answers a plain question in one request', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      await clickChip(demo, 'Ask about the editor');
      assert.equal(await demo.turnEnded(0), 'done');
      await settle(demo);
      assert.equal(demo.hops.length, 1);
      assert.equal(demo.hops[0]!.body.agent, undefined, 'the main agent answers');
      await demo.page.locator('canvas-ai-chat deep-chat').getByText('I can only answer questions').waitFor();
      assert.equal(await demo.rows(), 0);
    } finally {
      await demo.close();
    }
  });

  describe('images from other sites', () => {
    let pixel: { port: number; requests: string[]; close(): Promise<void> };
    let scripted: ServerProcess;
    let scenarios: string;
    before(async () => {
      pixel = await startPixelServer();
      // A scripted model that places a hero whose image is on the pixel server, with page data in its URL.
      scenarios = await mkdtemp(join(tmpdir(), 'canvas-ai-demo-scenarios-'));
      const components = `- sdc.demo.hero:\n    props:\n      heading: Hi\n      image:\n        src: http://127.0.0.1:${pixel.port}/hero.svg?leak=page-data\n        alt: x\n`;
      const scenario = {
        id: 'remote-image',
        title: 'A model-chosen image on another site',
        description: 'The model places a hero whose image is on another host; the server refuses the call.',
        agent: 'page_builder',
        max_hops: 12,
        user_message: REMOTE_IMAGE_MESSAGE,
        replies: [
          {
            text: 'Adding a hero with that photo.',
            tool_calls: [
              {
                id: 'call_remote',
                name: 'place_components',
                arguments: JSON.stringify({ operations: [{ target: 'content', placement: 'inside', components }] }),
              },
            ],
          },
          { text: 'I could not use that image.' },
        ],
        hops: [
          { should_continue: true, outputs: [], progress: 'Adding a hero with that photo.' },
          {
            should_continue: false,
            outputs: [],
            progress: 'Adding a hero with that photo.',
            message: 'I could not use that image.',
            finish_reason: 'answer',
          },
        ],
      };
      // JSON is YAML: the scenario loader reads it as any scenario file.
      await writeFile(join(scenarios, 'remote-image.yaml'), JSON.stringify(scenario));
      scripted = await startServerProcess({ args: ['--scenarios', scenarios] });
    });
    after(async () => {
      await scripted?.stop();
      await pixel?.close();
      await rm(scenarios, { recursive: true, force: true });
    });

    it('never fetches a model-chosen image on another site: the server refuses the placement', async () => {
      const demo = await openDemo(chromium.browser, scripted.url);
      try {
        await demo.page.evaluate(
          (text) =>
            (document.querySelector('canvas-ai-chat') as unknown as ChatElement).sendMessage(text, {
              agent: 'page_builder',
            }),
          REMOTE_IMAGE_MESSAGE,
        );
        assert.equal(await demo.turnEnded(0), 'done');
        await settle(demo);
        assert.equal(await demo.rows(), 0, 'nothing was placed');
        assert.equal(await demo.page.locator('#canvas img').count(), 0);
        assert.deepEqual(pixel.requests, [], 'nothing reached the other site');
        // The model was told why (its next decision saw the tool result).
        assert.match(scripted.log.join('\n'), /"tool_errors":1/);
      } finally {
        await demo.close();
      }
    });

    it("loads no image from another site on the demo at all: the page's policy blocks it", async () => {
      const demo = await openDemo(chromium.browser, server.url);
      try {
        const blocked = await demo.page.evaluate(async (port) => {
          const violation = new Promise<string>((resolve) =>
            document.addEventListener('securitypolicyviolation', (event) => resolve(event.violatedDirective), {
              once: true,
            }),
          );
          const image = document.createElement('img');
          image.src = `http://127.0.0.1:${port}/host-content.png?leak=page-data`;
          document.querySelector('#canvas')!.append(image);
          return violation;
        }, pixel.port);
        assert.match(blocked, /^img-src/);
        await settle(demo);
        assert.deepEqual(pixel.requests, [], 'nothing reached the other site');
      } finally {
        await demo.close();
      }
    });
  });
});

describe('co-editing: the person edits the page while the agent works (spec §16)', () => {
  let logged: ServerProcess;
  before(async () => {
    logged = await startServerProcess({ env: { CANVAS_AI_LOG_MODEL_REQUESTS: '1' } });
  });
  after(() => logged?.stop());

  it('keeps the heading the person retyped while the agent edited it, and tells both the person and the model', async () => {
    const scripted = await scenario('coedit-heading-conflict');
    const demo = await openDemo(chromium.browser, logged.url);
    try {
      const held = demo.holdHop(3);
      await sendMessage(demo, scripted.user_message, scripted.agent!);
      await held.arrived;

      // Hop 3's response (the agent's edit of the heading) is on its way; the person retypes the heading first.
      const hero = demo.page.locator('#canvas [data-component="sdc.demo.hero"]');
      assert.equal(await hero.locator('h1').textContent(), 'Crumb & Co.');
      await hero.click();
      const heading = demo.page.locator('#inspector').getByLabel('heading', { exact: true });
      assert.equal(await heading.inputValue(), 'Crumb & Co.');
      await heading.fill('Fresh every day');
      await heading.press('Enter');
      await hero.locator('h1', { hasText: 'Fresh every day' }).waitFor();
      held.release();

      assert.equal(await demo.turnEnded(0), 'done');
      const chat = demo.page.locator('canvas-ai-chat deep-chat');
      await chat.getByText(finalMessage(scripted)).waitFor();
      assert.equal(await hero.locator('h1').textContent(), 'Fresh every day', "the agent's edit did not overwrite it");

      const notice = chat.locator('.canvas-ai-notice');
      assert.equal(await notice.count(), 1, 'one notice: the one rejected output');
      assert.match((await notice.textContent()) ?? '', /^Your edit was kept/);
      assert.ok(await notice.isVisible(), 'the notice is visible in the side panel');
      const [noticeBox, sideBox] = [await notice.boundingBox(), await demo.page.locator('.side').boundingBox()];
      assert.ok(noticeBox && sideBox && noticeBox.width > 0 && noticeBox.height > 0);
      assert.ok(noticeBox.x >= sideBox.x && noticeBox.x + noticeBox.width <= sideBox.x + sideBox.width);

      // The hops: hop 4 reported the conflict, so the held answer was dropped and the model decided again.
      const requestId = demo.hops[0]!.requestId;
      assert.deepEqual(
        demo.hops.map((hop) => hop.hop),
        [1, 2, 3, 4],
      );
      const reported = demo.hops[3]!.body.apply_results ?? [];
      assert.deepEqual(
        reported.map((result) => [result.call_id, result.status]),
        [['call_warm', 'rejected']],
      );
      assert.deepEqual(
        reported[0]!.conflicts?.map((conflict) =>
          'prop' in conflict ? [conflict.prop, conflict.expected, conflict.actual] : [],
        ),
        [['heading', 'Crumb & Co.', 'Fresh every day']],
      );
      const decision4 = await modelRequest(logged, requestId, 4);
      assert.equal(decision4.hop, 4);
      assert.ok(
        notices(decision4).some((text) => text.includes('Fresh every day') && text.includes('Crumb & Co.')),
        `decision 4 hears of the person's heading and the one it expected:\n${notices(decision4).join('\n')}`,
      );

      mkdirSync(ARTIFACTS, { recursive: true });
      await demo.page.screenshot({ path: new URL('coedit-heading-conflict.png', ARTIFACTS).pathname });
    } finally {
      await demo.close();
    }
  });

  it('sends the page without the row the person removed, and the model hears what they removed', async () => {
    const scripted = await scenario('coedit-row-deleted');
    const demo = await openDemo(chromium.browser, logged.url);
    try {
      const held = demo.holdHop(3);
      await sendMessage(demo, scripted.user_message, scripted.agent!);
      await held.arrived;

      const hero = demo.page.locator('#canvas [data-component="sdc.demo.hero"]');
      const heroUuid = (await hero.getAttribute('data-uuid'))!;
      await demo.page.getByRole('button', { name: /^Remove hero/ }).click();
      assert.equal(await demo.rows(), 0, 'the hero row is gone');
      held.release();

      assert.equal(await demo.turnEnded(0), 'done');
      const chat = demo.page.locator('canvas-ai-chat deep-chat');
      await chat.getByText(finalMessage(scripted)).waitFor();
      assert.equal(await chat.locator('.canvas-ai-error').count(), 0, 'no error bubble');
      assert.equal(await chat.locator('.canvas-ai-notice').count(), 0, 'every output was applied');
      assert.equal((await demo.page.locator('[data-field="title"]').textContent())?.trim(), 'Crumb & Co. | Cookies');

      assert.deepEqual(
        demo.hops.map((hop) => hop.hop),
        [1, 2, 3, 4],
      );
      const hop4 = demo.hops[3]!.body;
      assert.deepEqual(
        hop4.context.current_layout.regions.content?.components,
        [],
        'hop 4 carries the page without the hero',
      );
      assert.deepEqual(
        hop4.apply_results?.map((result) => result.status),
        ['applied'],
      );

      const decision4 = await modelRequest(logged, demo.hops[0]!.requestId, 4);
      const told = notices(decision4).find((text) =>
        text.startsWith('While you worked, the person edited the page themselves'),
      );
      assert.ok(told, `decision 4 hears of the person's edits:\n${notices(decision4).join('\n')}`);
      assert.match(told, new RegExp(`removed ${heroUuid} \\(sdc\\.demo\\.hero\\)`));
    } finally {
      await demo.close();
    }
  });
});
/** The text the remote-image scenario answers to. */
const REMOTE_IMAGE_MESSAGE = 'Put a hero with the photo from my other site';

/** The widget element as the page sees it. */
interface ChatElement {
  sendMessage(text: string, options?: { agent?: string }): void;
}

/** A server on 127.0.0.1 that records every request (the "other site" a leaked image would reach). */
async function startPixelServer(): Promise<{ port: number; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'image/gif' });
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
