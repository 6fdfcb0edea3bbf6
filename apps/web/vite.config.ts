import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { prerenderCreateWorkloadPage } from './vite-prerender.js';

/** Where `pnpm dev` sends `/trpc` (the BFF started with `npm start`, or BFF_URL). */
const bffUrl = process.env.BFF_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [
    react(),
    // Compressed once at build time (brotli at its best, gzip for the rest), served as they are
    // by the BFF: compressing the form's scripts per request took 60–200 ms on this machine.
    compression({ algorithms: ['brotliCompress', 'gzip'], threshold: 1024 }),
    // /workloads/new as HTML with the form in it (the BFF sends it for that route).
    prerenderCreateWorkloadPage(),
  ],
  // The BFF serves the build with a strict CSP (script-src 'self'): no inline module preload polyfill.
  build: {
    modulePreload: { polyfill: false },
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      treeshake: {
        // @mgpu/shared is pure by design (ARCHITECTURE.md) but does not say so in its package.json:
        // without this, its lint and YAML code land in the form's first bundle.
        moduleSideEffects: (id) => !/[\\/]packages[\\/]shared[\\/]/.test(id),
      },
    },
  },
  server: { proxy: { '/trpc': { target: bffUrl, changeOrigin: false } } },
  preview: { proxy: { '/trpc': { target: bffUrl, changeOrigin: false } } },
});
