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
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { openDemo, type DemoPage } from './support/demo-page.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

const COOKIE_SHOP_HOPS = 7;
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

/** Clicks a suggestion chip by its label. */
async function clickChip(demo: DemoPage, label: string): Promise<void> {
  await demo.page.locator('#chips .chip', { hasText: label }).click();
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
      const chat = demo.page.locator('canvas-ai-chat');
      await chat.getByText('Next, a section with your three best sellers').waitFor();
      assert.equal(await chat.getByText(FINAL_ANSWER).count(), 0, 'the final answer appeared before the last hop');
      assert.equal(await demo.rows(), 1, 'hop 2 placed the hero, and only the hero');
      held.release();

      assert.equal(await demo.turnEnded(0), 'done');
      const seen = await demo.hopsSeen();
      assert.deepEqual(
        seen.map((hop) => hop.rows),
        [0, 1, 2, 3, 4, 5, 5],
        'after each hop the canvas has exactly one more row while rows are being placed',
      );
      assert.deepEqual(
        seen.map((hop) => hop.shouldContinue),
        [true, true, true, true, true, true, false],
      );

      assert.equal(demo.hops.length, COOKIE_SHOP_HOPS, 'one request per hop');
      assert.deepEqual(
        demo.hops.map((hop) => hop.hop),
        [1, 2, 3, 4, 5, 6, 7],
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
      // A tall viewport so the whole page fits, once the placement highlight has faded.
      await demo.page.setViewportSize({ width: 1400, height: 2400 });
      await demo.page.waitForTimeout(1_800);
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
        [1, 2],
      );
      assert.equal(turn[0]!.body.context.selected_component, uuid);
      assert.equal(turn[0]!.body.conversation_id, demo.hops[0]!.body.conversation_id, 'same conversation');
      assert.equal(turn[0]!.body.agent, 'page_builder');
      await demo.page.locator(`#canvas [data-uuid="${uuid}"] h3`, { hasText: 'Gooey double chocolate chip' }).waitFor();
      assert.equal(await demo.rows(), 5, 'an edit adds no row');
    });
  });

  it('starts cleanly after a reload in the middle of a turn, without resuming the abandoned one', async () => {
    const demo = await openDemo(chromium.browser, server.url);
    try {
      const held = demo.holdHop(3);
      await clickChip(demo, 'Build a cookie-shop homepage');
      await held.arrived;
      const abandoned = demo.hops[0]!.requestId;
      await demo.page.reload();
      held.release();
      await demo.page.locator('canvas-ai-chat canvas-ai-tool-picker [part="button"]').waitFor({ state: 'visible' });
      const sentBeforeNewTurn = demo.hops.length;

      await clickChip(demo, 'Ask about the editor');
      assert.equal(await demo.turnEnded(0), 'done');
      await settle(demo);
      const after = demo.hops.slice(sentBeforeNewTurn);
      assert.equal(after.length, 1, 'the question is one request');
      assert.equal(after[0]!.hop, 1);
      assert.notEqual(after[0]!.requestId, abandoned);
      assert.equal(after.filter((hop) => hop.requestId === abandoned).length, 0, 'the abandoned turn is not resumed');
      await demo.page.locator('canvas-ai-chat').getByText('I can only answer questions').waitFor();
      assert.equal(await demo.rows(), 0, 'a reloaded editor starts from its own (empty) store');
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
      await demo.page.locator('canvas-ai-chat').getByText("I'll start with a hero").waitFor();
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
      await demo.page.locator('canvas-ai-chat').getByText('I can only answer questions').waitFor();
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
      scripted = await startServerProcess(['--scenarios', scenarios]);
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
