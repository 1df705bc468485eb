/** SIM actions from the list's selection: confirmed, answered SIM by SIM, shown only to the roles that may use them. */
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, signIn } from './helpers';

const findSim = async (page: Page, iccid: string) => {
  await page.goto('/en-US/sim/simCard');
  await page.getByRole('textbox', { name: 'Whole value or last characters' }).fill(iccid);
  const row = page.getByRole('row').filter({ hasText: iccid });
  await expect(page.getByRole('row').filter({ has: page.getByRole('cell') })).toHaveCount(1);
  return row;
};

test('an operator suspends an active SIM and resumes it from the list', async ({ page, request }) => {
  const s = await apiSession(request, 'operator@demo.example.com');
  const iccid = (
    await (await request.post('/api/main/sim/list/es', { headers: s.as('DEMO'), data: { status: 'active', pageSize: 1, sort: 'iccid', order: 'desc' } })).json()
  ).data.items[0].iccid as string;
  await signIn(page, 'operator@demo.example.com');
  let row = await findSim(page, iccid);
  await expect(page.getByRole('button', { name: 'Activate' })).toHaveCount(0);
  await row.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Suspend' }).click();
  await expect(page.getByRole('dialog', { name: 'Suspend 1 SIM?' })).toBeVisible();
  await page.getByRole('dialog').getByRole('button', { name: 'Suspend' }).click();
  await expect(page.getByText('Suspend: 1 SIM done')).toBeVisible();
  row = page.getByRole('row').filter({ hasText: iccid });
  await expect(row).toContainText('Paused');

  await row.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Resume' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByText('Resume: 1 SIM done')).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: iccid })).toContainText('Active');
});

test('an admin activating SIMs that may not be activated sees each refusal with its reason', async ({ page, request }) => {
  const s = await apiSession(request, 'admin@demo.example.com');
  const iccid = (await (await request.post('/api/main/sim/list/es', { headers: s.as('DEMO'), data: { status: 'active', pageSize: 1 } })).json()).data.items[0]
    .iccid as string;
  await signIn(page, 'admin@demo.example.com');
  const row = await findSim(page, iccid);
  await row.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Activate' }).click();
  // The confirmation already says which SIMs would be refused and why (POST /sim/preActiveValidated).
  const precheck = page.getByTestId('activate-precheck');
  await expect(precheck).toContainText('1 of 1 SIMs cannot be activated');
  await expect(precheck.getByRole('row').filter({ hasText: iccid })).toContainText('Only pre-activated SIMs can be activated.');
  await page.getByRole('dialog').getByRole('button', { name: 'Activate' }).click();
  const result = page.getByRole('dialog', { name: '0 sent, 1 refused' });
  await expect(result).toBeVisible();
  await expect(result.getByRole('row').filter({ hasText: iccid })).toContainText('Only pre-activated SIMs can be activated.');
});

test('an activation is sent to the network as a task, followed in the task center, and the SIM becomes active', async ({ page, request }) => {
  // A superadmin's task, so the admin's task center (task-center.spec.ts) keeps its one running task.
  const s = await apiSession(request, 'superadmin@demo.example.com');
  const list = await request.post('/api/main/sim/list/es', {
    headers: s.as('DEMO'),
    data: { status: 'pre_activated', technology: 'ONE_IMSI', pageSize: 1, sort: 'iccid', order: 'desc' },
  });
  const iccid = (await list.json()).data.items[0].iccid as string;
  await signIn(page, 'superadmin@demo.example.com');
  const row = await findSim(page, iccid);
  await expect(row).toContainText('Pre-activated');
  await row.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Activate' }).click();
  await expect(page.getByRole('dialog', { name: 'Activate 1 SIM?' })).toContainText('sent to the network as one task');
  await page.getByRole('dialog').getByRole('button', { name: 'Activate' }).click();
  await expect(page.getByText('Activation of 1 SIM sent to the network: follow it in the task center')).toBeVisible();
  await page.getByText('Open the task center').click();
  await expect(page).toHaveURL(/\/en-US\/taskcenter$/);
  const task = page.getByRole('row').filter({ hasText: 'SIM activation' }).filter({ hasText: iccid });
  await expect(task.getByText('Done')).toBeVisible({ timeout: 15_000 });
  await findSim(page, iccid);
  await expect(page.getByRole('row').filter({ hasText: iccid })).toContainText('Active');
});

test('a user sees no SIM action buttons', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.goto('/en-US/sim/simCard');
  await expect(page.getByRole('row').nth(1)).toBeVisible();
  for (const name of ['Activate', 'Suspend', 'Resume', 'Reset']) await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
});
