import assert from 'node:assert/strict';
import { access, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchChromium } from './support/browser.js';
import { buildAndPack, installProject, PUBLISHED, run, succeeded, TSC } from './support/packed-packages.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

// The packages as a new team gets them: every published package packed, the tarballs installed by npm into a project
// outside the workspace, and used there only through what they ship (no checkout, no fixtures folder of the
// repository, no TypeScript sources run by tsx).
let root: string;
let project: string;
let tarballs: string[];

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'canvas-ai-packages-'));
  project = join(root, 'project');
  tarballs = await buildAndPack(join(root, 'tarballs'));
  await installProject(project, tarballs, join(root, 'npm-cache'));
});
after(() => rm(root, { recursive: true, force: true }));

/** A file of the project that uses every entry of every package, with types a wrong declaration would break. */
const USES_EVERY_ENTRY = `
import { applyOutputsWithResults, LIMITS, PROTOCOL_VERSION, type HopRequest, type Layout } from '@canvas-ai/protocol';
import { parseHopRequest, type ToolDefinition } from '@canvas-ai/protocol/server';
import { driveScenario, type Scenario } from '@canvas-ai/protocol/scenario';
import { DEFAULT_FIXTURES_DIR, loadFixtures } from '@canvas-ai/protocol/node';
import { fixturesFromData, repositoryFixtures, type PageFixtures } from '@canvas-ai/protocol/fixtures';
import { KIT_FIXTURES_DIR, runConformance, type ConformanceReport } from '@canvas-ai/conformance';
import { createApp, MemoryTurnStore, ScriptedProvider, type CanvasAiApp } from '@canvas-ai/reference-server';
import { createMockHandlers } from '@canvas-ai/reference-server/mock';
import { setupCanvasAiMock } from '@canvas-ai/reference-server/mock/browser';
import { CanvasAiChat } from '@canvas-ai/widget';
import '@canvas-ai/widget/define';
import { startTurn, type TurnResult } from '@canvas-ai/widget/loop';

const version: 'canvas-ai/1' = PROTOCOL_VERSION;
const limit: number = LIMITS.maxBodyBytes;
const layout: Layout = { regions: { content: { components: [] } } };
const applied: { results: unknown[] } = applyOutputsWithResults({ layout, page: {} }, []);
const parsed: boolean = parseHopRequest({}).success;
const dirs: string[] = [DEFAULT_FIXTURES_DIR, KIT_FIXTURES_DIR];
const pageFixtures: PageFixtures = repositoryFixtures;
const validate: (data: unknown) => PageFixtures = fixturesFromData;
const mock: Promise<{ stop(): void }> = setupCanvasAiMock({ fixtures: pageFixtures });
export async function useEverything(): Promise<void> {
  const fixtures = await loadFixtures();
  const scenario: Scenario = fixtures.scenarios[0]!;
  const app: CanvasAiApp = createApp({
    agents: fixtures.agents,
    catalog: fixtures.catalog,
    provider: new ScriptedProvider(fixtures.scenarios),
    store: new MemoryTurnStore(),
  });
  const report: ConformanceReport = await runConformance({ endpoint: 'http://127.0.0.1:1/api/hop' });
  const handlers: unknown[] = createMockHandlers({ scenarios: fixtures.scenarios, catalog: fixtures.catalog, agents: fixtures.agents });
  const run = await driveScenario(scenario, { endpoint: 'http://127.0.0.1:1/api/hop', fixtures, fetch: (input, init) => app.fetch(new Request(input, init)) });
  const turn: Promise<TurnResult> = startTurn({
    endpoint: '/api/hop',
    messages: [{ role: 'user', text: 'Hi' }],
    getLayout: () => ({ layout }),
    applyOutputs: () => [],
  }).result;
  const tool: ToolDefinition | undefined = undefined;
  const chat: typeof CanvasAiChat = CanvasAiChat;
  const request: Partial<HopRequest> = { hop: 1 };
  void [version, limit, applied, parsed, dirs, pageFixtures, validate, mock, report, handlers, run, turn, tool, chat, request];
}
`;

