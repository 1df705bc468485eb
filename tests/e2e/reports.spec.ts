/** Reports: the list and the preference columns; hidden and redirected where the partner has reports off. */
import { expect, test } from './fixtures';
import { fillSignIn, signIn } from './helpers';

test('an admin reads the reports and switches a preference column on and off', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('menuitem', { name: 'SIM', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Reports' }).click();
  await expect(page.getByRole('heading', { name: 'Reports' })).toBeVisible();
  await expect(page.getByRole('row').nth(1)).toContainText(/Monthly usage|SIM inventory/);

  const imei = page.getByRole('switch', { name: 'IMEI' });
  await expect(imei).not.toBeChecked();
  await imei.click();
  await expect(page.getByText('Preference columns saved')).toBeVisible();
  await expect(imei).toBeChecked();
  await page.reload();
  await expect(page.getByRole('switch', { name: 'IMEI' })).toBeChecked();
  await page.getByRole('switch', { name: 'IMEI' }).click();
  await expect(page.getByRole('switch', { name: 'IMEI' })).not.toBeChecked();
});

test('a partner with reports off: no Reports entry, and sim/reports leads to the SIM list', async ({ page, baseURL }) => {
  const origin = baseURL!.replace('localhost', 'terra.localhost');
  await page.goto(`${origin}/en-US/login`);
  await fillSignIn(page, 'admin@demo.example.com');
  await expect(page).toHaveURL(/dashboard\/analysis$/);
  await page.getByRole('menuitem', { name: 'SIM', exact: true }).click();
  await expect(page.getByRole('menuitem', { name: 'All SIMs' })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'Reports' })).toHaveCount(0);
  await page.goto(`${origin}/en-US/sim/reports`);
  await expect(page).toHaveURL(/\/en-US\/sim\/simCard$/);
});

test('an admin makes a report again and downloads it when it is ready', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('menuitem', { name: 'SIM', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Reports' }).click();
  const row = page.getByRole('row').filter({ hasText: 'SIM inventory' }).first();
  await expect(row).toContainText('Ready');
  // The list is read again once the report is pending, and again when its task ends (a live event).
  const reread = page.waitForResponse((r) => r.url().includes('/api/main/report/reports/') && r.request().method() === 'POST');
  await row.getByRole('button', { name: 'Make again' }).click();
  await expect(page.getByText('The report is being made; it can be downloaded when it is ready.')).toBeVisible();
  await reread;
  await expect(row).toContainText('Ready', { timeout: 30_000 });
  const download = page.waitForEvent('download');
  await row.getByRole('button', { name: 'Download' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^sim_inventory-\d{4}-\d{2}\.csv$/);
  const text = await (await file.createReadStream()).toArray().then((chunks) => Buffer.concat(chunks).toString('utf8'));
  expect(text.replace(/^\uFEFF/, '').split('\r\n')[0]).toContain('ICCID');
});
