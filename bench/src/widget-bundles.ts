import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type InlineConfig } from 'vite';
import type { BundleSize } from './results.js';

/** The widget package; its own vite.config.ts drives every build here. */
const WIDGET_DIR = fileURLToPath(new URL('../../packages/widget/', import.meta.url));

/**
 * Builds the widget with its own vite config into a scratch folder (never its dist/, which its tests use) and
 * weighs each build, minified, gzipped at level 9:
 * - `widget-own-code`: the widget with lit and deep-chat external (the protocol's checkers inside, no zod):
 *   what the widget adds to a page that already has lit and deep-chat. The 15 KB target of bench/README.md is judged on it.
 * - `widget-zod-external`: the same with zod external too; equal to the line above while the browser holds no zod.
 * - `widget-esm`: its `vite build` (what a bundler user gets), minified; the protocol is external too.
 * - `self-contained`: its `vite build --mode standalone`, the one file for a plain <script type="module">.
 * - `deep-chat`: deep-chat's own ESM file (already minified), for reference.
 */
export async function benchWidgetBundles(log: (line: string) => void): Promise<BundleSize[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'canvas-ai-bench-widget-'));
  try {
    const external = [/^lit($|\/)/, /^@lit\//, /^deep-chat($|\/)/];
    const ownCode = await buildAndWeigh(
      'widget-own-code',
      'the widget with lit and deep-chat external (the protocol checkers inside, no zod)',
      {
        mode: 'standalone',
        build: { outDir: join(scratch, 'own'), rolldownOptions: { external } },
      },
    );
    const zodExternal = await buildAndWeigh(
      'widget-zod-external',
      'the same with zod external too: the widget and the protocol schemas alone',
      {
        mode: 'standalone',
        build: { outDir: join(scratch, 'own-zod'), rolldownOptions: { external: [...external, /^zod($|\/)/] } },
      },
    );
    const esm = await buildAndWeigh(
      'widget-esm',
      '`vite build` (ESM for bundlers: lit, deep-chat and the protocol external), minified',
      {
        mode: 'production',
        build: { outDir: join(scratch, 'esm'), minify: true },
      },
    );
    const standalone = await buildAndWeigh(
      'self-contained',
      '`vite build --mode standalone`: one module with lit, deep-chat and the protocol',
      {
        mode: 'standalone',
        build: { outDir: join(scratch, 'standalone') },
      },
    );
    const deepChatFile = createRequire(join(WIDGET_DIR, 'package.json')).resolve('deep-chat/dist/deepChat.js');
    const deepChat = weigh('deep-chat', 'deep-chat/dist/deepChat.js alone (already minified), for reference', [
      { name: 'deepChat.js', bytes: await readFile(deepChatFile) },
    ]);
    const bundles = [ownCode, zodExternal, esm, standalone, deepChat];
    for (const bundle of bundles)
      log(`bundle ${bundle.name}: ${bundle.min_bytes} B min, ${bundle.gzip_bytes} B min+gzip`);
    return bundles;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Runs one build of the widget's own config with `overrides` merged in, and weighs the JavaScript it wrote. */
async function buildAndWeigh(name: string, description: string, overrides: InlineConfig): Promise<BundleSize> {
  const outDir = overrides.build!.outDir!;
  await build({
    ...overrides,
    root: WIDGET_DIR,
    configFile: join(WIDGET_DIR, 'vite.config.ts'),
    logLevel: 'silent',
    build: { ...overrides.build, emptyOutDir: true, sourcemap: false },
  });
  const files = (await readdir(outDir)).filter((file) => file.endsWith('.js')).sort();
  return weigh(
    name,
    description,
    await Promise.all(files.map(async (file) => ({ name: file, bytes: await readFile(join(outDir, file)) }))),
  );
}

function weigh(name: string, description: string, files: Array<{ name: string; bytes: Buffer }>): BundleSize {
  return {
    name,
    description,
    files: files.map((file) => file.name),
    min_bytes: files.reduce((sum, file) => sum + file.bytes.byteLength, 0),
    // Each file gzipped on its own, as a server would send it.
    gzip_bytes: files.reduce((sum, file) => sum + gzipSync(file.bytes, { level: 9 }).byteLength, 0),
  };
}
