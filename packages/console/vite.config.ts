import { defineConfig } from 'vitest/config';

// Static assets served by `sluice-chain serve`: no CDN, no runtime fetches but the API's own.
export default defineConfig({
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    target: 'es2022',
    emptyOutDir: true,
    sourcemap: false,
  },
  test: {
    include: ['test/**/*.test.ts'],
  },
});
