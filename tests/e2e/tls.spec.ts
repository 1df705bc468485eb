/**
 * A server given a certificate (TLS_CERT_FILE, TLS_KEY_FILE): the browser signs in over HTTPS, fetches the console's
 * files over HTTP/2 (brotli, which Chromium asks for only over HTTPS), draws the dashboard, keeps a Secure refresh
 * cookie and holds the live stream open. The certificate is the suites' self-signed one, so the browser is told to take it.
 */
import { expect, test } from './fixtures';
import { signIn } from './helpers';

test.use({ serverTls: true, ignoreHTTPSErrors: true });

test('over HTTPS the console comes over HTTP/2, draws the dashboard and keeps its live stream and a Secure cookie', async ({ page, baseURL }) => {
  expect(baseURL).toMatch(/^https:\/\//);
  const encodings = new Map<string, string | undefined>();
  page.on('response', (r) => {
    if (r.url().includes('/assets/') && r.url().endsWith('.js')) encodings.set(r.url(), r.headers()['content-encoding']);
  });
  const stream = page.waitForResponse((r) => r.url().includes('/api/identity/sse/connect'));
  await signIn(page, 'admin@demo.example.com');
  await expect(page.getByRole('img', { name: 'Usage statistics' }).locator('svg path').first()).toBeVisible();
  expect((await stream).status()).toBe(200);

  const protocols = await page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).filter((e) => e.name.includes('/assets/')).map((e) => e.nextHopProtocol),
  );
  expect(protocols.length).toBeGreaterThan(10);
  expect(new Set(protocols)).toEqual(new Set(['h2']));
  // Files under 1 KB are sent as they are (scripts/precompress.ts); the entry and the rest come in brotli.
  const entry = [...encodings.keys()].find((u) => /\/assets\/index-[\w-]+\.js$/.test(u));
  expect(entry && encodings.get(entry)).toBe('br');
  expect([...encodings.values()].filter((e) => e === 'br').length).toBeGreaterThan(10);
  expect([...encodings.values()].filter((e) => e === 'gzip')).toEqual([]);

  const refresh = (await page.context().cookies()).find((c) => c.name === 'refresh_token');
  expect(refresh?.secure).toBe(true);
});
