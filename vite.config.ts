import { defineConfig } from 'vite';

// The renderer: one React app, built into out/renderer and served by `corral serve` at `/`
// (and loaded by the desktop app). JSX is compiled by Vite's own transformer.
export default defineConfig({
  root: 'renderer',
  base: './',
  build: {
    outDir: '../out/renderer',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 2048,
  },
  oxc: { jsx: { runtime: 'automatic' } },
});
