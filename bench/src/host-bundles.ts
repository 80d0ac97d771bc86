import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build as esbuild } from 'esbuild';
import { rolldown } from 'rolldown';
import type { HostBundleSize } from './results.js';

/** The bundlers a host builds its editor with; the widget must tree-shake in both. */
export const HOST_BUNDLERS = ['rolldown', 'esbuild'] as const;
export type HostBundler = (typeof HOST_BUNDLERS)[number];

/**
 * What a host imports: the framework-free loop alone, the loop with its undo recording, the root entry's element class
 * (registered by the host itself; no side effect, so no deep-chat), or `/define`, the element registered (and with it
 * deep-chat and the loop).
 */
export const HOST_ENTRIES = {
  loop: "import { startTurn } from '@canvas-ai/widget/loop';\nglobalThis.canvasAiStartTurn = startTurn;\n",
  'loop-undo':
    "import { startTurn, undoRecording } from '@canvas-ai/widget/loop';\nglobalThis.canvasAiStartTurn = [startTurn, undoRecording];\n",
  root: "import { CanvasAiChat } from '@canvas-ai/widget';\nglobalThis.CanvasAiChat = CanvasAiChat;\n",
  element: "import '@canvas-ai/widget/define';\n",
} as const;
type HostEntry = keyof typeof HOST_ENTRIES;

/**
 * Whether the host's app already has lit and deep-chat (`external`: the bundle leaves them to the app, which ships
 * them anyway) or has neither (`bundled`: every byte the widget needs is in the bundle).
 */
const HOST_DEPENDENCIES = ['external', 'bundled'] as const;
export type HostDependencies = (typeof HOST_DEPENDENCIES)[number];

