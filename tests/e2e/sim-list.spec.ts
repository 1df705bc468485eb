import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, signIn } from './helpers';

const rows = (page: Page) => page.getByRole('row').filter({ has: page.getByRole('cell') });
// The first cell of a row is its tick box (export); the ICCID is the next.
const iccidsShown = (page: Page) =>
  rows(page).evaluateAll((trs) => trs.map((tr) => (tr.querySelector('td:not(.ant-table-selection-column)')?.textContent ?? '').trim()));

test('a user finds SIMs by the last digits of an ICCID, filters them, and chooses the columns', async ({ page, request }) => {
  const s = await apiSession(request, 'user@demo.example.com');
  const first = (await (await request.post('/api/main/sim/list/es', { headers: s.as('DEMO'), data: { pageSize: 1 } })).json()).data;
  const iccid: string = first.items[0].iccid;

  await signIn(page, 'user@demo.example.com');
  await page.getByRole('menuitem', { name: 'SIM', exact: true }).click();
  await page.getByRole('menuitem', { name: 'All SIMs' }).click();
  await expect(page.getByRole('heading', { name: 'All SIMs' })).toBeVisible();
  await expect(page.getByText(`${first.total.toLocaleString('en-US')} results`)).toBeVisible();

  // One character is not a search yet; a letter in an ICCID never matches.
  const search = page.getByRole('textbox', { name: 'Whole value or last characters' });
  await search.fill('3');
  await expect(page.getByText('Type at least 2 characters to search')).toBeVisible();
  await search.fill('3x');
  await expect(page.getByText('Digits only for this field')).toBeVisible();
  await search.fill(iccid.slice(-8));
  await expect.poll(() => iccidsShown(page)).toEqual([iccid]);
  await expect(page.getByText('1 result', { exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'Clear all' }).click();
  await page.getByRole('combobox', { name: 'Lifecycle status' }).click({ force: true });
  await page.getByTitle('Paused').click();
  await expect.poll(async () => (await rows(page).allTextContents()).every((r) => r.includes('Paused'))).toBe(true);

  await page.getByRole('button', { name: 'Columns' }).click();
  await page.getByRole('checkbox', { name: 'MSISDN' }).uncheck();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('columnheader', { name: 'MSISDN' })).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('columnheader', { name: 'Device name' })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: 'MSISDN' })).toHaveCount(0);
});

test('bulk search takes one ICCID per line, names a wrong line, and refuses more than 1000', async ({ page, request }) => {
  const s = await apiSession(request, 'admin@demo.example.com');
  const some = (await (await request.post('/api/main/sim/list/es', { headers: s.as('DEMO'), data: { pageSize: 3, status: 'active' } })).json()).data.items.map(
    (i: { iccid: string }) => i.iccid,
  );
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/sim/simCard');
  await page.getByRole('button', { name: 'Bulk search' }).click();
  const box = page.getByRole('textbox', { name: 'Bulk search by ICCID' });

  await box.fill([some[0], 'not-an-iccid'].join('\n'));
  await expect(page.getByText('Line 2 is not a valid ICCID: not-an-iccid')).toBeVisible();
  await box.fill(Array.from({ length: 1001 }, (_, i) => `8900000000000${String(i).padStart(6, '0')}`).join('\n'));
  await expect(page.getByText('At most 1000: remove 1.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Search', exact: true })).toBeDisabled();

  await box.fill(some.join('\n'));
  await expect(page.getByText('3 of 1000')).toBeVisible();
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect.poll(async () => (await iccidsShown(page)).sort()).toEqual([...some].sort());
});

test('bundle order records list the newest orders and filter by status', async ({ page }) => {
  await signIn(page, 'operator@demo.example.com');
  await page.getByRole('menuitem', { name: 'SIM', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Bundle orders' }).click();
  await expect(page.getByRole('heading', { name: 'Bundle orders' })).toBeVisible();
  await expect(rows(page).first()).toBeVisible();
  await page.getByRole('combobox', { name: 'Status' }).click({ force: true });
  await page.getByTitle('In use').click();
  await expect.poll(async () => (await rows(page).allTextContents()).every((r) => r.includes('In use'))).toBe(true);
  await expect(rows(page).first()).toBeVisible();
});

test('call and data records open on the last 7 days and filter by RAT', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.getByRole('menuitem', { name: 'Call and data records' }).click();
  await expect(page.getByRole('heading', { name: 'Call and data records' })).toBeVisible();
  await expect(rows(page).first()).toBeVisible();
  await page.getByRole('combobox', { name: 'RAT' }).click({ force: true });
  await page.getByTitle('LTE', { exact: true }).click();
  await expect.poll(async () => (await rows(page).allTextContents()).every((r) => r.includes('LTE'))).toBe(true);
});

test('call and data records filter by a network the organisation has seen and by a plan code typed whole', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.getByRole('menuitem', { name: 'Call and data records' }).click();
  // The dashboard's own tables are rows too: read the CDR list's once it is the page.
  await expect(page.getByRole('columnheader', { name: 'Network' })).toBeVisible();
  await expect(rows(page).first()).toBeVisible();
  const network = (await rows(page).first().locator('td').nth(2).innerText()).trim();
  const plan = (await rows(page).first().locator('td').nth(3).innerText()).trim();
  await page.getByRole('combobox', { name: 'Network' }).click({ force: true });
  await page.getByTitle(network, { exact: true }).click();
  await expect.poll(async () => (await rows(page).allTextContents()).every((r) => r.includes(network))).toBe(true);
  await page.getByRole('textbox', { name: 'Plan' }).fill(plan);
  await page.getByRole('textbox', { name: 'Plan' }).press('Enter');
  await expect.poll(async () => (await rows(page).allTextContents()).every((r) => r.includes(plan))).toBe(true);
  await page.getByRole('textbox', { name: 'Plan' }).fill('NO-SUCH-PLAN');
  await page.getByRole('textbox', { name: 'Plan' }).press('Enter');
  await expect(page.getByText('Nothing matches')).toBeVisible();
});
