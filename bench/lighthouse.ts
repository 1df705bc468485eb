/**
 * The Lighthouse part of the bench: the built console (dist/, not built here) served by the real server on
 * a fresh demo database, measured by Lighthouse in its desktop preset (simulated 10 Mbit/s and 40 ms, no CPU
 * slowdown) in Debian's Chromium: the sign-in page cold, and the dashboard signed in with a cold cache, each over
 * plain HTTP/1.1 and over HTTP/2 with a self-signed certificate. Beside it the
 * JavaScript each route loads, read from the build (scripts/bundle-budget.ts). `npm run bench` runs it last;
 * `BENCH_ONLY=lighthouse npm run bench` runs it alone; LIGHTHOUSE_RUNS (default 5) runs per page, the median reported.
 * Each run's full report is kept in .tmp/lighthouse/ (JSON, open it in the Lighthouse viewer).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { desktopConfig } from 'lighthouse';
import puppeteer from 'puppeteer-core';
import { formatReports, KB, measureRoutes } from '../scripts/bundle-budget.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/chromium.js';
import { saveSession, type SessionAnswer } from '../src/providers/session-store.js';
import { makeSelfSignedCertificate } from '../scripts/self-signed.js';

const CHROMIUM = process.env.CHROME_PATH ?? CHROMIUM_PATH;
// ARCHITECTURE.md's flags for Debian's Chromium, as the Playwright suite runs it.
// The certificate of the HTTP/2 runs is made here and self-signed: Chromium is told to take it.
const FLAGS = ['--ignore-certificate-errors', ...CHROMIUM_ARGS];
const CODE = '246810';
const ADMIN = { username: 'admin@demo.example.com', password: 'Demo#2026', verificationCode: CODE, agreeTerms: true };
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 5);
const REPORTS = '.tmp/lighthouse';
const HEAD = '## Lighthouse';

/** The Lighthouse section of an earlier results.md ('' when it has none), and the file without it. */
export function lighthouseOf(md: string): string {
  const at = md.indexOf(`\n${HEAD}\n`);
  if (at < 0) return '';
  const next = md.indexOf('\n## ', at + HEAD.length + 2);
  return md.slice(at, next < 0 ? undefined : next).replace(/\n*$/, '\n');
}
export const withoutLighthouse = (md: string): string => md.replace(lighthouseOf(md).replace(/\n$/, ''), '');

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

