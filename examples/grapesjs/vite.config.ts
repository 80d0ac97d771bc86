import { defineConfig } from 'vite';

// Served by the reference server (`pnpm start`, same origin); `vite` alone proxies the API to one on 8787.
export default defineConfig({
  define: { 'process.env.NODE_ENV': '"production"' },
  // GrapesJS and deep-chat are large; one chunk is right for an example page.
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 2000 },
  server: { proxy: { '/api': 'http://127.0.0.1:8787' } },
});
