/** Shared pools: list, detail with usage, settings, activity and events, rename; the menu entry only where pools exist. */
import { expect, test } from './fixtures';
import { signIn } from './helpers';

test('an admin opens a pool: usage, settings, activity, events, and renames it', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('menuitem', { name: 'SIM', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Shared pools' }).click();
  await expect(page.getByRole('heading', { name: 'Shared pools' })).toBeVisible();
  await page.getByRole('link', { name: 'EU Fleet Pool' }).click();

  await expect(page.getByRole('heading', { name: 'EU Fleet Pool' })).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Current usage' })).toBeVisible();
  await expect(page.getByText(/ of .* used/)).toBeVisible();
  for (const section of ['Overview', 'Usage this cycle', 'Settings']) await expect(page.locator('.ant-card-head-title').getByText(section, { exact: true })).toBeVisible();
  await expect(page.locator('.ant-descriptions').getByText('No limit')).toBeVisible();

  // Activity: the SIMs of the pool; Events: filtered by type.
  await expect(page.getByRole('tabpanel').getByRole('row').nth(1)).toContainText(/89\d{17}/);
  await page.getByRole('tab', { name: 'Events' }).click();
  await expect(page.getByRole('tabpanel', { name: 'Events' }).getByRole('row').nth(1)).toBeVisible();

  await page.getByRole('button', { name: 'Rename' }).click();
  const dialog = page.getByRole('dialog');
  const name = dialog.getByRole('textbox', { name: 'Name' });
  await name.fill('   ');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('has the wrong format')).toBeVisible();
  await name.fill('cold chain pool');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('Name: is already taken')).toBeVisible();
  await name.fill('EU Fleet Pool 2026');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Renamed to EU Fleet Pool 2026')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'EU Fleet Pool 2026' })).toBeVisible();
  // Back to the seed's name for the specs that follow.
  await page.getByRole('button', { name: 'Rename' }).click();
  await dialog.getByRole('textbox', { name: 'Name' }).fill('EU Fleet Pool');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { name: 'EU Fleet Pool', exact: true })).toBeVisible();
});

test('a user reads pools without Rename', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.goto('/en-US/sim/shared');
  await page.getByRole('link', { name: 'Cold Chain Pool' }).click();
  await expect(page.getByRole('heading', { name: 'Cold Chain Pool' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Rename' })).toHaveCount(0);
});

test('an organisation without pools has no Shared pools entry', async ({ page }) => {
  await signIn(page, 'admin@other.example.com');
  await page.getByRole('menuitem', { name: 'SIM', exact: true }).click();
  await expect(page.getByRole('menuitem', { name: 'All SIMs' })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'Shared pools' })).toHaveCount(0);
});
