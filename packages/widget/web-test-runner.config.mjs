// Browser tests: Debian's Chromium (never a downloaded browser), msw as the server, the repo root served so the
// tests can fetch fixtures/; the comments below say why the less obvious options are here.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';

const require = createRequire(import.meta.url);
/** Debian's Chromium and its flags, shared by every browser test and benchmark of the repository. */
const headlessChromium = JSON.parse(
  await readFile(new URL('../../scripts/headless-chromium.json', import.meta.url), 'utf8'),
);
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

/**
 * The BUILT self-contained module in a raw page: served straight from dist/ without calling next(), so no plugin
 * (esbuild, node-resolve) re-transforms it, plus a one-hop server for that page (msw only serves its own page).
 */
function serveBuiltBundle() {
  const page = `<!doctype html>
<html>
  <body>
    <canvas-ai-chat endpoint="/__built__/api/hop" style="--canvas-ai-height: 400px"></canvas-ai-chat>
    <script type="module" src="/__built__/canvas-ai-chat.js"></script>
    <script type="module">
      document.querySelector('canvas-ai-chat').getLayout = () => ({ layout: { regions: { content: { components: [] } } } });
    </script>
  </body>
</html>`;
  return async (context, next) => {
    if (context.path === '/__built__/page.html') {
      context.type = 'text/html';
      context.body = page;
    } else if (context.path === '/__built__/canvas-ai-chat.js') {
      context.type = 'application/javascript';
      context.body = await readFile(`${here}dist/canvas-ai-chat.js`, 'utf8');
    } else if (context.path === '/__built__/api/hop' && context.method === 'POST') {
      const chunks = [];
      for await (const chunk of context.req) chunks.push(chunk);
      const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      context.type = 'application/json';
      context.body = JSON.stringify({
        status: true,
        protocol: 'canvas-ai/1',
        request_id: request.request_id,
        hop: request.hop,
        agent: { id: 'qa', label: 'Ask about the editor' },
        should_continue: false,
        outputs: [],
        progress: '',
        message: `The built widget answered: ${request.messages.at(-1).text}`,
        finish_reason: 'answer',
      });
    } else {
      return next();
    }
  };
}

/**
 * A second origin for the tests: the reference server's CLI (scripted model, listing no allowed origin) on 127.0.0.1
 * and a port of its own, while the test page is on the runner's. Started on the first `GET /__agent-server__`, which
 * answers `{ url, log }` (the lines it logged so far); stopped with the runner.
 */
function agentServerOnAnotherOrigin() {
  let child;
  let started;
  const log = [];
  const start = () =>
    new Promise((resolve, reject) => {
      child = spawn(process.execPath, ['--import', 'tsx', '../reference-server/src/cli.ts', '--port', '0'], {
        cwd: here,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const timer = setTimeout(() => reject(new Error(`the agent server did not start:\n${log.join('\n')}`)), 30_000);
      let partial = '';
      const onChunk = (chunk) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines.filter(Boolean)) {
          log.push(line);
          const listening = /listening on (http:\/\/\S+)/.exec(line);
          if (listening) {
            clearTimeout(timer);
            resolve(listening[1]);
          }
        }
      };
      child.stdout.setEncoding('utf8').on('data', onChunk);
      child.stderr.setEncoding('utf8').on('data', onChunk);
      child.once('exit', (code) => reject(new Error(`the agent server exited ${code}:\n${log.join('\n')}`)));
    });
  const stop = () => child?.kill();
  process.once('exit', stop);
  return {
    name: 'agent-server-on-another-origin',
    async serve(context) {
      if (context.path !== '/__agent-server__') return undefined;
      started ??= start();
      return { body: JSON.stringify({ url: await started, log }), type: 'application/json' };
    },
    serverStop: stop,
  };
}

export default {
  rootDir: fileURLToPath(new URL('../..', import.meta.url)),
  // test/node/ runs under Node (tsx --test), not in the browser.
  files: [`${here}test/**/*.test.ts`, `!${here}test/node/**`],
  // The 'browser' condition picks msw's and its interceptors' browser builds; @web/test-runner 1 no longer adds it.
  nodeResolve: { exportConditions: ['browser', 'development'], browser: true },
  concurrency: 1,
  testFramework: { config: { timeout: 15000 } },
  middleware: [serveMockServiceWorker(), serveBuiltBundle()],
  // Lit's one-line dev-mode notice on every page is noise; every other browser log is kept.
  filterBrowserLogs: ({ args }) => !(typeof args[0] === 'string' && args[0].startsWith('Lit is in dev mode')),
  // 'esnext' strips TypeScript and lowers nothing else: Chromium runs current JavaScript, and the 'auto' target of
  // @web/dev-server-esbuild 2 falls back to 2018 browsers for a Chromium its data does not know, where esbuild refuses
  // to lower destructuring. The built bundle's test loads it in a raw page anyway.
  plugins: [
    esbuildPlugin({ ts: true, target: 'esnext', tsconfig: `${here}tsconfig.json` }),
    agentServerOnAnotherOrigin(),
  ],
  // Libraries that read process.env.NODE_ENV find it: browsers have no `process`.
  testRunnerHtml: (testFramework) => `<!doctype html>
<html>
  <head><script>window.process = { env: { NODE_ENV: 'development' } };</script></head>
  <body><script type="module" src="${testFramework}"></script></body>
</html>`,
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: headlessChromium.executablePath,
        headless: true,
        args: ['--headless=new', ...headlessChromium.args],
      },
    }),
  ],
};
