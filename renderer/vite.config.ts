// Builds the renderer into renderer/dist: relative asset paths, so the same build
// loads from http://127.0.0.1:PORT/ (browser mode) and app://solardesk/ (desktop).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // three.js alone is ~600 kB; one local bundle loads from disk, not a network.
    chunkSizeWarningLimit: 2000,
  },
});
