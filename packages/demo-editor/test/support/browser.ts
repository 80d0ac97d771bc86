import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium, headless, with the flags this machine needs (no downloads, no background traffic).
 * Playwright gives every launch a fresh temporary profile (it refuses a --user-data-dir flag here).
 */
export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}
