/** Screenshots of the pages in two languages at 1280 and 1920 wide (npm run screenshots; the server must run on BASE). */
import { chromium } from '@playwright/test';

const BASE = process.env.BASE ?? 'http://localhost:8080';
const OUT = process.env.OUT ?? '.tmp/screens';
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
for (const lang of ['en-US', 'zh-CN']) {
  for (const width of [1280, 1920]) {
    const page = await browser.newPage({ viewport: { width, height: width === 1280 ? 800 : 1080 } });
    await page.goto(`${BASE}/${lang}/login`);
    await page.waitForSelector('img');
    await page.screenshot({ path: `${OUT}/login-${lang}-${width}.png` });
    await page.locator('#username').fill('admin@demo.example.com');
    await page.locator('#password').fill('Demo#2026');
    await page.locator('#verificationCode').fill(process.env.CODE ?? '246810');
    await page.getByRole('checkbox').check();
    await page.locator('button[type=submit]').click();
    await page.waitForURL(/dashboard\/analysis/);
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${OUT}/landing-${lang}-${width}.png` });
    await page.close();
  }
}
await browser.close();
