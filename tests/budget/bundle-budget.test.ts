/**
 * The bundle budget: the JavaScript (gzip) that the sign-in page and the dashboard load, read from the
 * built console by route (scripts/bundle-budget.ts). BUDGET_DIST names the build (npm run budget builds one into
 * .tmp/budget-dist); without it, dist/. `npm test` holds every route to its budget. BUDGET_ROUTES (comma-separated)
 * limits the size checks to those routes; every route is measured and printed all the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatReports, KB, measureRoutes, readManifest, ROUTES, type RouteReport } from '../../scripts/bundle-budget.js';

const dist = path.resolve(process.env.BUDGET_DIST ?? 'dist');
const only = process.env.BUDGET_ROUTES?.split(',')
  .map((r) => r.trim())
  .filter(Boolean);
for (const r of only ?? []) if (!(r in ROUTES)) throw new Error(`BUDGET_ROUTES names ${r}, which scripts/bundle-budget.ts has no budget for`);
const CHECKED = Object.entries(ROUTES).filter(([route]) => !only || only.includes(route));
/** The world map's module: only the heatmap page may load it. */
const WORLD_MAP = 'src/custom/dashboard/heatmap-map.tsx';

describe(`bundle budget of ${path.relative(process.cwd(), dist) || dist}`, () => {
  let reports: RouteReport[];
  beforeAll(() => {
    reports = measureRoutes(dist);
    console.log(`\n${formatReports(reports)}\n`);
  });

  it.each(CHECKED)('the JavaScript for %s is within its budget (gzip)', (route, def) => {
    const r = reports.find((x) => x.route === route)!;
    const largest = [...r.files]
      .sort((a, b) => b.gzip - a.gzip)
      .slice(0, 5)
      .map((f) => `${f.file} ${(f.gzip / KB).toFixed(1)} KB`);
    expect(
      Math.round((r.js.gzip / KB) * 10) / 10,
      `${route}: ${(r.js.gzip / KB).toFixed(1)} KB gzip of JavaScript against ${def.budgetKb} KB; largest: ${largest.join(', ')}`,
    ).toBeLessThanOrEqual(def.budgetKb);
  });

  it('fonts and the world map are preloaded only where used: neither the sign-in page nor the dashboard loads them', () => {
    const manifest = readManifest(dist);
    const map = manifest[WORLD_MAP]?.file;
    expect(map, `${WORLD_MAP} is a lazy chunk of its own`).toBeTruthy();
    for (const r of reports) {
      expect(
        r.files.map((f) => f.file),
        r.route,
      ).not.toContain(map);
      expect(
        r.files.filter((f) => /\.(?:woff2?|ttf|otf)$/.test(f.file)),
        r.route,
      ).toEqual([]);
    }
    const html = fs.readFileSync(path.join(dist, 'index.html'), 'utf8');
    expect(html).not.toMatch(/rel="?preload"?[^>]*as="?font/);
    expect(html).not.toContain(map);
  });
});
