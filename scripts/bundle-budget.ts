/**
 * What the browser downloads for a route of the built console, read from Vite's manifest (build.manifest), and the
 * routes' budgets. A route loads index.html, the entry chunk and its static imports (the modulepreloads), then
 * the lazy chunks it renders, each with its own static imports. Sizes are measured here (gzip -9 and brotli 11, as
 * scripts/precompress.ts writes them), so the numbers do not depend on the .gz/.br copies being present.
 * `tsx scripts/bundle-budget.ts [dist]` prints the table; tests/budget/ holds the failing check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

/** KB here are KiB (1,024 bytes), as Lighthouse counts them. */
export const KB = 1024;

export interface RouteDef {
  /** The lazy modules (source paths, as the manifest keys them) the route renders on a cold load, in order. */
  lazy: string[];
  /** The route also loads one language's chunks (LANGUAGE_CHUNKS): it is measured in each, and its heaviest counts. */
  language?: boolean;
  /** A signed-in route: dayjs's locale of the language too (DAYJS_CHUNKS). */
  signedIn?: boolean;
  /** The gzip KB of JavaScript the route may load. */
  budgetKb: number;
}

/**
 * The routes with a budget. Sign-in is its route module; the dashboard renders the signed-in routes' providers
 * (Refine), the shell and the analysis page, whose charts are its own SVG (no ECharts), at once. Both load the language's chunks.
 */
export const ROUTES: Record<string, RouteDef> = {
  'sign-in': { lazy: ['src/pages/login/login-page.tsx'], language: true, budgetKb: 250 },
  dashboard: {
    lazy: ['src/signed-in.tsx', 'src/shell/shell-layout.tsx', 'src/custom/dashboard/analysis-page.tsx'],
    language: true,
    signedIn: true,
    budgetKb: 600,
  },
};

/**
 * What src/i18n.ts fetches for a language before the first page: its console and shared messages and antd's locale
 * (English's is built in). dayjs's locale comes with the signed-in routes: the dashboard's list adds it.
 */
export const LANGUAGE_CHUNKS: Record<string, string[]> = {
  'en-US': ['src/locales/en-US.json', 'common/locales/en-US.json'],
  'zh-CN': ['src/locales/zh-CN.json', 'common/locales/zh-CN.json', 'node_modules/antd/es/locale/zh_CN.js'],
  'zh-TW': ['src/locales/zh-TW.json', 'common/locales/zh-TW.json', 'node_modules/antd/es/locale/zh_TW.js'],
  'es-ES': ['src/locales/es-ES.json', 'common/locales/es-ES.json', 'node_modules/antd/es/locale/es_ES.js'],
};
/** dayjs's locale module of each language but English, which the signed-in routes load (src/i18n.ts). */
export const DAYJS_CHUNKS: Record<string, string[]> = {
  'en-US': [],
  'zh-CN': ['node_modules/dayjs/locale/zh-cn.js'],
  'zh-TW': ['node_modules/dayjs/locale/zh-tw.js'],
  'es-ES': ['node_modules/dayjs/locale/es.js'],
};

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
  assets?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

export interface Sizes {
  raw: number;
  gzip: number;
  brotli: number;
}
export interface FileSizes extends Sizes {
  file: string;
}
export interface RouteReport {
  route: string;
  /** For a route that loads a language's chunks: the language measured (the heaviest). */
  language?: string;
  budgetKb: number;
  js: Sizes;
  css: Sizes;
  html: Sizes;
  /** Everything above: html + css + js. */
  total: Sizes;
  files: FileSizes[];
}

export function readManifest(dist: string): Manifest {
  const file = path.join(dist, '.vite', 'manifest.json');
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: build the console first (build.manifest is on in vite.config.ts)`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
}

/** The files (relative to dist) a route loads: the entry's static import graph, then each lazy chunk's. */
export function routeFiles(manifest: Manifest, lazy: string[]): string[] {
  const seen = new Set<string>();
  const files: string[] = [];
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the build's manifest: a route of scripts/bundle-budget.ts names a module that moved`);
    files.push(chunk.file);
    for (const css of chunk.css ?? []) if (!files.includes(css)) files.push(css);
    for (const dep of chunk.imports ?? []) visit(dep);
  };
  const entry = Object.keys(manifest).find((k) => manifest[k].isEntry && k.endsWith('index.html'));
  if (!entry) throw new Error('the manifest has no index.html entry');
  visit(entry);
  for (const key of lazy) {
    if (!manifest[key]?.isDynamicEntry)
      throw new Error(`${key} is not a lazy chunk of the build: a route of scripts/bundle-budget.ts names a module that moved`);
    visit(key);
  }
  return files;
}

