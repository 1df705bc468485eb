import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { analyzer } from 'vite-bundle-analyzer';
import { consoleLocales } from './scripts/console-locales.js';
import { precompress } from './scripts/precompress.js';

// ANALYZE=1 writes the bundle visualiser's report (bundle-report.html, or .json with ANALYZE=json) into the out dir.
const analyze = process.env.ANALYZE;

export default defineConfig({
  plugins: [
    react(),
    // The shared words without those only the server uses (mails, PDFs, reports): not downloaded by the console.
    consoleLocales(),
    // .br and .gz beside every built file: the server sends them by Accept-Encoding (issue 15, docs/decisions.md).
    precompress(),
    ...(analyze ? [analyzer({ analyzerMode: analyze === 'json' ? 'json' : 'static', fileName: 'bundle-report', openAnalyzer: false, summary: false })] : []),
  ],
  server: { proxy: { '/api': 'http://localhost:8080' } },
  // The manifest (.vite/manifest.json, never served) names each entry's and lazy import's chunks: the bundle budget
  // reads what a route loads from it (scripts/bundle-budget.ts).
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500, manifest: true },
});
