/**
 * A CDR's session and cell from cdrCard and its two exports, one SIM's CDR summary, a job's provider log in the task
 * center, notification groups under Settings, and an organisation's enterprise details.
 */
import { expect, test } from './fixtures';
import { apiSession, signIn } from './helpers';

test('a user opens a CDR’s session and cell, exports all the records, and reads the export’s provider log', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.getByRole('menuitem', { name: 'Call and data records' }).click();
  const first = page.getByRole('row').nth(1);
  await first.getByRole('button', { name: 'Details' }).click();
  const drawer = page.getByRole('dialog');
  await expect(drawer.getByText('Session', { exact: true })).toBeVisible();
  await expect(drawer.getByText('Cell', { exact: true })).toBeVisible();
  await expect(drawer.getByText('MCC-MNC')).toBeVisible();
  await drawer.getByRole('button', { name: 'Close' }).click();

  // The country filter names countries with their areas.
  await page.getByRole('combobox', { name: 'Country' }).click();
  await expect(page.getByTitle('Germany · Europe')).toBeVisible();
  await page.keyboard.press('Escape');

  await page.getByRole('button', { name: /Export/ }).click();
  await page
    .getByRole('menuitem', { name: /as CSV/ })
    .first()
    .click();
  await expect(page.getByText(/^Export of [\d,]+ started/)).toBeVisible();
  await page.getByText('Open the task center').click();
  const row = page.getByRole('row').filter({ hasText: 'CDR export' }).first();
  await expect(row.getByText('Done')).toBeVisible({ timeout: 30_000 });
  await row.getByRole('button', { name: /^Log / }).click();
  const log = page.getByRole('dialog');
  await expect(log.getByText(/^Started by worker-/)).toBeVisible();
  await expect(log.getByText('Finished', { exact: true })).toBeVisible();
});

test('a SIM’s CDRs tab sums its last 31 days by network', async ({ page, request }) => {
  const s = await apiSession(request, 'user@demo.example.com');
  const list = await (
    await request.post('/api/main/sim/list/es', { headers: s.as('DEMO'), data: { status: 'active', pageSize: 1, page: 1, sort: 'iccid', order: 'asc' } })
  ).json();
  const iccid = list.data.items[0].iccid as string;
  await signIn(page, 'user@demo.example.com');
  await page.goto(`/en-US/sim/detail?iccid=${iccid}&tab=cdrs`);
  await page.getByRole('tab', { name: 'CDRs', exact: true }).click();
  await expect(page.getByText('Summary of the last 31 days')).toBeVisible();
  await expect(page.getByText('Networks and radios')).toBeVisible();
  await expect(page.getByText('Total volume')).toBeVisible();
});

test('an admin makes an e-mail notification group and sees the SMS variant', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('menuitem', { name: 'Settings' }).click();
  await page.getByRole('menuitem', { name: 'Notifications' }).click();
  await expect(page.getByRole('heading', { name: 'Notifications' })).toBeVisible();
  await page.getByRole('button', { name: 'New group' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill('Night shift');
  await dialog.getByLabel('A task finished', { exact: true }).check();
  await dialog.getByLabel('Recipients').fill('night@example.com\nnot-an-address');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Recipients must be a valid e-mail address')).toBeVisible();
  await dialog.getByLabel('Recipients').fill('night@example.com\nlead@example.com');
  await dialog.getByRole('button', { name: 'Save' }).click();
  const row = page.getByRole('row').filter({ hasText: 'Night shift' });
  await expect(row).toContainText('night@example.com, lead@example.com');
  await expect(row).toContainText('A task finished');
  await page.getByRole('tab', { name: 'SMS' }).click();
  await expect(page.getByText('SMS notifications wait in the SMS outbox')).toBeVisible();
});

test('a user has no Notifications screen: not in the menu, and its address leads home', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await expect(page.getByRole('menuitem', { name: 'Call and data records' })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'Settings' })).toHaveCount(0);
  await page.goto('/en-US/notifications');
  await expect(page).toHaveURL(/\/dashboard\/analysis$/);
  await expect(page.getByRole('heading', { name: 'Notifications' })).toHaveCount(0);
});

test('an admin edits the organisation’s enterprise details; a wrong IBAN is refused naming the field', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/orgs');
  await page.getByRole('row').filter({ hasText: 'Demo Logistics GmbH' }).getByRole('button', { name: 'Enterprise details' }).click();
  const drawer = page.getByRole('dialog');
  await expect(drawer.getByLabel('Legal name')).toHaveValue('Demo Logistics GmbH');
  await drawer.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 01');
  await drawer.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('This IBAN is not valid (its check digits do not match)')).toBeVisible();
  await drawer.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
  await drawer.getByLabel('Tax ID').fill('DE999999999');
  await drawer.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Enterprise details saved')).toBeVisible();
});
