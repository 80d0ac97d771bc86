// A turn with no browser, end to end: the canvas-ai-turn command and runHeadlessTurn against the real reference
// server over HTTP (its CLI's defaults: the fixtures, the scripted model, CSRF on), on 127.0.0.1.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CanvasDocument, ComponentNode } from '@canvas-ai/protocol';
import { createApp, jsonLineLogger, loadConfig, ScriptedProvider, startServer } from '@canvas-ai/reference-server';
import { runHeadlessTurn } from '../../src/loop.js';
import { main } from '../../src/node/headless-cli.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/node/headless-cli.ts', import.meta.url));
const WIDGET_DIR = fileURLToPath(new URL('../../', import.meta.url));
const SHOP_MESSAGE = 'Build a homepage for a cookie shop';
const SHOP_TITLE = 'Crumb & Co. | Fresh cookies, baked every morning';

let server: { url: string; close(): Promise<void> };
let scratch: string;

before(async () => {
  const config = await loadConfig({});
  const app = createApp({
    agents: config.agents,
    agentsSource: config.agentsFile,
    catalog: config.catalog,
    provider: new ScriptedProvider(config.scenarios),
    docs: config.docs,
    log: jsonLineLogger(() => undefined),
  });
  server = await startServer(app, { port: 0, host: '127.0.0.1' });
  scratch = await mkdtemp(join(tmpdir(), 'canvas-ai-headless-'));
});

after(async () => {
  await server.close();
  await rm(scratch, { recursive: true, force: true });
});

const rowTypes = (document: CanvasDocument) =>
  document.layout.regions.content!.components.map((row: ComponentNode) => row.component);

describe('canvas-ai-turn, the headless command', () => {
  it('builds the cookie-shop page from an empty document with the scripted model, narrating on stderr', async () => {
    const out = join(scratch, 'shop.json');
    const { stdout, stderr } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        CLI,
        '--server',
        server.url,
        '--agent',
        'page_builder',
        '--message',
        SHOP_MESSAGE,
        '--out',
        out,
      ],
      { cwd: WIDGET_DIR },
    );
    assert.equal(stdout, '');
    const page = JSON.parse(await readFile(out, 'utf8')) as CanvasDocument;
    assert.deepEqual(rowTypes(page), [
      'sdc.demo.hero',
      'sdc.demo.section',
      'sdc.demo.two_column',
      'sdc.demo.section',
      'sdc.demo.footer',
    ]);
    assert.equal(page.page.title, SHOP_TITLE);
    assert.match(stderr, /I'll start with a hero/);
    assert.match(stderr, /a footer with your address/);
  });

  it('starts from the page it is given and writes it to stdout when there is no --out', async () => {
    const start: CanvasDocument = {
      layout: { regions: { content: { components: [] }, sidebar: { components: [] } } },
      page: { owner: 'kept' },
    };
    const file = join(scratch, 'start.json');
    await writeFile(file, JSON.stringify(start));
    const written: string[] = [];
    const code = await main(
      ['--server', server.url, '--agent', 'page_builder', '--message', SHOP_MESSAGE, '--document', file],
      {
        out: (text) => written.push(text),
        err: () => undefined,
      },
    );
    assert.equal(code, 0);
    const page = JSON.parse(written.join('')) as CanvasDocument;
    assert.equal(page.page.owner, 'kept');
    assert.equal(page.page.title, SHOP_TITLE);
    assert.deepEqual(page.layout.regions.sidebar, { components: [] });
    assert.equal(rowTypes(page).length, 5);
  });

  it('refuses a document that is not a page, and missing arguments, with exit code 2 and a line saying why', async () => {
    const file = join(scratch, 'not-a-page.json');
    await writeFile(file, JSON.stringify({ layout: { regions: { content: { components: 'none' } } } }));
    const errors: string[] = [];
    const io = { out: () => undefined, err: (text: string) => errors.push(text) };
    assert.equal(await main(['--server', server.url, '--message', 'Hi', '--document', file], io), 2);
    assert.match(errors.join(''), /is not a page .*layout\.regions\.content\.components/);
    errors.length = 0;
    assert.equal(await main(['--message', 'Hi'], io), 2);
    assert.match(errors.join(''), /Give --server and --message/);
    errors.length = 0;
    assert.equal(await main(['--server', server.url, '--message', 'Hi', '--colour', 'red'], io), 2);
    assert.match(errors.join(''), /colour/);
    errors.length = 0;
    assert.equal(await main(['--server', '127.0.0.1:8787', '--message', 'Hi'], io), 2);
    assert.match(errors.join(''), /--server must be an http:\/\/ or https:\/\/ URL/);
    errors.length = 0;
    assert.equal(await main(['--server', server.url, '--message', 'Hi', '--answers', '[{"kind":"vote"}]'], io), 2);
    assert.match(errors.join(''), /--answers is not a list of answers: 0\.kind/);
    errors.length = 0;
    assert.equal(
      await main(['--server', server.url, '--message', 'Hi', '--answers', join(scratch, 'none.json')], io),
      2,
    );
    assert.match(errors.join(''), /Could not read the answers .*none\.json/);
  });

  it('writes the page to stdout, exit 1, when --out cannot be written', async () => {
    const errors: string[] = [];
    const written: string[] = [];
    const code = await main(
      [
        '--server',
        server.url,
        '--agent',
        'page_builder',
        '--message',
        SHOP_MESSAGE,
        '--out',
        join(scratch, 'no/such/dir.json'),
      ],
      { out: (text) => written.push(text), err: (text) => errors.push(text) },
    );
    assert.equal(code, 1);
    assert.match(errors.join(''), /Could not write .*no\/such\/dir\.json .*the page follows on standard output/);
    assert.equal((JSON.parse(written.join('')) as CanvasDocument).page.title, SHOP_TITLE);
  });

  it('exits 1 and still writes the page when the server refuses the turn (no CSRF token sent)', async () => {
    const errors: string[] = [];
    const written: string[] = [];
    const code = await main(
      ['--server', server.url, '--agent', 'page_builder', '--message', SHOP_MESSAGE, '--no-csrf'],
      {
        out: (text) => written.push(text),
        err: (text) => errors.push(text),
      },
    );
    assert.equal(code, 1);
    assert.match(errors.join(''), /The turn failed at hop 1: Missing or wrong X-CSRF-Token header/);
    assert.deepEqual(JSON.parse(written.join('')), {
      layout: { regions: { content: { components: [] } } },
      page: {},
    });
  });
});

describe('runHeadlessTurn', () => {
  it('reports each hop with the page as it stands, and answers with the final answer and the narration', async () => {
    const seen: number[] = [];
    const turn = await runHeadlessTurn({
      server: `${server.url}/`,
      document: { layout: { regions: { content: { components: [] } } }, page: {} },
      message: SHOP_MESSAGE,
      agent: 'page_builder',
      onHop: (_report, document) => seen.push(rowTypes(document).length),
    });
    assert.equal(turn.result.status, 'done');
    // Rows appear one per hop from hop 2 (each hop's outputs are the calls the previous reply made).
    assert.deepEqual(seen.slice(0, 6), [0, 1, 2, 3, 4, 5]);
    assert.match(turn.answer, /Tell me what to change/);
    assert.match(turn.progress, /^I'll start with a hero/);
    assert.equal(turn.document.page.title, SHOP_TITLE);
  });
});