/** A request to the bench's own server, which may speak TLS with the certificate made above (trusted by its CA file). */
function call(url: string, ca: Buffer | undefined, init: { method?: string; body?: string } = {}): Promise<{ ok: boolean; status: number; text: string }> {
  if (!ca)
    return fetch(url, { method: init.method, body: init.body, headers: init.body ? { 'content-type': 'application/json' } : {} }).then(async (r) => ({
      ok: r.ok,
      status: r.status,
      text: await r.text(),
    }));
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: init.method ?? 'GET', ca, headers: init.body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ ok: (res.statusCode ?? 0) < 300, status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

interface BenchServer {
  base: string;
  ca?: Buffer;
  stop: () => Promise<void>;
}

/**
 * `tsx server/main.ts` on a fresh embedded database with the demo data, serving dist/; resolves once it answers. With
 * tls it is given a certificate (TLS_CERT_FILE, TLS_KEY_FILE) and speaks HTTP/2 to Chromium, as a deployment does.
 */
async function startServer(tls: boolean): Promise<BenchServer> {
  if (!fs.existsSync('dist/index.html')) throw new Error('dist/ has no built console: run `npx vite build` first (the Lighthouse bench builds nothing)');
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-lighthouse-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    VERIFICATION_CODE: CODE,
    SIMULATOR: 'off',
    LOG_LEVEL: 'warn',
    CONSOLE_DIR: 'dist',
  };
  let ca: Buffer | undefined;
  if (tls) {
    const { cert, key } = makeSelfSignedCertificate(dataDir);
    env.TLS_CERT_FILE = cert;
    env.TLS_KEY_FILE = key;
    ca = fs.readFileSync(cert);
  }
  delete env.DATABASE_URL;
  delete env.NODE_ENV;
  const child: ChildProcess = spawn(path.resolve('node_modules/.bin/tsx'), ['server/main.ts'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const base = `${tls ? 'https' : 'http'}://localhost:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} before answering`);
    try {
      if ((await call(`${base}/api/health`, ca)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600) {
      child.kill('SIGTERM');
      throw new Error('the server did not answer /api/health within 120 s');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    ca,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** What the console keeps in localStorage after signing in: the API's answer through its own saveSession. */
async function signedInStorage(server: BenchServer): Promise<Record<string, string>> {
  const res = await call(`${server.base}/api/identity/sso/signin/direct/cube/offline-access`, server.ca, { method: 'POST', body: JSON.stringify(ADMIN) });
  if (!res.ok) throw new Error(`sign-in answered ${res.status}: ${res.text}`);
  const session = (JSON.parse(res.text) as { data: SessionAnswer }).data;
  const kept: Record<string, string> = {};
  const g = globalThis as { localStorage?: unknown };
  const before = g.localStorage;
  g.localStorage = {
    getItem: (k: string) => kept[k] ?? null,
    setItem: (k: string, v: string) => void (kept[k] = v),
    removeItem: (k: string) => void delete kept[k],
  };
  try {
    saveSession(session);
  } finally {
    g.localStorage = before;
  }
  return kept;
}

export interface PageResult {
  page: string;
  /** The protocol the page's files came over: http/1.1 (plain, as `npm start` serves) or h2 (with a certificate). */
  protocol: string;
  url: string;
  score: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  /** JavaScript transferred (bytes, as sent: compressed). */
  js: number;
  /** Every request's transfer (bytes). */
  total: number;
  runs: number[];
}

type Lhr = NonNullable<Awaited<ReturnType<typeof lighthouse>>>['lhr'];

function resultOf(page: string, url: string, lhr: Lhr): Omit<PageResult, 'runs'> {
  const requests = (lhr.audits['network-requests']?.details as { items?: Array<{ protocol?: string; resourceType?: string }> } | undefined)?.items ?? [];
  if (lhr.runtimeError) throw new Error(`Lighthouse on ${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  const num = (id: string) => lhr.audits[id]?.numericValue ?? NaN;
  const summary = (lhr.audits['resource-summary']?.details as { items?: Array<{ resourceType: string; transferSize: number }> } | undefined)?.items ?? [];
  const bytes = (type: string) => summary.find((i) => i.resourceType === type)?.transferSize ?? NaN;
  return {
    page,
    protocol: requests.find((r) => r.resourceType === 'Script')?.protocol ?? '?',
    url,
    score: Math.round((lhr.categories.performance.score ?? 0) * 100),
    fcp: num('first-contentful-paint'),
    lcp: num('largest-contentful-paint'),
    tbt: num('total-blocking-time'),
    cls: num('cumulative-layout-shift'),
    js: bytes('script'),
    total: bytes('total'),
  };
}

/** Measure both pages, each RUNS times in one Chromium; the run of median score is reported. */
export async function measureLighthouse(tls: boolean): Promise<{ pages: PageResult[]; version: string; chromium: string }> {
  // chrome-launcher throws an unhandled 'error' event for a missing binary: asked first.
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROME_PATH)`);
  const server = await startServer(tls);
  let chrome: chromeLauncher.LaunchedChrome | undefined;
  let browser: Awaited<ReturnType<typeof puppeteer.connect>> | undefined;
  try {
    chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: FLAGS, logLevel: 'silent' });
    browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}`, defaultViewport: null });
    const storage = await signedInStorage(server);
    const pages: Array<{ page: string; url: string; signedIn: boolean }> = [
      { page: 'sign-in, cold', url: `${server.base}/en-US/login`, signedIn: false },
      { page: 'dashboard analysis, signed in, cold cache', url: `${server.base}/en-US/dashboard/analysis`, signedIn: true },
    ];
    const results: PageResult[] = [];
    let version = '';
    for (const p of pages) {
      const all: Array<Omit<PageResult, 'runs'>> = [];
      for (let i = 0; i < RUNS; i++) {
        const tab = await browser.newPage();
        // Lighthouse clears the origin's caches and service workers before it loads the page (a cold load) but not
        // localStorage (clearStorageTypes): a signed-in page gets the console's session there first, as after sign-in.
        // (A page of the origin that runs none of the console's code: its 401 page, for one, clears the storage.)
        await tab.goto(`${server.base}/api/health`);
        await tab.evaluate(
          (kept: Record<string, string> | null) => {
            localStorage.clear();
            sessionStorage.clear();
            if (kept) for (const [k, v] of Object.entries(kept)) localStorage.setItem(k, v);
          },
          p.signedIn ? storage : null,
        );
        const run = await lighthouse(p.url, { logLevel: 'error', output: 'json', onlyCategories: ['performance'] }, desktopConfig, tab);
        if (!run) throw new Error(`Lighthouse returned nothing for ${p.url}`);
        version = run.lhr.lighthouseVersion;
        fs.mkdirSync(REPORTS, { recursive: true });
        fs.writeFileSync(path.join(REPORTS, `${p.signedIn ? 'dashboard' : 'sign-in'}-${tls ? 'h2' : 'http1'}-${i + 1}.json`), String(run.report));
        if (p.signedIn && !run.lhr.finalDisplayedUrl.endsWith('/dashboard/analysis'))
          throw new Error(`the dashboard run ended on ${run.lhr.finalDisplayedUrl}, not signed in`);
        all.push(resultOf(p.page, p.url, run.lhr));
        console.log(`lighthouse: ${p.page}, run ${i + 1}: ${all.at(-1)!.score}`);
        await tab.close();
      }
      const sorted = [...all].sort((a, b) => a.score - b.score);
      results.push({ ...sorted[Math.floor((sorted.length - 1) / 2)], runs: all.map((r) => r.score) });
    }
    return { pages: results, version, chromium: await browser.version() };
  } finally {
    await browser?.disconnect();
    chrome?.kill();
    await server.stop();
  }
}

const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;
const kib = (n: number) => `${(n / KB).toLocaleString('en-US', { maximumFractionDigits: 0 })} KB`;
const kib1 = (n: number) => `${(n / KB).toFixed(1)} KB`;

/**
 * The Lighthouse section of bench/results.md: both pages measured now, and the build's JavaScript by route. A run that
 * cannot measure (no build, no Chromium) says why in the section instead of losing the rest of the bench's results.
 */
export async function lighthouseSection(): Promise<string> {
  let measured: Awaited<ReturnType<typeof measureLighthouse>>;
  let routes: ReturnType<typeof measureRoutes>;
  try {
    routes = measureRoutes(path.resolve('dist'));
    // Plain HTTP/1.1 as `npm start` serves, then HTTP/2 with a certificate as a deployment serves (README: TLS).
    const plain = await measureLighthouse(false);
    const h2 = await measureLighthouse(true);
    measured = { ...h2, pages: [...plain.pages, ...h2.pages] };
  } catch (err) {
    console.error('lighthouse:', err);
    return ['', HEAD, '', `Not measured on ${new Date().toISOString().slice(0, 10)}: ${(err as Error).message}`, ''].join('\n');
  }
  const { pages, version, chromium } = measured;
  console.log(formatReports(routes));
  return [
    '',
    HEAD,
    '',
    `Lighthouse ${version}, desktop preset (simulated 10 Mbit/s and 40 ms RTT, no CPU slowdown), ${chromium} with the`,
    'flags of ARCHITECTURE.md; the built console (dist/) served by `tsx server/main.ts` on a fresh demo database',
    `(SIMULATOR=off). Each page ${RUNS} times; the run of median score is shown, all scores in the last column. The`,
    'dashboard is signed in (the session the console keeps in localStorage) with a cold cache; Lighthouse clears the',
    'cache before each run. The machine is shared (2 cores): Lighthouse simulates the network but times the CPU as it',
    'found it, so a loaded machine lowers the scores. Each page is measured twice over: over plain HTTP/1.1, as `npm start`',
    'serves, where a browser fetches six files at a time; and over HTTP/2 with a self-signed certificate (TLS_CERT_FILE,',
    'TLS_KEY_FILE; Chromium told to take it), as a deployment serves, where the ~80 files of the signed-in console share',
    'one connection.',
    '',
    '| page | protocol | performance | FCP | LCP | TBT | CLS | JS transferred | all transferred | scores of the runs |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...pages.map(
      (p) =>
        `| ${p.page} | ${p.protocol} | ${p.score} | ${ms(p.fcp)} | ${ms(p.lcp)} | ${ms(p.tbt)} | ${p.cls.toFixed(3)} | ${kib(p.js)} | ${kib(p.total)} | ${p.runs.join(', ')} |`,
    ),
    '',
    'The JavaScript each route loads, read from the build (scripts/bundle-budget.ts: the entry, its static imports and the',
    "route's lazy chunks; gzip -9 and brotli 11 as scripts/precompress.ts writes them; KB = 1,024 bytes):",
    '',
    '| route | JS raw | JS gzip | JS brotli | budget (gzip) | all files gzip | all files brotli | files |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...routes.map(
      (r) =>
        `| ${r.route}${r.language ? ` (${r.language}, the heaviest language)` : ''} | ${kib1(r.js.raw)} | ${kib1(r.js.gzip)} | ${kib1(r.js.brotli)} | ${r.budgetKb} KB${r.js.gzip > r.budgetKb * KB ? ' (over)' : ''} | ${kib1(r.total.gzip)} | ${kib1(r.total.brotli)} | ${r.files.length} |`,
    ),
    '',
  ].join('\n');
}