/** A tsconfig of the project: `nodenext` (a Node project) or `bundler` (a Vite or esbuild project). */
function tsconfig(resolution: 'nodenext' | 'bundler'): string {
  return JSON.stringify({
    compilerOptions: {
      module: resolution === 'nodenext' ? 'nodenext' : 'esnext',
      moduleResolution: resolution,
      target: 'es2022',
      lib: ['es2023', 'dom', 'dom.iterable'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
    files: ['uses-every-entry.ts'],
  });
}

/** Every file a package.json's `exports` (or `bin`) points at, as `./dist/…` paths: condition objects walked. */
function targets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(targets);
}

describe('the packages installed from their tarballs, outside the workspace', () => {
  it('come from the one pack command: four tarballs, each with every file its publishConfig points at, installed', async () => {
    assert.deepEqual(
      tarballs.map((tarball) => basename(tarball).replace(/-\d+\.\d+\.\d+\.tgz$/, '')),
      PUBLISHED.map((name) => `canvas-ai-${name}`),
    );
    for (const [index, name] of PUBLISHED.entries()) {
      const tarball = tarballs[index]!;
      const source = JSON.parse(await readFile(new URL(`../../${name}/package.json`, import.meta.url), 'utf8'));
      const listed = new Set(succeeded('tar -tzf', await run('tar', ['-tzf', tarball], root)).stdout.split('\n'));
      const packed = JSON.parse(
        succeeded('tar -xzOf', await run('tar', ['-xzOf', tarball, 'package/package.json'], root)).stdout,
      );
      // pnpm pack put publishConfig in place: what an installed package resolves is dist/, never src/.
      assert.deepEqual(packed.exports, source.publishConfig.exports, `${name}: the packed exports`);
      const files = [...targets(source.publishConfig.exports), ...targets(source.publishConfig.bin ?? source.bin)];
      assert.ok(files.length >= 2, `${name}: ${files.join(', ')}`);
      for (const file of files) {
        assert.ok(listed.has(`package/${file.replace(/^\.\//, '')}`), `${basename(tarball)} holds ${file}`);
        await access(join(project, 'node_modules/@canvas-ai', name, file));
      }
    }
  });

  for (const resolution of ['nodenext', 'bundler'] as const) {
    it(`resolve every entry's types under moduleResolution ${resolution}`, async () => {
      await writeFile(join(project, 'uses-every-entry.ts'), USES_EVERY_ENTRY);
      await writeFile(join(project, `tsconfig.${resolution}.json`), tsconfig(resolution));
      const result = await run(process.execPath, [TSC, '-p', `tsconfig.${resolution}.json`], project);
      assert.equal(result.code, 0, result.stdout + result.stderr);
    });
  }

  it('load their own fixtures: loadFixtures() and the kit read the copies the packages ship', async () => {
    const script =
      "import { loadFixtures } from '@canvas-ai/protocol/node'; const f = await loadFixtures(); console.log(f.scenarios.length, f.dir);";
    const loaded = succeeded(
      'loadFixtures()',
      await run(process.execPath, ['--input-type=module', '-e', script], project),
    );
    const [count, dir] = loaded.stdout.trim().split(' ');
    assert.ok(Number(count) > 10, loaded.stdout);
    assert.ok(dir!.startsWith(join(project, 'node_modules/@canvas-ai/protocol/dist/fixtures')), dir);
    const printed = succeeded(
      'canvas-ai-conformance --print-fixtures',
      await run('npx', ['canvas-ai-conformance', '--print-fixtures'], project),
    );
    assert.ok(
      printed.stdout.trim().startsWith(join(project, 'node_modules/@canvas-ai/conformance/dist/fixtures')),
      printed.stdout,
    );
  });

  describe('npx canvas-ai-server --port 0', () => {
    let server: ServerProcess;
    before(async () => {
      const page = join(project, 'page');
      await cp(join(project, 'node_modules/@canvas-ai/widget/dist/canvas-ai-chat.js'), join(page, 'canvas-ai-chat.js'));
      await writeFile(join(page, 'index.html'), PAGE);
      await writeFile(join(page, 'host.js'), HOST_SCRIPT);
      server = await startServerProcess({
        command: { file: 'npx', args: ['canvas-ai-server', '--port', '0', '--static', page], cwd: project },
        env: { PATH: `${process.execPath.replace(/\/node$/, '')}:${process.env.PATH ?? ''}` },
      });
    });
    after(() => server.stop());

    it('starts and answers /healthz', async () => {
      const health = await fetch(`${server.url}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok', protocol: 'canvas-ai/1' });
    });

    it('passes npx canvas-ai-conformance at level 2, with the fixtures both packages ship', async () => {
      const kit = await run(
        'npx',
        [
          'canvas-ai-conformance',
          '--level',
          '2',
          '--endpoint',
          `${server.url}/api/hop`,
          '--token-endpoint',
          `${server.url}/api/token`,
          '--agents-endpoint',
          `${server.url}/api/agents`,
        ],
        project,
      );
      assert.equal(kit.code, 0, kit.stdout.slice(-4_000) + kit.stderr);
      assert.match(kit.stdout.trimEnd().split('\n').at(-1)!, /^\d+ passed, 0 failed$/);
    });

    it('builds the cookie-shop page with npx canvas-ai-turn, the headless command the widget ships', async () => {
      const turn = await run(
        'npx',
        [
          'canvas-ai-turn',
          '--server',
          server.url,
          '--agent',
          'page_builder',
          '--message',
          'Build a homepage for a cookie shop',
        ],
        project,
      );
      assert.equal(turn.code, 0, turn.stderr);
      const page = JSON.parse(turn.stdout) as { layout: { regions: { content: { components: unknown[] } } } };
      assert.equal(page.layout.regions.content.components.length, 5);
    });

    it('checks a client from the tarballs: npx canvas-ai-conformance --client with npx canvas-ai-turn passes', async () => {
      const kit = await run(
        'npx',
        [
          'canvas-ai-conformance',
          '--client',
          // The whole adapter contract (spec/conformance.md §7): the person's attachment and answers too.
          'npx canvas-ai-turn --server {server} --message {message} --agent {agent} --attach {attachment} --answers {answers} --out {out} 2> {shown}',
        ],
        project,
      );
      assert.equal(kit.code, 0, kit.stdout.slice(-4_000) + kit.stderr.slice(-4_000));
      assert.match(kit.stdout, /PASS {2}client\.stop /);
      assert.match(kit.stdout, /PASS {2}client\.wait-answer /);
      assert.match(
        kit.stdout,
        /^canvas-ai\/1 revision 1\.8 client: streaming, remove\/move, questions, screenshots, plans, approvals$/m,
      );
      assert.match(kit.stdout.trimEnd().split('\n').at(-1)!, /^27 passed, 0 failed$/);
    });

    it("runs a turn in Chromium with the widget's self-contained module", async () => {
      const chromium = await launchChromium();
      try {
        const page = await chromium.browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(`${server.url}/`);
        await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
        const end = await page.evaluate(async () => {
          const state = window as unknown as { turnEnd: Promise<unknown>; applied: unknown[]; rows?: number };
          const chat = document.querySelector('canvas-ai-chat') as unknown as {
            sendMessage(text: string, options: { agent: string }): void;
          };
          chat.sendMessage('Add a hero for my bakery, Crumb & Co.', { agent: 'page_builder' });
          return { detail: await state.turnEnd, applied: state.applied, rows: state.rows };
        });
        const { detail, applied, rows } = end as {
          rows?: number;
          detail: { status: string; hops: number; response?: { message: string } };
          applied: Array<{ type: string; operations: Array<{ components: Array<{ component: string }> }> }>;
        };
        assert.deepEqual(errors, []);
        assert.equal(detail.status, 'done');
        assert.equal(detail.hops, 3);
        assert.match(detail.response!.message, /hero for Crumb & Co\./);
        assert.deepEqual(
          applied.map((output) => [output.type, output.operations[0]!.components[0]!.component]),
          [['place_components', 'sdc.demo.hero']],
        );
        assert.equal(rows, 1, "the module's applyOutputsWithResults placed the hero");
      } finally {
        await chromium.close();
      }
    });
  });
});

/**
 * A plain page: the self-contained module, then the host's script (its own file: the server's content security policy
 * runs no inline script, spec §4.5).
 */
const PAGE = `<!doctype html>
<html>
  <body>
    <canvas-ai-chat endpoint="/api/hop" token-endpoint="/api/token" agents-endpoint="/api/agents"></canvas-ai-chat>
    <script type="module" src="/canvas-ai-chat.js"></script>
    <script type="module" src="/host.js"></script>
  </body>
</html>
`;

/**
 * The host's glue: a store of one region kept by the shared reducer the self-contained module exports (a page with no
 * bundler has no other way to `applyOutputsWithResults`), and the turn's end kept for the test.
 */
const HOST_SCRIPT = `import { applyOutputsWithResults } from '/canvas-ai-chat.js';
await customElements.whenDefined('canvas-ai-chat');
const chat = document.querySelector('canvas-ai-chat');
let doc = { layout: { regions: { content: { components: [] } } }, page: {} };
window.applied = [];
chat.getLayout = () => doc;
chat.applyOutputs = async (outputs) => {
  window.applied.push(...outputs);
  const { document, results } = applyOutputsWithResults(doc, outputs);
  doc = document;
  window.rows = doc.layout.regions.content.components.length;
  return results;
};
window.turnEnd = new Promise((resolve) => chat.addEventListener('canvas-ai-turn-end', (event) => resolve(event.detail)));
window.ready = true;
`;
