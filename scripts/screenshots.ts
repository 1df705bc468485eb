/**
 * Screenshots of the pages in two languages at 1280 and 1920 wide (npm run screenshots; the server must run on BASE).
 * PAGES (comma-separated paths after the language, default: the landing page and the task center) adds screens;
 * HOSTS=nova,aurora,terra also shoots the sign-in page and the shell of those brand variants; LANGS (default
 * en-US,zh-CN) names the languages.
 */
import { chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.js';

const BASE = process.env.BASE ?? 'http://localhost:8080';
const OUT = process.env.OUT ?? '.tmp/screens';
/** Sign in as the demo admin from the sign-in page shown, and wait for the shell. */
async function signInAsAdmin(page: Page): Promise<void> {
  await page.locator('#username').fill('admin@demo.example.com');
  await page.locator('#password').fill('Demo#2026');
  await page.locator('#verificationCode').fill(process.env.CODE ?? '246810');
  await page.getByRole('checkbox').check();
  await page.locator('button[type=submit]').click();
  await page.waitForURL(/dashboard\/analysis/);
  await page.waitForSelector('h3');
}

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
for (const lang of (process.env.LANGS ?? 'en-US,zh-CN').split(',').filter(Boolean)) {
  for (const width of [1280, 1920]) {
    const page = await browser.newPage({ viewport: { width, height: width === 1280 ? 800 : 1080 } });
    await page.goto(`${BASE}/${lang}/login`);
    await page.waitForSelector('img');
    await page.screenshot({ path: `${OUT}/login-${lang}-${width}.png` });
    await signInAsAdmin(page);
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${OUT}/landing-${lang}-${width}.png` });
    for (const path of (process.env.PAGES ?? 'taskcenter').split(',').filter(Boolean)) {
      await page.goto(`${BASE}/${lang}/${path}`);
      // The live stream keeps the network busy: wait for the page's heading and its data instead.
      await page.waitForSelector('h3');
      await page.waitForTimeout(1200);
      await page.screenshot({ path: `${OUT}/${path.replace(/\//g, '_')}-${lang}-${width}.png`, fullPage: true });
    }
    await page.close();
  }
}
for (const host of (process.env.HOSTS ?? '').split(',').filter(Boolean)) {
  const origin = BASE.replace('localhost', `${host}.localhost`);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${origin}/en-US/login`);
  await page.waitForTimeout(800);
  await page.screenshot({ path: `${OUT}/brand-${host}-login.png` });
  await signInAsAdmin(page);
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${OUT}/brand-${host}-shell.png` });
  await page.close();
}
await browser.close();
