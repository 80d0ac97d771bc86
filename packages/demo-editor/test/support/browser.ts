import { readFile } from 'node:fs/promises';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium and its flags, shared by every browser test and benchmark of the repository. */
const HEADLESS_CHROMIUM = JSON.parse(
  await readFile(new URL('../../../../scripts/headless-chromium.json', import.meta.url), 'utf8'),
) as {
  executablePath: string;
  args: string[];
};

/**
 * Debian's Chromium, headless, with the flags this machine needs (no downloads, no background traffic).
 * Playwright gives every launch a fresh temporary profile (it refuses a --user-data-dir flag here).
 */
export async function launchChromium(
  options: { keepOnSigint?: boolean } = {},
): Promise<{ browser: Browser; close(): Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? HEADLESS_CHROMIUM.executablePath,
    headless: true,
    args: HEADLESS_CHROMIUM.args,
    // Playwright closes the browser on SIGINT by default; a caller that takes SIGINT as a stop keeps it.
    ...(options.keepOnSigint ? { handleSIGINT: false } : {}),
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}
