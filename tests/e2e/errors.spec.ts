/**
 * What a person sees when a call fails (SPEC.md section 8): one toast per failure, at most three at once, "Permission
 * denied" for a 403, and a SIM that does not exist said at once, once.
 */
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { signIn } from './helpers';

/** antd's message toasts on the page. */
const toasts = (page: Page) => page.locator('.ant-message-notice');

test('a list that fails shows one toast, not one per retry', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  let calls = 0;
  await page.route('**/api/main/sim/list/es', (route) => {
    calls++;
    return route.fulfill({
      status: 500,
      contentType: 'application/json',
      body: JSON.stringify({
        status: { code: 'CB-00-0500', success: false, message: 'Something went wrong on our side (error test). Please retry later.' },
        data: null,
      }),
    });
  });
  await page.goto('/en-US/sim/simCard');
  await expect(page.getByText('Something went wrong on our side (error test). Please retry later.')).toBeVisible();
  // A 500 is tried once more; the same words replace their toast.
  await expect.poll(() => calls).toBeGreaterThanOrEqual(2);
  await expect(toasts(page)).toHaveCount(1);
});

test('different failures at once show at most three toasts', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  let n = 0;
  await page.route('**/api/**', (route) => {
    if (route.request().url().includes('/identity/')) return route.fallback();
    n++;
    return route.fulfill({
      status: 400,
      contentType: 'application/json',
      body: JSON.stringify({ status: { code: 'CB-00-0400', success: false, message: `Failure number ${n}` }, data: null }),
    });
  });
  await page.goto('/en-US/dashboard/analysis');
  await expect.poll(() => n).toBeGreaterThan(3);
  await expect(toasts(page).first()).toBeVisible();
  // Those that gave way leave with an animation; once it is over, three at most remain.
  await expect.poll(() => toasts(page).count()).toBeLessThanOrEqual(3);
});

test('a 403 reads "Permission denied" whatever the server said', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.route('**/api/main/sim/list/es', (route) =>
    route.fulfill({
      status: 403,
      contentType: 'application/json',
      body: JSON.stringify({ status: { code: 'CB-00-0403', success: false, message: 'You may not read these rows (server words)' }, data: null }),
    }),
  );
  await page.goto('/en-US/sim/simCard');
  await expect(page.getByText('Permission denied')).toBeVisible();
  await expect(page.getByText('server words')).toHaveCount(0);
});

test('a SIM that does not exist is said at once, once, in the page', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/sim/detail?iccid=8949000000000000000');
  await expect(page.getByText('SIM 8949000000000000000 does not exist.')).toBeVisible({ timeout: 3000 });
  await expect(page.getByText('SIM 8949000000000000000 does not exist.')).toHaveCount(1);
  await expect(toasts(page)).toHaveCount(0);
});
