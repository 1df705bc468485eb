/** The bundle budget's reading of Vite's manifest (scripts/bundle-budget.ts): what a route loads. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAYJS_CHUNKS, LANGUAGE_CHUNKS, measureRoutes, routeFiles, type Manifest } from '../../scripts/bundle-budget.js';

const manifest: Manifest = {
  'index.html': {
    file: 'assets/index-1.js',
    isEntry: true,
    imports: ['_shared-2.js', '_ui-3.js'],
    dynamicImports: ['src/page.tsx', 'src/map.tsx'],
    css: ['assets/index-1.css'],
  },
  '_shared-2.js': { file: 'assets/shared-2.js' },
  '_ui-3.js': { file: 'assets/ui-3.js', imports: ['_shared-2.js'] },
  '_table-4.js': { file: 'assets/table-4.js', imports: ['_ui-3.js'], css: ['assets/table-4.css'] },
  'src/page.tsx': { file: 'assets/page-5.js', isDynamicEntry: true, imports: ['_table-4.js', '_shared-2.js'], dynamicImports: ['src/map.tsx'] },
  'src/map.tsx': { file: 'assets/map-6.js', isDynamicEntry: true, imports: ['_shared-2.js'] },
};

describe('routeFiles', () => {
  it('the entry and its static imports, each once, with their CSS; lazy imports are not followed', () => {
    expect(routeFiles(manifest, [])).toEqual(['assets/index-1.js', 'assets/index-1.css', 'assets/shared-2.js', 'assets/ui-3.js']);
  });

  it('then each lazy chunk the route renders, with the static imports the entry did not already load', () => {
    expect(routeFiles(manifest, ['src/page.tsx'])).toEqual([
      'assets/index-1.js',
      'assets/index-1.css',
      'assets/shared-2.js',
      'assets/ui-3.js',
      'assets/page-5.js',
      'assets/table-4.js',
      'assets/table-4.css',
    ]);
  });

  it('fails loudly when a route names a module that is not a lazy chunk of the build', () => {
    expect(() => routeFiles(manifest, ['src/moved.tsx'])).toThrow(/src\/moved\.tsx/);
    expect(() => routeFiles(manifest, ['_table-4.js'])).toThrow(/not a lazy chunk/);
  });
});

describe('measureRoutes', () => {
  it('measures a route that loads a language in each language and keeps the heaviest; dayjs only for a signed-in route', () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'budget-'));
    const write = (file: string, bytes: number) => {
      fs.mkdirSync(path.dirname(path.join(dist, file)), { recursive: true });
      // Random bytes do not compress: the gzip size follows the raw size.
      fs.writeFileSync(path.join(dist, file), crypto.randomBytes(bytes));
    };
    const files: Manifest = {
      'index.html': { file: 'assets/index.js', isEntry: true },
      'src/page.tsx': { file: 'assets/page.js', isDynamicEntry: true },
    };
    write('index.html', 100);
    write('assets/index.js', 1000);
    write('assets/page.js', 500);
    const sizes: Record<string, number> = { 'en-US': 300, 'zh-CN': 900, 'zh-TW': 600, 'es-ES': 400 };
    for (const [lang, chunks] of Object.entries(LANGUAGE_CHUNKS)) {
      for (const key of [...chunks, ...DAYJS_CHUNKS[lang]]) {
        const file = `assets/${key.replace(/\W/g, '_')}.js`;
        files[key] = { file, isDynamicEntry: true };
        // es-ES's dayjs locale is the heaviest file of all: it counts only where the route is signed in.
        write(file, key.includes('dayjs') ? (lang === 'es-ES' ? 5000 : 10) : sizes[lang]);
      }
    }
    fs.mkdirSync(path.join(dist, '.vite'));
    fs.writeFileSync(path.join(dist, '.vite', 'manifest.json'), JSON.stringify(files));
    const [out, inside] = measureRoutes(dist, {
      out: { lazy: ['src/page.tsx'], language: true, budgetKb: 1 },
      inside: { lazy: ['src/page.tsx'], language: true, signedIn: true, budgetKb: 1 },
    });
    expect(out.language).toBe('zh-CN');
    expect(out.files.map((f) => f.file)).toContain('assets/page.js');
    expect(out.files.some((f) => f.file.includes('dayjs'))).toBe(false);
    expect(inside.language).toBe('es-ES');
    fs.rmSync(dist, { recursive: true, force: true });
  });
});