const cache = new Map<string, FileSizes>();
export function sizesOf(dist: string, file: string): FileSizes {
  const full = path.join(dist, file);
  const hit = cache.get(full);
  if (hit) return hit;
  const bytes = fs.readFileSync(full);
  const sizes = {
    file,
    raw: bytes.length,
    gzip: zlib.gzipSync(bytes, { level: zlib.constants.Z_BEST_COMPRESSION }).length,
    brotli: zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY } }).length,
  };
  cache.set(full, sizes);
  return sizes;
}

const add = (list: Sizes[]): Sizes =>
  list.reduce((s, x) => ({ raw: s.raw + x.raw, gzip: s.gzip + x.gzip, brotli: s.brotli + x.brotli }), { raw: 0, gzip: 0, brotli: 0 });

/** Every route's sizes in the build at dist. */
export function measureRoutes(dist: string, routes: Record<string, RouteDef> = ROUTES): RouteReport[] {
  const manifest = readManifest(dist);
  const html = sizesOf(dist, 'index.html');
  const measure = (route: string, def: RouteDef, language?: string): RouteReport => {
    const files = routeFiles(manifest, [
      ...def.lazy,
      ...(language ? LANGUAGE_CHUNKS[language] : []),
      ...(language && def.signedIn ? DAYJS_CHUNKS[language] : []),
    ]).map((f) => sizesOf(dist, f));
    const js = add(files.filter((f) => /\.m?js$/.test(f.file)));
    const css = add(files.filter((f) => f.file.endsWith('.css')));
    return { route, ...(language ? { language } : {}), budgetKb: def.budgetKb, js, css, html, total: add([js, css, html]), files: [html, ...files] };
  };
  return Object.entries(routes).map(([route, def]) => {
    if (!def.language) return measure(route, def);
    // The heaviest language: a budget that holds in every language.
    return Object.keys(LANGUAGE_CHUNKS)
      .map((language) => measure(route, def, language))
      .reduce((a, b) => (b.js.gzip > a.js.gzip ? b : a));
  });
}

const kb = (n: number) => `${(n / KB).toFixed(1)} KB`;

/** A plain-text table of the reports. */
export function formatReports(reports: RouteReport[]): string {
  const lines = ['route              | JS raw     | JS gzip    | JS brotli  | budget (gzip) | all files gzip | all files brotli | files'];
  for (const r of reports) {
    const over = r.js.gzip > r.budgetKb * KB ? ` OVER by ${kb(r.js.gzip - r.budgetKb * KB)}` : ' ok';
    lines.push(
      `${`${r.route}${r.language ? ` (${r.language})` : ''}`.padEnd(18)} | ${kb(r.js.raw).padEnd(10)} | ${kb(r.js.gzip).padEnd(10)} | ${kb(r.js.brotli).padEnd(10)} | ${`${r.budgetKb} KB${over}`.padEnd(13)} | ${kb(r.total.gzip).padEnd(14)} | ${kb(r.total.brotli).padEnd(16)} | ${r.files.length}`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dist = path.resolve(process.argv[2] ?? 'dist');
  const reports = measureRoutes(dist);
  console.log(formatReports(reports));
  if (process.argv.includes('--files')) {
    for (const r of reports) {
      console.log(`\n${r.route}${r.language ? ` (${r.language}, the heaviest language)` : ''}:`);
      for (const f of [...r.files].sort((a, b) => b.gzip - a.gzip))
        console.log(`  ${f.file.padEnd(48)} ${kb(f.raw).padStart(10)} raw ${kb(f.gzip).padStart(10)} gzip ${kb(f.brotli).padStart(10)} br`);
    }
  }
}