/** A host's own bundle of the widget, lit and deep-chat external (the host ships them anyway) or bundled. */
export interface HostBundle {
  min_bytes: number;
  gzip_bytes: number;
  /** Every module the bundle holds code from, as a path relative to the repository (`node_modules/.pnpm/…`). */
  modules: string[];
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside bench/, so the entry resolves @canvas-ai/widget the way a host's own source resolves its dependencies.
const SCRATCH_PARENT = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const EXTERNAL = [/^lit($|\/)/, /^@lit\//, /^deep-chat($|\/)/];
const ESBUILD_EXTERNAL = ['lit', 'lit/*', '@lit/*', 'deep-chat', 'deep-chat/*'];
// Browsers have no `process`; every host bundler config defines this (libraries read it).
const DEFINE = { 'process.env.NODE_ENV': '"production"' };

/**
 * Bundles `source` (a host's entry module) with the host's own bundler, minified, for the browser, resolving the
 * packages through their `exports` and `sideEffects` exactly as a host's build does (no override of ours), and
 * weighs it. lit and deep-chat stay external unless `dependencies` is `bundled`.
 */
export async function bundleLikeAHost(
  bundler: HostBundler,
  source: string,
  dependencies: HostDependencies = 'external',
): Promise<HostBundle> {
  await mkdir(SCRATCH_PARENT, { recursive: true });
  const scratch = await mkdtemp(join(SCRATCH_PARENT, 'host-bundle-'));
  try {
    const entryFile = join(scratch, 'entry.js');
    await writeFile(entryFile, source);
    const { code, modules } =
      bundler === 'esbuild'
        ? await bundleWithEsbuild(entryFile, dependencies === 'external' ? ESBUILD_EXTERNAL : [])
        : await bundleWithRolldown(entryFile, dependencies === 'external' ? EXTERNAL : []);
    const bytes = Buffer.from(code);
    return {
      min_bytes: bytes.byteLength,
      gzip_bytes: gzipSync(bytes, { level: 9 }).byteLength,
      modules: modules
        .filter((file) => file !== entryFile)
        .map((file) => relative(REPO_ROOT, file).split(sep).join('/'))
        .sort(),
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function bundleWithEsbuild(entryFile: string, external: string[]): Promise<{ code: string; modules: string[] }> {
  const result = await esbuild({
    entryPoints: [entryFile],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    external,
    define: DEFINE,
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  // Only modules that left bytes in the output: esbuild lists a module it tree-shook away with 0 bytes.
  const modules = Object.entries(output.inputs)
    .filter(([, input]) => input.bytesInOutput > 0)
    .map(([path]) => join(process.cwd(), path));
  return { code: result.outputFiles[0]!.text, modules };
}

async function bundleWithRolldown(entryFile: string, external: RegExp[]): Promise<{ code: string; modules: string[] }> {
  const bundle = await rolldown({
    input: entryFile,
    platform: 'browser',
    external,
    transform: { define: DEFINE },
    logLevel: 'silent',
  });
  try {
    const { output } = await bundle.generate({ format: 'es', minify: true });
    const chunks = output.filter((item) => item.type === 'chunk');
    return {
      code: chunks.map((chunk) => chunk.code).join('\n'),
      // `modules` holds only what survived tree-shaking, with the bytes each one rendered.
      modules: chunks.flatMap((chunk) =>
        Object.entries(chunk.modules)
          .filter(([, module]) => module.renderedLength > 0)
          .map(([id]) => id),
      ),
    };
  } finally {
    await bundle.close();
  }
}

/** Modules a host bundle of the widget must never hold: server-only code, and weight a browser never needs. */
const FORBIDDEN_IN_HOST_BUNDLE: ReadonlyArray<{ what: string; pattern: RegExp }> = [
  { what: 'yaml (only the server parses tool inputs)', pattern: /(^|\/)node_modules\/\.pnpm\/yaml@/ },
  { what: 'the built-in tools', pattern: /^packages\/protocol\/src\/tools\// },
  { what: 'the request door and turn rules', pattern: /^packages\/protocol\/src\/(door|parse|turn|attachments)\// },
  { what: 'the scenario kit and fixture loading', pattern: /^packages\/protocol\/src\/(scenario|node)\// },
  { what: 'the conformance kit', pattern: /^packages\/conformance\// },
  { what: "zod's translated error messages", pattern: /\/zod\/v4\/locales\/(?!en\.js)/ },
  { what: "zod (a client checks with the protocol's generated checkers)", pattern: /(^|\/)node_modules\/\.pnpm\/zod@/ },
  { what: 'the reference server', pattern: /^packages\/reference-server\// },
];

/** The modules of `bundle` that {@link FORBIDDEN_IN_HOST_BUNDLE} rules out, each with the reason. */
export function forbiddenModules(bundle: HostBundle): string[] {
  return bundle.modules.flatMap((module) =>
    FORBIDDEN_IN_HOST_BUNDLE.filter(({ pattern }) => pattern.test(module)).map(({ what }) => `${module}: ${what}`),
  );
}

/**
 * Builds every entry with every host bundler, lit and deep-chat external and bundled, as `pnpm bench` reports them.
 * The difference between the two is what the widget adds to an app that has neither (the figures of the widget
 * README's "What it adds to your bundle").
 */
export async function benchHostBundles(log: (line: string) => void): Promise<HostBundleSize[]> {
  const sizes: HostBundleSize[] = [];
  for (const dependencies of HOST_DEPENDENCIES) {
    for (const entry of Object.keys(HOST_ENTRIES) as HostEntry[]) {
      for (const bundler of HOST_BUNDLERS) {
        const bundle = await bundleLikeAHost(bundler, HOST_ENTRIES[entry], dependencies);
        const forbidden = forbiddenModules(bundle);
        log(
          `host bundle ${entry} with ${bundler}, lit and deep-chat ${dependencies}: ${bundle.min_bytes} B min, ${bundle.gzip_bytes} B min+gzip`,
        );
        sizes.push({
          bundler,
          entry,
          dependencies,
          min_bytes: bundle.min_bytes,
          gzip_bytes: bundle.gzip_bytes,
          modules: bundle.modules.length,
          forbidden_modules: forbidden,
        });
      }
    }
  }
  return sizes;
}
