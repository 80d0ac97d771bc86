import type { HopRequest } from '@canvas-ai/protocol';
import type { Browser, Page, Request, Route } from 'playwright-core';

/** A file part of a multipart hop (hop 1's attachments, a screenshot's image). */
export interface SentFile {
  type: string;
  bytes: Buffer;
}

/** A hop request as the browser sent it. */
export interface SentHop {
  requestId: string;
  hop: number;
  body: HopRequest;
  /** Its content type without parameters: `application/json` or `multipart/form-data`. */
  contentType: string;
  /** The `attachments` parts of a multipart hop. */
  files: SentFile[];
}

/** The hop request in `request`: its JSON, or for multipart its `request` part and its `attachments` files. */
function sentHop(request: Request): SentHop {
  const contentType = request.headers()['content-type'] ?? '';
  const raw = request.postDataBuffer() ?? Buffer.alloc(0);
  const parts = contentType.startsWith('multipart/form-data') ? multipartParts(raw, contentType) : undefined;
  const json = parts ? (parts.find((part) => part.name === 'request')?.bytes.toString() ?? '{}') : raw.toString();
  const body = JSON.parse(json || '{}') as HopRequest;
  const files = (parts ?? []).filter((part) => part.name === 'attachments').map(({ type, bytes }) => ({ type, bytes }));
  return { requestId: body.request_id, hop: body.hop, body, contentType: contentType.split(';')[0]!.trim(), files };
}

/** The parts of a `multipart/form-data` body: each one's name, declared type and bytes. */
function multipartParts(raw: Buffer, contentType: string): Array<{ name: string; type: string; bytes: Buffer }> {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!boundary) return [];
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const parts: Array<{ name: string; type: string; bytes: Buffer }> = [];
  // The body starts with the delimiter without its line break: put one in front, so every part starts alike.
  const body = Buffer.concat([Buffer.from('\r\n'), raw]);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString();
    parts.push({
      name: /name="([^"]*)"/.exec(head)?.[1] ?? '',
      type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? '',
      bytes: part.subarray(split + 4),
    });
    at = next;
  }
  return parts;
}

/** What the page saw of one hop, recorded when `canvas-ai-hop` fired (after the outputs were applied). */
export interface HopSeen {
  hop: number;
  shouldContinue: boolean;
  /** How many outputs the response carried. */
  outputs: number;
  rows: number;
  /** The numbers of the planned rows drawn as placeholders (spec §20.4), in order. */
  planned: string[];
}

/** What the test's init script records on the page's window. */
interface DemoProbes {
  __hopsSeen: HopSeen[];
  __turnsEnded: string[];
  __policyViolations: string[];
}

/** The demo page in a fresh browser context, with every hop request and widget event recorded. */
export interface DemoPage {
  page: Page;
  hops: SentHop[];
  cancels: string[];
  /** Holds the response to hop `hop` (of any turn) until `release()` is called. */
  holdHop(hop: number): { arrived: Promise<void>; release(): void };
  /** Resolves with the `canvas-ai-turn-end` status of the next turn to end (counting from `count` ended turns). */
  turnEnded(count: number): Promise<string>;
  hopsSeen(): Promise<HopSeen[]>;
  /** Every content security policy violation the page raised (`directive blocked-url`). */
  policyViolations(): Promise<string[]>;
  rows(): Promise<number>;
  /** Waits until the chat has loaded the agents config and rendered (after opening, or a reload). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the demo served by the reference server at `url`. */
export async function openDemo(browser: Browser, url: string): Promise<DemoPage> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const hops: SentHop[] = [];
  const cancels: string[] = [];
  const holds = new Map<number, { arrived: () => void; gate: Promise<void> }>();

  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === 'POST' && path === '/api/hop') {
      hops.push(sentHop(request));
    }
    if (request.method() === 'DELETE' && path.startsWith('/api/hop/'))
      cancels.push(decodeURIComponent(path.slice('/api/hop/'.length)));
  });
  await page.route('**/api/hop', async (route: Route) => {
    const hop = sentHop(route.request()).hop ?? 0;
    const hold = holds.get(hop);
    if (!hold) return route.continue();
    holds.delete(hop);
    const response = await route.fetch();
    hold.arrived();
    await hold.gate;
    // The page may have aborted the request (stop) or gone away (reload) meanwhile.
    await route.fulfill({ response }).catch(() => undefined);
  });
  // Events bubble and are composed: the host page hears them on document.
  await page.addInitScript(() => {
    const seen: unknown[] = [];
    const ended: string[] = [];
    const violations: string[] = [];
    Object.assign(window, { __hopsSeen: seen, __turnsEnded: ended, __policyViolations: violations });
    document.addEventListener('securitypolicyviolation', (event) =>
      violations.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
    document.addEventListener('canvas-ai-hop', (event) => {
      const detail = (event as CustomEvent).detail;
      seen.push({
        hop: detail.hop,
        shouldContinue: detail.response.should_continue,
        outputs: detail.response.outputs.length,
        rows: document.querySelectorAll('#canvas [data-region="content"] > .row').length,
        planned: [...document.querySelectorAll<HTMLElement>('#canvas .planned-row')].map(
          (row) => row.dataset.plannedRow ?? '',
        ),
      });
    });
    document.addEventListener('canvas-ai-turn-end', (event) => ended.push((event as CustomEvent).detail.status));
  });
  // Ready when the chat has loaded the agents config and rendered deep-chat (the picker needs the config).
  const ready = async (): Promise<void> => {
    await page.locator('canvas-ai-chat deep-chat').waitFor({ state: 'attached' });
    await page.locator('canvas-ai-chat canvas-ai-tool-picker [part="button"]').waitFor({ state: 'visible' });
  };
  await page.goto(url);
  await ready();

  return {
    page,
    hops,
    cancels,
    holdHop(hop) {
      let arrived!: () => void;
      let release!: () => void;
      const arrivedPromise = new Promise<void>((resolve) => (arrived = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      holds.set(hop, { arrived, gate });
      return { arrived: arrivedPromise, release };
    },
    async turnEnded(count) {
      await page.waitForFunction((n) => (window as unknown as DemoProbes).__turnsEnded.length > n, count, {
        timeout: 60_000,
      });
      return page.evaluate((n) => (window as unknown as DemoProbes).__turnsEnded[n] ?? '', count);
    },
    hopsSeen: () => page.evaluate(() => (window as unknown as DemoProbes).__hopsSeen),
    policyViolations: () => page.evaluate(() => (window as unknown as DemoProbes).__policyViolations),
    rows: () => page.locator('#canvas [data-region="content"] > .row').count(),
    ready,
    close: () => context.close(),
  };
}
