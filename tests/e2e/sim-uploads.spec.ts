/** Transfer and info upload from the SIM list: the file checked before submitting, the task and its report. */
import fs from 'node:fs';
import { expect, test } from './fixtures';
import { apiSession, signIn } from './helpers';

/** An inactive SIM of the demo organisation that no other test uses (the last of the first 100 inactive ones). */
async function spareIccids(request: import('@playwright/test').APIRequestContext, n: number): Promise<string[]> {
  const s = await apiSession(request, 'admin@demo.example.com');
  const res = await request.post('/api/main/sim/list/es', { headers: s.as('DEMO'), data: { status: 'inactive', pageSize: 100 } });
  const items = (await res.json()).data.items as { iccid: string }[];
  return items.slice(-n).map((i) => i.iccid);
}

test('an admin transfers SIMs: a wrong file is named, the check lists refused rows, the task report lists every row', async ({ page, request }) => {
  const [mover] = await spareIccids(request, 1);
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/sim/simCard');
  await page.getByRole('button', { name: 'Transfer' }).click();
  const dialog = page.getByRole('dialog', { name: 'Transfer SIMs to another organisation' });
  await expect(dialog).toBeVisible();

  // Nothing chosen: each missing field says so.
  await dialog.getByRole('button', { name: 'Transfer', exact: true }).click();
  await expect(dialog.getByText('Choose the receiving organisation', { exact: true }).last()).toBeVisible();
  await expect(dialog.getByText('Tick the acknowledgement to transfer.')).toBeVisible();

  await dialog.getByRole('combobox', { name: 'Receiving organisation' }).click();
  await page.getByTitle('Demo Logistics North').click();

  const input = dialog.locator('input[type=file]');
  await input.setInputFiles({ name: 'iccids.txt', mimeType: 'text/plain', buffer: Buffer.from('ICCID\n') });
  await expect(dialog.getByText('The file must be .xls, .xlsx or .csv.')).toBeVisible();

  await input.setInputFiles({ name: 'move.csv', mimeType: 'text/csv', buffer: Buffer.from(`ICCID\r\n${mover}\r\n12345\r\n`) });
  await expect(dialog.getByText('2 rows in the file')).toBeVisible();
  await expect(dialog.getByText('1 SIM can be transferred')).toBeVisible();
  await expect(dialog.getByRole('row').filter({ hasText: '12345' })).toContainText('Invalid ICCID');

  await dialog.getByRole('checkbox').check();
  await dialog.getByRole('button', { name: 'Transfer', exact: true }).click();
  await expect(page.getByText('2 rows sent: follow them in the task center')).toBeVisible();
  await page.getByText('Open the task center').click();

  const task = page.getByRole('row').filter({ hasText: 'move.csv' }).first();
  await expect(task).toContainText('Issues', { timeout: 15_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), task.getByRole('button', { name: 'Download' }).click()]);
  const lines = fs
    .readFileSync((await download.path())!, 'utf8')
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n');
  expect(lines).toEqual(['Row,ICCID,Outcome,Reason', `2,${mover},Done,`, '3,12345,Not done,Invalid ICCID']);
});

test('a user sees the info upload button but is told Insufficient permission, and no transfer button', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.goto('/en-US/sim/simCard');
  await page.getByRole('button', { name: 'Info upload' }).click();
  await expect(page.getByText('Insufficient permission')).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Transfer' })).toHaveCount(0);
});

test('an admin uploads device names; the dialog checks the file first', async ({ page, request }) => {
  const [a, b] = await spareIccids(request, 3);
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/sim/simCard');
  await page.getByRole('button', { name: 'Info upload' }).click();
  const dialog = page.getByRole('dialog', { name: 'Batch info upload' });
  await dialog
    .locator('input[type=file]')
    .setInputFiles({ name: 'names.csv', mimeType: 'text/csv', buffer: Buffer.from(`ICCID,Device name\r\n${a},Pump 7\r\n${b},${'x'.repeat(41)}\r\n`) });
  await expect(dialog.getByText('1 SIM can be updated')).toBeVisible();
  await expect(dialog.getByRole('row').filter({ hasText: b })).toContainText('Device name longer than 40 characters');
  await dialog.getByRole('button', { name: 'Upload', exact: true }).click();
  await expect(page.getByText('2 rows sent: follow them in the task center')).toBeVisible();
  // Followed in the task center to its end (one row refused: issues), then the SIM shows its new name.
  await page.getByText('Open the task center').click();
  await expect(page.getByRole('row').filter({ hasText: 'names.csv' }).first()).toContainText('Issues', { timeout: 30_000 });
  await page.goto(`/en-US/sim/detail?iccid=${a}`);
  await expect(page.getByText('Pump 7').first()).toBeVisible();
});
