import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Resolved from this file, not the cwd, so `--config web-client/vite.config.ts` works from anywhere.
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  build: {
    outDir: fileURLToPath(new URL('../dist/web-client', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The hub serves the maps in Development only (mapDashboardEndpoints).
    sourcemap: true,
  },
  server: {
    // `npx vite --config web-client/vite.config.ts` against a hub on :8080 during development.
    proxy: {
      '/auth': 'http://127.0.0.1:8080',
      '/v1': 'http://127.0.0.1:8080',
      '/api': 'http://127.0.0.1:8080',
      '/client': { target: 'ws://127.0.0.1:8080', ws: true },
      '/socket.io': { target: 'ws://127.0.0.1:8080', ws: true },
    },
  },
});
