import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import type { BenchProfile } from './profiles.js';
import type { WidgetResults } from './results.js';
import { BENCH_DIR } from './shared/child-server.js';
import type { ClientMeasurement } from './shared/client-page.js';
import { median, round } from './shared/stats.js';

const PAGE_ENTRY = fileURLToPath(new URL('./shared/client-page.ts', import.meta.url));
const ORIGIN = 'http://bench.local';
/** Debian's Chromium and its flags, shared by every browser test and benchmark of the repository. */
const HEADLESS_CHROMIUM = JSON.parse(
  await readFile(new URL('../../scripts/headless-chromium.json', import.meta.url), 'utf8'),
) as {
  executablePath: string;
  args: string[];
};
/** The flags this machine's Chromium needs (no sandbox as root, no background traffic). */
const CHROMIUM_ARGS: readonly string[] = HEADLESS_CHROMIUM.args;

/**
 * The client's per-hop work in headless Chromium: the page (src/shared/client-page.ts, bundled by vite with the
 * widget's and the protocol's sources) is served from memory, and times its loop step per layout size; each
 * repetition's figures are means per hop, reported as the median over repetitions.
 */
export async function benchWidgetClient(
  profile: BenchProfile['widget'],
  log: (line: string) => void,
): Promise<WidgetResults['client']> {
  const script = await bundlePage();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? HEADLESS_CHROMIUM.executablePath,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
  try {
    const page = await browser.newPage();
    page.on('pageerror', (error) => log(`client page error: ${error.message}`));
    await page.route(`${ORIGIN}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/client.js') return route.fulfill({ contentType: 'text/javascript', body: script });
      return route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><title>bench</title><script type="module" src="/client.js"></script>',
      });
    });
    await page.goto(`${ORIGIN}/`);
    await page.waitForFunction(() => 'benchClient' in window);
    const rows: WidgetResults['client']['rows'] = [];
    for (const components of profile.clientSizes) {
      await page.evaluate((n) => window.benchClient.prepare(n), components);
      await page.evaluate((ms) => window.benchClient.measure(ms), profile.minRepetitionMs / 2); // warm-up
      const repetitions: ClientMeasurement[] = [];
      for (let repetition = 0; repetition < profile.repetitions; repetition += 1) {
        repetitions.push(await page.evaluate((ms) => window.benchClient.measure(ms), profile.minRepetitionMs));
      }
      const perHop = median(repetitions.map((r) => r.perHopMs));
      const floor = median(repetitions.map((r) => r.floorMs));
      rows.push({
        components,
        per_hop_ms: round(perHop),
        floor_ms: round(floor),
        ratio: round(perHop / floor, 2),
        apply_ms: round(median(repetitions.map((r) => r.applyMs))),
      });
      log(
        `widget client ${components}: ${round(perHop)} ms/hop, JSON.stringify ${round(floor)} ms, ratio ${round(perHop / floor, 2)}`,
      );
    }
    return { browser: `Chromium ${browser.version()}`, repetitions: profile.repetitions, rows };
  } finally {
    await browser.close();
  }
}

/** Bundles the client page into one ES module (the widget and protocol sources, zod inside). */
async function bundlePage(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'canvas-ai-bench-page-'));
  try {
    await build({
      root: BENCH_DIR,
      configFile: false,
      logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"production"' },
      build: {
        outDir,
        emptyOutDir: true,
        target: 'es2022',
        minify: true,
        lib: { entry: PAGE_ENTRY, formats: ['es'], fileName: () => 'client.js' },
      },
    });
    return await readFile(join(outDir, 'client.js'), 'utf8');
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}
