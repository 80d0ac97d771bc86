// A host's strict type-check of the published packages: a host file compiled against the declarations a host
// installs (the widget's and the protocol's publishConfig exports, emitted by tsc), under `moduleResolution`
// `nodenext` and `bundler`, both with `skipLibCheck: false`, so every declaration file a host loads is checked,
// lit's and deep-chat's included if any of ours leads to them. Then the framework hosts: a React 19 TSX file (tsc,
// `jsx: react-jsx`) and a Vue single-file component (vue-tsc, which checks its template: a `.ts` file's
// `h('canvas-ai-chat', props)` takes any props, so only a template shows whether the tag is typed). Each holds a
// line that must be an error, so a missing or `any` type fails the test. Runs in Node (node --test): it needs tsc.
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
const require = createRequire(join(widgetDir, 'package.json'));
const tsc = require.resolve('typescript/bin/tsc');
const vueTsc = require.resolve('vue-tsc/bin/vue-tsc.js');

/** What a host writes: the element from `/define`, the reducer as its `applyOutputs`, the loop, the events. */
const HOST_FILE = `import '@canvas-ai/widget/define';
import { applyOutputsWithResults, type CanvasDocument, type ComponentNode, type JsonValue } from '@canvas-ai/protocol';
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
// A slot child is a ComponentNode, its props read with no cast (the recursion lost, it was Record<string, unknown>).
const child: ComponentNode | undefined = page.layout.regions.content?.components[0]?.slots?.body?.[0];
const title: JsonValue | undefined = child?.props.title;
const grandchildren: ComponentNode[] | undefined = child?.slots?.columns;
// @ts-expect-error a slot child's props are Props, never a number
const notProps: number | undefined = child?.props;
console.log(title, grandchildren, notProps);
`;

/** A React 19 host: \`<canvas-ai-chat>\` in strict TSX, with its attributes, properties, a listener and a ref. */
const REACT_HOST = `import '@canvas-ai/widget/define';
import { applyOutputsWithResults, type CanvasDocument } from '@canvas-ai/protocol';
import type { CanvasAiChat, TurnEndDetail } from '@canvas-ai/widget';
import { useRef } from 'react';

export function ChatPanel({ initial }: { initial: CanvasDocument }) {
  const chat = useRef<CanvasAiChat>(null);
  let page = initial;
  return (
    <canvas-ai-chat
      ref={chat}
      id="chat"
      className="chat"
      style={{ height: 480 }}
      endpoint="/api/hop"
      token-endpoint="/api/token"
      agents-endpoint="/api/agents"
      conversation-id="c-1"
      max-hops={12}
      output-types="place_components edit_components set_page_value"
      no-stream
      storage-key="editor-chat"
      credentials="include"
      trace
      csrfToken="token"
      maxHops={12}
      retryDelays={[500, 1000]}
      outputTypes={['place_components', 'edit_components', 'set_page_value', 'remove_components']}
      noUndo={false}
      getLayout={() => page}
      applyOutputs={(outputs) => {
        const { document, results } = applyOutputsWithResults(page, outputs);
        page = document;
        return results;
      }}
      chatOptions={{ textInput: { placeholder: { text: 'Ask' } } }}
      strings={{ stop: 'Stop' }}
      oncanvas-ai-turn-end={(event) => {
        const detail: TurnEndDetail = event.detail;
        console.log(detail.status, chat.current?.running);
      }}
      oncanvas-ai-hop={(event) => console.log(event.detail.hop)}
    />
  );
}

// @ts-expect-error maxHops is a number
export const wrongType = <canvas-ai-chat maxHops="many" />;
`;

/** A Vue host: a single-file component whose template sets the element's properties, listens, and holds a ref. */
const VUE_HOST = `<script setup lang="ts">
import '@canvas-ai/widget/define';
import type {} from '@canvas-ai/widget/vue';
import { applyOutputsWithResults, type CanvasDocument, type ToolOutput } from '@canvas-ai/protocol';
import type { CanvasAiTurnEndEvent } from '@canvas-ai/widget';
import { onMounted, useTemplateRef } from 'vue';

let page: CanvasDocument = { layout: { regions: { content: { components: [] } } }, page: {} };
const getLayout = () => page;
function applyOutputs(outputs: ToolOutput[]) {
  const { document, results } = applyOutputsWithResults(page, outputs);
  page = document;
  return results;
}
function ended(event: CanvasAiTurnEndEvent): void {
  const status: 'done' | 'stopped' | 'error' = event.detail.status;
  console.log(status);
}
const chat = useTemplateRef('chat');
onMounted(() => {
  const sent: boolean = chat.value?.sendMessage('Build a page') ?? false;
  console.log(sent);
});
</script>

<template>
  <canvas-ai-chat
    ref="chat"
    endpoint="/api/hop"
    token-endpoint="/api/token"
    credentials="include"
    :max-hops="12"
    :get-layout="getLayout"
    :apply-outputs="applyOutputs"
    :output-types="['place_components', 'edit_components', 'set_page_value', 'remove_components']"
    :chat-options="{ textInput: { placeholder: { text: 'Ask' } } }"
    :no-undo="true"
    @canvas-ai-turn-end="ended"
    @canvas-ai-hop="(event) => console.log(event.detail.hop)"
  />
  <!-- @vue-expect-error max-hops is a number -->
  <canvas-ai-chat :max-hops="'many'" />
</template>
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
  // A React or Vue host has its framework's types: the optional peers the widget's /react and /vue need.
  for (const name of Object.keys(widget.peerDependencies)) await link(name, widgetDir);
  await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: 'strict-host', type: 'module' }));
  await writeFile(join(scratch, 'host.ts'), HOST_FILE);
  await writeFile(
    join(scratch, 'host-react-import.tsx'),
    `import type {} from '@canvas-ai/widget/react';\n${REACT_HOST}`,
  );
  await writeFile(join(scratch, 'host-react-types.tsx'), REACT_HOST);
  await writeFile(join(scratch, 'host-vue.vue'), VUE_HOST);
});

/** Compiles `files` under `options` with `compiler` (tsc or vue-tsc); fails the test with the compiler's report. */
async function typeCheck(name, compiler, compilerOptions, files) {
  const config = join(scratch, `tsconfig.${name}.json`);
  await writeFile(config, JSON.stringify({ compilerOptions, files }, null, 2));
  await run(process.execPath, [compiler, '-p', config], { cwd: scratch }).catch((error) => {
    assert.fail(`${name}: errors in a strict host:\n${error.stdout}${error.stderr}`);
  });
}

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

describe('framework hosts compiling <canvas-ai-chat> against the published declarations, skipLibCheck off', () => {
  it('a React 19 TSX host opting in with one import type-checks (moduleResolution bundler)', async () => {
    const options = { ...COMMON, ...CONFIGS.bundler, jsx: 'react-jsx' };
    await typeCheck('react-import', tsc, options, ['host-react-import.tsx']);
  });

  it('a React 19 TSX host opting in with a tsconfig types line type-checks (moduleResolution nodenext)', async () => {
    const options = { ...COMMON, ...CONFIGS.nodenext, jsx: 'react-jsx', types: ['@canvas-ai/widget/react'] };
    await typeCheck('react-types', tsc, options, ['host-react-types.tsx']);
  });

  it("a Vue single-file component's template type-checks under vue-tsc (moduleResolution bundler)", async () => {
    const options = { ...COMMON, ...CONFIGS.bundler, jsx: 'preserve' };
    await typeCheck('vue', vueTsc, options, ['host-vue.vue']);
  });
});
