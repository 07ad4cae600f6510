// Bundles the preload into one CommonJS file: a sandboxed preload cannot load
// other modules (only `electron` and a few built-ins), so everything it needs
// from shared/ is inlined here.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'node22',
    minify: false,
    lib: { entry: 'preload.ts', formats: ['cjs'], fileName: () => 'preload.cjs' },
    rollupOptions: { external: ['electron'] },
  },
});
