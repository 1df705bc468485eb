/**
 * Layout shift: a cold, signed-in load of the dashboard and of the SIM list moves what is already
 * drawn by no more than 0.02 (the sum of Chromium's layout-shift scores without recent input). Not a timing figure:
 * the score counts the area that moved, and every card, chart and table keeps its place while its data loads.
 * bench/cls.ts measures the same over more screens and links (docs/decisions.md).
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { signIn } from './helpers';

/** Every layout shift without recent input, from before the page's own scripts run. */
const OBSERVE = `
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shifts.push(e.value);
  }).observe({ type: 'layout-shift', buffered: true });
`;

/** The layout shift so far, once two more frames were drawn (shifts are reported as frames are painted). */
const shiftScore = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<number>((resolve) =>
        requestAnimationFrame(() => requestAnimationFrame(() => resolve((window as unknown as { __shifts: number[] }).__shifts.reduce((a, v) => a + v, 0)))),
      ),
  );

const PAGES = [
  {
    name: 'the dashboard',
    url: '/en-US/dashboard/analysis',
    drawn: async (page: Page) => {
      for (const chart of ['Usage statistics', 'SIMs by lifecycle state', 'SMS usage'])
        await expect(page.getByRole('img', { name: chart }).locator('svg')).toBeVisible();
      await expect(page.getByRole('link', { name: /^89\d{17,18}$/ })).toHaveCount(10);
      await expect(page.getByText(/^Figures as of /)).toBeVisible();
    },
  },
  {
    name: 'the SIM list',
    url: '/en-US/sim/simCard',
    drawn: async (page: Page) => {
      await expect(page.getByText(/^[\d,]+ results$/)).toBeVisible();
      await expect(page.getByRole('row').filter({ has: page.getByRole('cell') })).toHaveCount(20);
    },
  },
];

for (const { name, url, drawn } of PAGES) {
  test(`${name} loads cold without moving what it has drawn (layout shift <= 0.02)`, async ({ browser, page, baseURL }) => {
    await signIn(page, 'admin@demo.example.com');
    const state = await page.context().storageState();
    // A new context: an empty cache, the same session; a desktop screen as Lighthouse's.
    const cold = await browser.newContext({ baseURL, storageState: state, viewport: { width: 1350, height: 940 } });
    try {
      const fresh = await cold.newPage();
      await fresh.addInitScript(OBSERVE);
      await fresh.goto(url);
      await drawn(fresh);
      expect(await shiftScore(fresh)).toBeLessThanOrEqual(0.02);
    } finally {
      await cold.close();
    }
  });
}
