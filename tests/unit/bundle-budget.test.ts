/** The bundle budget's reading of Vite's manifest (scripts/bundle-budget.ts): what a route loads. */
import { describe, expect, it } from 'vitest';
import { routeFiles, type Manifest } from '../../scripts/bundle-budget.js';

const manifest: Manifest = {
  'index.html': { file: 'assets/index-1.js', isEntry: true, imports: ['_shared-2.js', '_ui-3.js'], dynamicImports: ['src/page.tsx', 'src/map.tsx'], css: ['assets/index-1.css'] },
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
    expect(routeFiles(manifest, ['src/page.tsx'])).toEqual(['assets/index-1.js', 'assets/index-1.css', 'assets/shared-2.js', 'assets/ui-3.js', 'assets/page-5.js', 'assets/table-4.js', 'assets/table-4.css']);
  });

  it('fails loudly when a route names a module that is not a lazy chunk of the build', () => {
    expect(() => routeFiles(manifest, ['src/moved.tsx'])).toThrow(/src\/moved\.tsx/);
    expect(() => routeFiles(manifest, ['_table-4.js'])).toThrow(/not a lazy chunk/);
  });
});
