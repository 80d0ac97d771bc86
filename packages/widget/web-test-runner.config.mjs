// Browser tests: Debian's Chromium (never a downloaded browser), msw as the server, the repo root served so the
// tests can fetch fixtures/ (see /work/shared/TOOLCHAIN.md for why each option is here).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';

const require = createRequire(import.meta.url);
const here = fileURLToPath(new URL('.', import.meta.url));

/** msw's service worker, served from node_modules at the root scope: nothing generated, nothing committed. */
function serveMockServiceWorker() {
  const file = require.resolve('msw/mockServiceWorker.js');
  return async (context, next) => {
    if (context.path !== '/mockServiceWorker.js') return next();
    context.type = 'application/javascript';
    context.set('Service-Worker-Allowed', '/');
    context.body = await readFile(file, 'utf8');
  };
}

export default {
  rootDir: fileURLToPath(new URL('../..', import.meta.url)),
  files: [`${here}test/**/*.test.ts`],
  nodeResolve: true,
  concurrency: 1,
  testFramework: { config: { timeout: 15000 } },
  middleware: [serveMockServiceWorker()],
  // target 'auto' transforms TypeScript only; the built bundle's test loads it in a raw page anyway.
  plugins: [esbuildPlugin({ ts: true, target: 'auto', tsconfig: `${here}tsconfig.json` })],
  // immer (through the protocol's reducer) reads process.env.NODE_ENV.
  testRunnerHtml: (testFramework) => `<!doctype html>
<html>
  <head><script>window.process = { env: { NODE_ENV: 'development' } };</script></head>
  <body><script type="module" src="${testFramework}"></script></body>
</html>`,
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: '/usr/bin/chromium',
        headless: true,
        args: [
          '--no-sandbox',
          '--headless=new',
          '--disable-gpu',
          '--disable-dev-shm-usage',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
          '--disable-quic',
        ],
      },
    }),
  ],
};
