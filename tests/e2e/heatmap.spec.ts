/** dashboard/heatmap: where the SIMs were last seen on a world map, by SIMs or usage, for 24 hours, a week or 6 months. */
import { expect, test } from './fixtures';
import { signIn } from './helpers';

test('the heatmap draws the fleet on a world map, and its period and measure switches change the figures', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  // From here on (the sign-in page's own session probe answers 401 by design).
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.getByRole('menuitem', { name: 'Heatmap' }).click();
  await expect(page).toHaveURL(/\/en-US\/dashboard\/heatmap$/);
  await expect(page.getByRole('heading', { name: 'Heatmap' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'SIMs by last known location' }).locator('canvas')).toBeVisible();

  const located = page.locator('.ant-statistic').filter({ hasText: 'SIMs with a known location' });
  await expect(located).toContainText(/\d+\s*\/\s*[\d,]+/);
  const countries = page.getByRole('list', { name: 'Top countries' });
  await expect(countries.getByRole('listitem').first()).toContainText('Germany');
  const simsOfGermany = (await countries.getByRole('listitem').first().textContent()) ?? '';

  // The period changes usage, not where the SIMs are.
  const usage = page.locator('.ant-statistic').filter({ hasText: 'Their usage' });
  await expect(usage).toContainText('last 7 days');
  const week = await usage.locator('.ant-statistic-content').innerText();
  await page.getByRole('radiogroup', { name: 'Period' }).getByText('6 months').click();
  await expect(page).toHaveURL(/view=6months/);
  await expect(usage).toContainText('last 6 months');
  await expect(usage.locator('.ant-statistic-content')).not.toHaveText(week);
  await expect(countries.getByRole('listitem').first()).toHaveText(simsOfGermany);

  // Measured in usage, the map and the list speak in volumes.
  await page.getByRole('radiogroup', { name: 'Measure' }).getByText('Usage').click();
  await expect(page).toHaveURL(/measure=usage/);
  await expect(page.getByRole('img', { name: 'Usage by last known location' }).locator('canvas')).toBeVisible();
  await expect(countries.getByRole('listitem').first()).toContainText(/[\d.,]+\s*(kB|MB|GB|TB)/);

  // The address keeps both switches.
  await page.reload();
  await expect(page.getByRole('img', { name: 'Usage by last known location' }).locator('canvas')).toBeVisible();
  await expect(usage).toContainText('last 6 months');
  expect(errors).toEqual([]);
});
