/** chartView: the CDR chart from the summary rollups, highlighting cdrCard, and back to a kept CDR list. */
import { expect, test } from './fixtures';
import { signIn } from './helpers';

test("the CDR chart draws the list's days, refuses what is no ICCID, and returns to the kept CDR list", async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  // From here on (the sign-in page's own session probe answers 401 by design).
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.getByRole('menuitem', { name: 'Call and data records' }).click();
  await expect(page.locator('[data-keep-alive="cdrCard"]')).toBeVisible();
  await page.getByRole('button', { name: 'Chart' }).click();

  // The list's window of the last 7 days, as UTC days.
  await expect(page).toHaveURL(/\/en-US\/chartView\?from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}$/);
  await expect(page.getByRole('menuitem', { name: 'Call and data records' })).toHaveClass(/selected/);
  await expect(page.getByRole('heading', { name: 'CDR chart' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'Data volume per day (UTC)' }).locator('canvas')).toBeVisible();
  await expect(page.locator('.ant-statistic').filter({ hasText: 'Records' })).toContainText(/\d/);

  await page.getByRole('textbox', { name: 'ICCID' }).fill('89A');
  await expect(page.getByText('Digits only: a whole ICCID or at least its last 2 digits')).toBeVisible();
  await page.getByRole('textbox', { name: 'ICCID' }).fill('');

  await page.getByRole('button', { name: 'Back to records' }).click();
  await expect(page).toHaveURL(/\/en-US\/cdrCard$/);
  await expect(page.locator('[data-keep-alive="cdrCard"]')).toBeVisible();
  expect(errors).toEqual([]);
});
