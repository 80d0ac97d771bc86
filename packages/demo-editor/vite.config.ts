import { defineConfig } from 'vite';

// The demo is served by the reference server (same origin, so the real CSRF token flow applies).
// `vite` alone serves it too, proxying the API to a server on 8787.
export default defineConfig({
  define: { 'process.env.NODE_ENV': '"production"' },
  // deep-chat alone is ~600 kB minified; one chunk is right for a demo page, so the default 500 kB warning is noise.
  // Two pages: the demo (index.html) and the same demo with the server mocked in the page (mock.html).
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1000,
    rolldownOptions: { input: { main: 'index.html', mock: 'mock.html' } },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8787', '/healthz': 'http://127.0.0.1:8787' } },
});
