/**
 * dashboard/analysis: every role's figures and charts, the period switch kept in the address, the lifecycle links, the
 * welcome of a new organisation without SIMs, and the time of a stored top 10 and heatmap.
 */
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, FIXTURE_BASE, signIn } from './helpers';

const ROLES = ['superadmin', 'admin', 'operator', 'user'] as const;
/** A string only ECharts' code carries: a script holding it is ECharts. */
const ECHARTS_MARK = '_echarts_instance_';

const usageCard = (page: Page) => page.getByRole('listitem').filter({ hasText: 'Data usage' });
const rows = (page: Page) => page.getByRole('row').filter({ has: page.getByRole('cell') });

/** Console errors and uncaught exceptions from now on. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

for (const role of ROLES) {
  test(`the ${role}'s dashboard draws its charts, and the period switch changes the figures and stays on reload`, async ({ page }) => {
    await signIn(page, `${role}@demo.example.com`);
    // From here on (the sign-in page's own session probe answers 401 by design).
    const errors = watchErrors(page);
    await expect(page.getByRole('heading', { name: 'Analysis' })).toBeVisible();
    for (const chart of ['Usage statistics', 'SIMs by lifecycle state', 'SMS usage']) {
      await expect(page.getByRole('img', { name: chart }).locator('svg path').first()).toBeVisible();
    }
    await expect(page.getByRole('link', { name: /^89\d{17,18}$/ })).toHaveCount(10);
    await expect(page.getByRole('listitem').filter({ hasText: 'Total SIMs' })).toContainText(/\d/);
    await expect(page.getByText(/^Figures as of /)).toBeVisible();

    await expect(usageCard(page)).toContainText(/\d/);
    const week = await usageCard(page).textContent();
    await page.getByText('24 hours', { exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard\/analysis\?view=24h$/);
    await expect(usageCard(page)).toContainText('vs previous 24 hours');
    const day = await usageCard(page).textContent();
    await page.getByText('6 months', { exact: true }).click();
    await expect(page).toHaveURL(/\?view=6months$/);
    await expect(usageCard(page)).toContainText('vs previous 6 months');
    const half = await usageCard(page).textContent();
    expect(new Set([week, day, half]).size).toBe(3);
    await expect(page.getByRole('img', { name: 'Usage statistics' }).locator('svg path').first()).toBeVisible();

    await page.reload();
    await expect(page.getByRole('radio', { name: '6 months' })).toBeChecked();
    await expect(usageCard(page)).toHaveText(half!);
    expect(errors).toEqual([]);
  });
}

test('a lifecycle count opens the SIM list filtered to its state, also when the list was kept from before', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  const errors = watchErrors(page);
  const legend = page.getByRole('navigation', { name: 'SIM counts by state' });
  const active = legend.getByRole('link', { name: /^Active / });
  const count = (await active.getAttribute('title'))!.match(/: ([\d,]+) SIMs/)![1];
  await active.click();
  await expect(page).toHaveURL(/\/en-US\/sim\/simCard\?status=active$/);
  const list = page.locator('[data-keep-alive="simCard"]');
  await expect(list.getByText(`${count} results`)).toBeVisible();
  await expect.poll(async () => (await rows(page).allTextContents()).every((r) => r.includes('Active'))).toBe(true);

  // Back to the dashboard and on to another state: the kept list takes the new state.
  await page.goBack();
  await expect(page).toHaveURL(/\/dashboard\/analysis$/);
  const paused = legend.getByRole('link', { name: /^Paused / });
  const pausedCount = (await paused.getAttribute('title'))!.match(/: ([\d,]+) SIMs/)![1];
  await paused.click();
  await expect(page).toHaveURL(/\/sim\/simCard\?status=paused$/);
  await expect(list.getByText(`${pausedCount} results`)).toBeVisible();
  await expect.poll(async () => (await rows(page).allTextContents()).every((r) => r.includes('Paused'))).toBe(true);
  expect(errors).toEqual([]);
});

test('expiring soon opens the SIM list on the SIMs whose expiry falls in the next 45 days', async ({ page }) => {
  await signIn(page, 'operator@demo.example.com');
  await page.getByRole('link', { name: 'Expiring soon' }).click();
  await expect(page).toHaveURL(/\/sim\/simCard\?expiresAtFrom=.+&expiresAtTo=.+$/);
  await expect(page.locator('[data-keep-alive="simCard"]').getByText(/^[\d,]+ results?$/)).toBeVisible();
});

test('a new organisation without SIMs shows its welcome and zero figures instead of blank charts', async ({ page, request }) => {
  // Its own organisation, made through the API as its admin would: under the other customer, so the demo
  // organisation's seats and switcher, which other specs count, stay as they were. A name of its own per run.
  const name = `Empty Fleet ${Date.now().toString(36)}`;
  const other = await apiSession(request, 'admin@other.example.com');
  const created = await request.post('/api/main/orgs', { headers: other.as('OTHER'), data: { name, country: 'IE', smsQuota: 100 } });
  expect(created.status()).toBe(200);

  await signIn(page, 'admin@other.example.com');
  const errors = watchErrors(page);
  const switcher = page.getByRole('button', { name: /^Organisation:/ });
  await switcher.click();
  await page.getByRole('menuitem', { name }).click();
  await expect(switcher).toContainText(name);
  await expect(page).toHaveURL(/\/en-US\/dashboard\/analysis$/);

  await expect(page.getByText('No SIMs in this organisation yet')).toBeVisible();
  // Each card reads its title, then its figure: 0 (0 kB for data), and no share of nothing.
  const cards = page.getByRole('list', { name: 'Key figures' }).getByRole('listitem');
  for (const title of ['Total SIMs', 'Active SIMs', 'Online now', 'Expiring soon', 'SMS']) {
    await expect(cards.filter({ hasText: title })).toHaveText(new RegExp(`^${title}0(\\D|$)`));
  }
  await expect(cards.filter({ hasText: 'Data usage' })).toHaveText(/^Data usage0\skB/);
  // The welcome stands where the charts and the top 10 would be: none of them is drawn empty.
  for (const chart of ['Usage statistics', 'SIMs by lifecycle state', 'SMS usage']) await expect(page.getByRole('img', { name: chart })).toHaveCount(0);
  await expect(page.getByText('Top 10 SIMs by data usage')).toHaveCount(0);
  await expect(page.getByRole('link', { name: /^89\d{17,18}$/ })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test.describe('a large fleet', () => {
  // The fixture server runs with DASHBOARD_LIVE_SIMS=0 (playwright.config.ts): every organisation reads snapshots there.
  test.use({ baseURL: FIXTURE_BASE });

  test('a top 10 and a heatmap read from a stored snapshot say when they were computed, by the UTC/local toggle', async ({ page, request }) => {
    const s = await apiSession(request, 'operator@demo.example.com');
    const stored = async (path: string) => (await (await request.get(`/api/main/dashboard/${path}`, { headers: s.as('DEMO') })).json()).data;
    const rank = await stored('rank?view=week');
    expect(rank.live).toBe(false);
    await signIn(page, 'operator@demo.example.com');
    const errors = watchErrors(page);
    await page.getByText('UTC', { exact: true }).click();
    const note = page.locator('time', { hasText: /^As of / });
    await expect(note).toHaveAttribute('datetime', rank.asOf);
    await expect(note).toHaveText(/^As of \w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2} [AP]M UTC$/);
    await note.hover();
    // The header's own tooltips may still be open: the note's is the one that explains it.
    await expect(page.getByRole('tooltip').filter({ hasText: 'the top 10 is recalculated every few minutes' })).toBeVisible();

    await page.getByRole('menuitem', { name: 'Heatmap' }).click();
    const map = await stored('heatmap?view=week');
    await expect(page.locator('time', { hasText: /^Figures as of / })).toHaveAttribute('datetime', map.asOf);
    expect(errors).toEqual([]);
  });
});

test('a fleet small enough for live figures shows no snapshot time', async ({ page }) => {
  await signIn(page, 'operator@demo.example.com');
  await expect(page.getByRole('link', { name: /^89\d{17,18}$/ })).toHaveCount(10);
  await expect(page.getByText(/^As of /)).toHaveCount(0);
  await page.getByRole('menuitem', { name: 'Heatmap' }).click();
  await expect(page.getByText('SIMs with a known location')).toBeVisible();
  await expect(page.getByText(/^Figures as of /)).toHaveCount(0);
});

test('the dashboard draws its charts itself: ECharts loads neither with the sign-in page nor the dashboard, only with the heatmap', async ({ page }) => {
  const scripts: Array<{ url: string; body: Promise<string> }> = [];
  page.on('response', (r) => r.request().resourceType() === 'script' && scripts.push({ url: r.url(), body: r.text() }));
  const echartsIn = async () =>
    (await Promise.all(scripts.map(async (s) => ({ url: s.url, echarts: (await s.body).includes(ECHARTS_MARK) })))).filter((s) => s.echarts);
  await page.goto('/en-US/login');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(await echartsIn()).toEqual([]);

  await signIn(page, 'user@demo.example.com');
  for (const chart of ['Usage statistics', 'SIMs by lifecycle state', 'SMS usage'])
    await expect(page.getByRole('img', { name: chart }).locator('svg path').first()).toBeVisible();
  await expect(page.getByRole('link', { name: /^89\d{17,18}$/ })).toHaveCount(10);
  expect(await echartsIn()).toEqual([]);

  await page.getByRole('menuitem', { name: 'Heatmap' }).click();
  await expect(page.getByRole('img', { name: 'SIMs by last known location' }).locator('canvas')).toBeVisible();
  expect((await echartsIn()).length).toBeGreaterThan(0);
});

test('a signed-in load of the dashboard asks for each of its figures once (the calls its route starts are taken by the page), and draws them', async ({
  page,
}) => {
  await signIn(page, 'admin@demo.example.com');
  await expect(page.getByRole('link', { name: /^89\d{17,18}$/ })).toHaveCount(10);
  const asked: string[] = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (/^\/api\/main\/(dashboard\/|sms\/usage)/.test(path)) asked.push(`${path}${new URL(r.url()).search}`);
  });
  await page.goto('/en-US/dashboard/analysis?view=24h');
  await expect(usageCard(page)).toContainText('vs previous 24 hours');
  await expect(page.getByRole('link', { name: /^89\d{17,18}$/ })).toHaveCount(10);
  for (const chart of ['Usage statistics', 'SIMs by lifecycle state', 'SMS usage'])
    await expect(page.getByRole('img', { name: chart }).locator('svg path').first()).toBeVisible();
  expect(asked.sort()).toEqual(
    [
      '/api/main/dashboard/card?view=24h',
      '/api/main/dashboard/lifecycleCount',
      '/api/main/dashboard/rank?view=24h',
      '/api/main/dashboard/statistics?view=24h',
      '/api/main/sms/usage?view=24h',
    ].sort(),
  );
  // The period switch still asks for the new period's figures.
  await page.getByText('Week', { exact: true }).click();
  await expect(page).toHaveURL(/\?view=week$/);
  await expect.poll(() => asked.filter((a) => a.endsWith('view=week')).length).toBe(4);
});

test('a chart tells its figures under the pointer, under the keyboard, and in a table for screen readers', async ({ page }) => {
  await signIn(page, 'operator@demo.example.com');
  const usage = page.getByRole('img', { name: 'Usage statistics' });
  await expect(usage.locator('svg path').first()).toBeVisible();
  // The table beside the picture: a row per day of the week, the day's full name and each figure in its own unit.
  const table = page.getByRole('table', { name: 'Usage statistics' });
  await expect(table.getByRole('columnheader')).toHaveText(['Period', 'Uplink', 'Downlink', 'Total']);
  await expect(table.getByRole('row')).toHaveCount(8);
  const firstDay = table.getByRole('row').nth(1);
  const [day, up, down, total] = [await firstDay.getByRole('rowheader').textContent(), ...(await firstDay.getByRole('cell').allTextContents())];
  expect(day).toMatch(/^\w{3}, \w{3} \d{1,2}, \d{4}$/);
  for (const v of [up, down, total]) expect(v).toMatch(/^[\d.,]+ (kB|MB|GB|TB)$/);

  // The keyboard: Tab from the legend onto the chart shows the first day's tooltip, the arrow keys move it, Escape closes it.
  await page.getByRole('button', { name: 'Downlink' }).focus();
  await page.keyboard.press('Tab');
  await expect(usage).toBeFocused();
  const tooltip = usage.locator('[aria-hidden=true]').filter({ hasText: 'Total:' });
  await expect(tooltip).toContainText(day!);
  await expect(tooltip).toContainText(`Uplink:${up}`);
  await expect(tooltip).toContainText(`Total:${total}`);
  await page.keyboard.press('End');
  await expect(tooltip).toContainText((await table.getByRole('row').last().getByRole('rowheader').textContent())!);
  await page.keyboard.press('Escape');
  await expect(tooltip).toHaveCount(0);

  // The pointer: over the first bar, the same figures.
  await page.keyboard.press('Tab');
  const box = (await usage.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.15, box.y + box.height * 0.7);
  await expect(tooltip).toContainText(day!);

  // The legend hides a series and shows it again; its line leaves the tooltip while it is hidden.
  await page.getByRole('button', { name: 'Uplink' }).click();
  await expect(page.getByRole('button', { name: 'Uplink' })).toHaveAttribute('aria-pressed', 'false');
  await page.mouse.move(box.x + box.width * 0.15, box.y + box.height * 0.7);
  await expect(tooltip).not.toContainText('Uplink:');
  await page.getByRole('button', { name: 'Uplink' }).click();
  await expect(page.getByRole('button', { name: 'Uplink' })).toHaveAttribute('aria-pressed', 'true');

  // The donut: each state's count and share under the keyboard, and Enter opens the SIM list on that state.
  const donut = page.getByRole('img', { name: 'SIMs by lifecycle state' });
  await donut.focus();
  const slice = donut.locator('[aria-hidden=true]').filter({ hasText: /:[\d,]+\(/ });
  await expect(slice).toHaveText(/^(Inactive|Pre-activated|Active|Paused|Expired|Terminated):[\d,]+\([\d.]+%\)$/);
  const state = (await slice.textContent())!.split(':')[0];
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/sim\/simCard\?status=\w+$/);
  await expect(page.locator('[data-keep-alive="simCard"]').getByText(/^[\d,]+ results?$/)).toBeVisible();
  expect(state.length).toBeGreaterThan(0);
});
