/**
 * Layout shift of the dashboard and the SIM list on a cold, signed-in load: the sum of Chromium's
 * 'layout-shift' entries without recent input, gathered by a PerformanceObserver that Playwright injects before the
 * page's own scripts, over the load until the page is settled (its data drawn, then a second without a new shift).
 *
 *   npx vite build && npx tsx bench/cls.ts [--runs 5] [--port 8450] [--only dashboard|sims] [--sources] [--dist dist]
 *
 * Starts the real server on the built console (dist/) with a fresh demo database of its own, signs in once, then loads
 * each page in a new browser context (empty cache, the session kept) at 1280x800 and 1920x1080, unthrottled and over
 * a throttled link (10 Mbit/s, 40 ms, as Lighthouse's desktop preset simulates). Prints a table per page and size;
 * --sources also prints which elements moved. Not a test: the numbers go to docs/decisions.md.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/chromium.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const RUNS = Number(arg('runs', '5'));
const PORT = Number(arg('port', '8450'));
const ONLY = arg('only', '');
const SOURCES = process.argv.includes('--sources');
/** The built console to serve (default dist/). */
const DIST = path.resolve(arg('dist', 'dist'));
const BASE = `http://localhost:${PORT}`;
const CODE = '246810';

interface Shift {
  value: number;
  at: number;
  sources: string[];
}

/**
 * Runs in the page before its scripts: every layout shift without recent input, with what moved. A string, not a
 * function: tsx would wrap a function's inner arrows in its own helper, which the page does not have.
 */
const OBSERVE = `
  window.__shifts = [];
  const describe = (n) => {
    if (!n || !(n instanceof Element)) return n ? n.nodeName : '?';
    const cls = typeof n.className === 'string' ? n.className.split(/\\s+/).filter((c) => c && !c.startsWith('css-')).slice(0, 3).join('.') : '';
    const label = n.getAttribute('aria-label') || n.getAttribute('role') || '';
    return n.tagName.toLowerCase() + (cls ? '.' + cls : '') + (label ? '[' + label + ']' : '');
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.hadRecentInput) continue;
      window.__shifts.push({
        value: e.value,
        at: Math.round(e.startTime),
        sources: (e.sources || []).map((s) => describe(s.node) + ' y ' + Math.round(s.previousRect.y) + '->' + Math.round(s.currentRect.y) + ' h ' + Math.round(s.previousRect.height) + '->' + Math.round(s.currentRect.height)),
      });
    }
  }).observe({ type: 'layout-shift', buffered: true });
`;

interface PageDef {
  name: string;
  url: string;
  /** The page is drawn: its data arrived. */
  ready: (page: Page) => Promise<void>;
}

const PAGES: PageDef[] = [
  {
    name: 'dashboard',
    url: '/en-US/dashboard/analysis',
    ready: async (page) => {
      for (const chart of ['Usage statistics', 'SIMs by lifecycle state', 'SMS usage'])
        await page.getByRole('img', { name: chart }).locator('canvas, svg').first().waitFor();
      await page
        .getByRole('link', { name: /^89\d{17,18}$/ })
        .nth(9)
        .waitFor();
    },
  },
  {
    name: 'sims',
    url: '/en-US/sim/simCard',
    ready: async (page) => {
      await page
        .getByText(/^[\d,]+ results?$/)
        .first()
        .waitFor();
      await page
        .getByRole('row')
        .filter({ has: page.getByRole('cell') })
        .nth(5)
        .waitFor();
    },
  },
];

const SIZES = [
  // Lighthouse's desktop screen, then the two widths the console is designed for.
  { width: 1350, height: 940 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];

async function startServer(): Promise<() => Promise<void>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cls-data-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(PORT),
      DATA_DIR: dataDir,
      CONSOLE_DIR: DIST,
      VERIFICATION_CODE: CODE,
      SIMULATOR: 'off',
      LOG_LEVEL: 'warn',
      // The fixed verification code is a test contract, refused in production.
      NODE_ENV: 'test',
      JWT_SECRET: 'bench-only-secret-not-for-production-0123456789',
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_SIGN_IN_PER_MINUTE: '10000',
      RATE_LIMIT_CAPTCHA_PER_MINUTE: '10000',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  for (let i = 0; i < 240 && !exited; i++) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) break;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  if (exited) throw new Error('the server stopped before it answered');
  return async () => {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill();
    await gone;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}

/** Sign in through the page once; the session (local storage and cookies) is what every cold load starts from. */
async function session(browser: Browser): Promise<Awaited<ReturnType<BrowserContext['storageState']>>> {
  const context = await browser.newContext({ baseURL: BASE, locale: 'en-US' });
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  await page.goto('/en-US/login');
  await page.getByLabel('E-mail').fill('admin@demo.example.com');
  await page.getByLabel('Password').fill('Demo#2026');
  await page.getByLabel('Verification code').fill(CODE);
  await page.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/dashboard\/analysis$/);
  await page.getByRole('heading', { name: 'Analysis' }).waitFor();
  const state = await context.storageState();
  await context.close();
  return state;
}

async function measure(browser: Browser, state: Awaited<ReturnType<typeof session>>, def: PageDef, size: { width: number; height: number }, throttle: boolean) {
  const context = await browser.newContext({ baseURL: BASE, locale: 'en-US', viewport: size, storageState: state });
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  if (throttle) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 40, downloadThroughput: 1_250_000, uploadThroughput: 1_250_000 });
  }
  await page.addInitScript(OBSERVE);
  await page.goto(def.url);
  await def.ready(page);
  // Settled: a second without a new shift (the console keeps a live connection open, so the network is never idle).
  let count = -1;
  for (let i = 0; i < 20; i++) {
    const n = await page.evaluate(() => (window as unknown as { __shifts: Shift[] }).__shifts.length);
    if (n === count) break;
    count = n;
    await page.waitForTimeout(1000);
  }
  const shifts = await page.evaluate(() => (window as unknown as { __shifts: Shift[] }).__shifts);
  await context.close();
  return shifts;
}

const stop = await startServer();
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  const state = await session(browser);
  console.log('page      | size      | link      | CLS per run                              | median | max');
  for (const def of PAGES.filter((p) => !ONLY || p.name === ONLY)) {
    for (const size of SIZES) {
      for (const throttle of [false, true]) {
        const totals: number[] = [];
        const seen: Shift[] = [];
        for (let i = 0; i < RUNS; i++) {
          const shifts = await measure(browser, state, def, size, throttle);
          totals.push(shifts.reduce((a, s) => a + s.value, 0));
          seen.push(...shifts);
        }
        const sorted = [...totals].sort((a, b) => a - b);
        const f = (n: number) => n.toFixed(4);
        console.log(
          `${def.name.padEnd(9)} | ${`${size.width}x${size.height}`.padEnd(9)} | ${(throttle ? '10M/40ms' : 'local').padEnd(9)} | ${totals.map(f).join(' ').padEnd(40)} | ${f(sorted[Math.floor(sorted.length / 2)])} | ${f(sorted[sorted.length - 1])}`,
        );
        if (SOURCES)
          for (const s of seen.filter((x) => x.value > 0.001).slice(0, 12)) console.log(`    ${s.value.toFixed(4)} at ${s.at} ms: ${s.sources.join(' | ')}`);
      }
    }
  }
} finally {
  await browser.close();
  await stop();
}
