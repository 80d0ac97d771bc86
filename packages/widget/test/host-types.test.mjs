// A host's strict type-check of the published packages: a host file compiled against the declarations a host
// installs (the widget's and the protocol's publishConfig exports, emitted by tsc), under `moduleResolution`
// `nodenext` and `bundler`, both with `skipLibCheck: false`, so every declaration file a host loads is checked,
// lit's and deep-chat's included if any of ours leads to them. Runs in Node (node --test): it needs tsc.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const widgetDir = fileURLToPath(new URL('..', import.meta.url));
const protocolDir = join(widgetDir, '../protocol');
const scratch = join(widgetDir, '.artifacts/host-types');
const tsc = createRequire(join(widgetDir, 'package.json')).resolve('typescript/bin/tsc');

/** What a host writes: the element from `/define`, the reducer as its `applyOutputs`, the loop, the events. */
const HOST_FILE = `import '@canvas-ai/widget/define';
import { applyOutputsWithResults, type CanvasDocument } from '@canvas-ai/protocol';
import type { CanvasAiChat, ChatMessageContent, TurnEndDetail } from '@canvas-ai/widget';
import { startTurn, type TurnResult } from '@canvas-ai/widget/loop';

const chat: CanvasAiChat | null = document.querySelector('canvas-ai-chat');
let page: CanvasDocument = { layout: { regions: { content: { components: [] } } }, page: {} };
if (chat) {
  chat.getLayout = () => page;
  chat.applyOutputs = (outputs) => {
    const { document, results } = applyOutputsWithResults(page, outputs);
    page = document;
    return results;
  };
  chat.chatOptions = { textInput: { placeholder: { text: 'Ask' } }, images: true };
  chat.addEventListener('canvas-ai-turn-end', (event) => {
    const detail: TurnEndDetail = event.detail;
    console.log(detail.status, detail.inverse.length);
  });
  const sent: boolean = chat.sendMessage('Build a page', { agent: 'page_builder' });
  const messages: ChatMessageContent[] = chat.chat?.getMessages() ?? [];
  console.log(sent, messages.length);
}
export async function oneTurn(): Promise<TurnResult> {
  return startTurn({ endpoint: '/api/hop', messages: [{ role: 'user', text: 'Hi' }], getLayout: () => page }).result;
}
`;

const COMMON = {
  target: 'ES2022',
  lib: ['ES2023', 'DOM', 'DOM.Iterable'],
  strict: true,
  skipLibCheck: false,
  noEmit: true,
  types: [],
};
const CONFIGS = {
  nodenext: { module: 'NodeNext', moduleResolution: 'NodeNext' },
  bundler: { module: 'ESNext', moduleResolution: 'Bundler' },
};

/** An installed copy of a workspace package: its publishConfig exports, and declarations emitted into it. */
async function install(name, sourceDir, tsconfig, typesDir) {
  const manifest = JSON.parse(await readFile(join(sourceDir, 'package.json'), 'utf8'));
  const target = join(scratch, 'node_modules', name);
  await mkdir(target, { recursive: true });
  const { exports } = manifest.publishConfig;
  await writeFile(join(target, 'package.json'), JSON.stringify({ name, type: 'module', exports }, null, 2));
  await run(process.execPath, [
    tsc,
    '-p',
    join(sourceDir, tsconfig),
    '--emitDeclarationOnly',
    '--declaration',
    '--outDir',
    join(target, typesDir),
  ]);
  return manifest;
}

/** A dependency as pnpm installed it for `fromDir`, linked where the host's resolution finds it. */
async function link(name, fromDir) {
  const real = await realpath(join(fromDir, 'node_modules', name));
  const target = join(scratch, 'node_modules', name);
  await mkdir(join(target, '..'), { recursive: true });
  await symlink(real, target, 'dir');
}

before(async () => {
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  const widget = await install('@canvas-ai/widget', widgetDir, 'tsconfig.build.json', 'dist/types');
  const protocol = await install('@canvas-ai/protocol', protocolDir, 'tsconfig.build.json', 'dist');
  for (const name of Object.keys(widget.dependencies).filter((dep) => !dep.startsWith('@canvas-ai/')))
    await link(name, widgetDir);
  for (const name of Object.keys(protocol.dependencies).filter((dep) => dep !== 'zod')) await link(name, protocolDir);
  await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: 'strict-host', type: 'module' }));
  await writeFile(join(scratch, 'host.ts'), HOST_FILE);
});

describe('a host compiling against the published declarations, skipLibCheck off', () => {
  for (const [resolution, options] of Object.entries(CONFIGS)) {
    it(`type-checks under moduleResolution ${resolution}`, async () => {
      const config = join(scratch, `tsconfig.${resolution}.json`);
      const compilerOptions = { ...COMMON, ...options };
      await writeFile(config, JSON.stringify({ compilerOptions, files: ['host.ts'] }, null, 2));
      const result = await run(process.execPath, [tsc, '-p', config, '--listFilesOnly'], { cwd: scratch });
      const loaded = result.stdout.split('\n').filter((file) => /node_modules[\\/](deep-chat)[\\/]/.test(file));
      assert.deepEqual(loaded, [], "deep-chat's declarations are not part of a host's program");
      await run(process.execPath, [tsc, '-p', config], { cwd: scratch }).catch((error) => {
        assert.fail(`tsc found errors in a strict host (${resolution}):\n${error.stdout}${error.stderr}`);
      });
    });
  }
});
