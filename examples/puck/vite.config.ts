import { defineConfig } from 'vite';

// Served by the reference server (`pnpm start`, same origin); `vite` alone proxies the API to one on 8787.
// `vite build --mode development` builds the same pages with React's development build into dist/dev/ (served at
// /dev/): there StrictMode mounts every component, the chat included, twice, as a React team's dev server does.
export default defineConfig(({ mode }) => ({
  base: mode === 'development' ? '/dev/' : '/',
  define: { 'process.env.NODE_ENV': JSON.stringify(mode === 'development' ? 'development' : 'production') },
  build: {
    outDir: mode === 'development' ? 'dist/dev' : 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Puck and React are large; one chunk is right for an example page.
    chunkSizeWarningLimit: mode === 'development' ? 8000 : 2000,
    // Two pages: the example (index.html) and the same page with the server mocked in it (mock.html).
    rolldownOptions: {
      input: { main: 'index.html', mock: 'mock.html' },
      // Puck's dependencies start with "use client" (React Server Components), which means nothing in a page bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8787' } },
}));
