import { expect, test } from './fixtures';
import { signIn } from './helpers';

test('the task center lists my recent tasks with their status, and filters them', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  // The header shortcut counts the running task.
  await expect(page.getByRole('button', { name: 'Task center' }).locator('..').getByText('1')).toBeVisible();
  await page.getByRole('button', { name: 'Task center' }).click();
  await expect(page).toHaveURL(/\/en-US\/taskcenter$/);
  await expect(page.getByRole('heading', { name: 'Task center' })).toBeVisible();
  const processingRow = page.getByRole('row').filter({ hasText: 'SIM activation' });
  await expect(processingRow.getByText('Processing')).toBeVisible();
  await expect(processingRow.getByRole('progressbar')).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: 'All active SIMs' }).getByText('Done')).toBeVisible();

  await page.getByText('Issues', { exact: true }).first().click();
  // The seeded upload with issues (other specs may have added more of the admin's).
  await expect(page.getByRole('row').filter({ hasText: 'SIM info upload' }).first()).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: 'SIM activation' })).toHaveCount(0);
});

test('leaving the task center with a task processing asks Leave or Stay', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('menuitem', { name: 'Task center' }).click();
  // The demo's activation task (other tests of the worker may have started more).
  await expect(page.getByRole('row').filter({ hasText: 'SIM activation' }).first()).toBeVisible();
  await page.getByRole('menuitem', { name: 'Call and data records' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText('Tasks are still running')).toBeVisible();
  await dialog.getByRole('button', { name: 'Stay' }).click();
  await expect(page).toHaveURL(/\/taskcenter$/);
  await page.getByRole('menuitem', { name: 'Call and data records' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Leave' }).click();
  await expect(page).toHaveURL(/\/cdrCard$/);
});

test('a user with no running task leaves the task center without a question', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.getByRole('menuitem', { name: 'Task center' }).click();
  await expect(page.getByRole('heading', { name: 'Task center' })).toBeVisible();
  await page.getByRole('menuitem', { name: 'Call and data records' }).click();
  await expect(page).toHaveURL(/\/cdrCard$/);
});

test('simCard stays alive across pages; cdrCard only for a trip to its chart and back', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  const kept = (key: string) => page.locator(`[data-keep-alive="${key}"]`);
  await page.goto('/en-US/sim/simCard');
  await expect(kept('simCard')).toBeVisible();
  await page.getByRole('menuitem', { name: 'Bundle orders' }).click();
  await expect(kept('simCard')).toBeAttached();
  await expect(kept('simCard')).toBeHidden();
  await page.getByRole('menuitem', { name: 'All SIMs' }).click();
  await expect(kept('simCard')).toBeVisible();

  await page.getByRole('menuitem', { name: 'Call and data records' }).click();
  await expect(kept('cdrCard')).toBeVisible();
  await page.goto('/en-US/chartView');
  await expect(kept('cdrCard')).toHaveCount(0); // a full page load starts afresh
  await page.getByRole('menuitem', { name: 'Call and data records' }).click();
  await expect(kept('cdrCard')).toBeVisible();
  await page.evaluate(() => window.history.pushState({}, '', '/en-US/chartView'));
  await page.evaluate(() => window.dispatchEvent(new PopStateEvent('popstate')));
  await expect(kept('cdrCard')).toBeHidden();
  await page.goBack();
  await expect(kept('cdrCard')).toBeVisible();
  await page.getByRole('menuitem', { name: 'SIM', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Bundle orders' }).click();
  await expect(kept('cdrCard')).toHaveCount(0);
});
