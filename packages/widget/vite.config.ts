// Two library builds into dist/:
//   `vite build`                   → dist/index.js + dist/define.js + dist/loop.js: ESM for bundlers, lit/deep-chat/
//                                    protocol external (loop.js and its chunk import none of lit and deep-chat);
//   `vite build --mode standalone` → dist/canvas-ai-chat.js: one self-contained module for <script type="module">;
//   `vite build --mode headless`   → dist/node/headless-cli.js: the canvas-ai-turn command for Node, its
//                                    dependencies (the protocol, zod) external as installed beside it.
// Decorators are lowered because tsconfig sets experimentalDecorators: vite 8 leaves standard (TC39) decorators in
// the output as written, which Chromium cannot parse (test/built-bundle.test.ts loads the built module to catch it).
import { defineConfig } from 'vite';

const external = [/^lit($|\/)/, /^@lit\//, /^deep-chat($|\/)/, /^@canvas-ai\/protocol($|\/)/];

export default defineConfig(({ mode }) => {
  if (mode === 'headless') {
    return {
      build: {
        ssr: 'src/node/headless-cli.ts',
        target: 'node20',
        outDir: 'dist/node',
        emptyOutDir: false,
        sourcemap: true,
        // A linked workspace package would be bundled into an SSR build: the protocol is installed beside it.
        rolldownOptions: { external, output: { entryFileNames: 'headless-cli.js' } },
      },
    };
  }
  const standalone = mode === 'standalone';
  return {
    // Libraries that read process.env.NODE_ENV get it defined: browsers have no `process`.
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      target: 'es2022',
      outDir: 'dist',
      emptyOutDir: !standalone,
      sourcemap: true,
      minify: standalone,
      lib: {
        entry: standalone
          ? { 'canvas-ai-chat': 'src/standalone.ts' }
          : { index: 'src/index.ts', define: 'src/define.ts', loop: 'src/loop.ts' },
        formats: ['es'],
      },
      // The self-contained build needs no tree-shaking override: the protocol declares "sideEffects": false.
      rolldownOptions: standalone ? {} : { external },
    },
  };
});
