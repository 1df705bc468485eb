/** A SIM's page: an operator suspends and resumes it; a user sees no action; an admin edits its tags within the limits. */
import { type APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, signIn } from './helpers';

const activeSim = async (request: APIRequestContext, email: string, offset = 1) => {
  const s = await apiSession(request, email);
  return (
    await (
      await request.post('/api/main/sim/list/es', {
        headers: s.as('DEMO'),
        data: { status: 'active', pageSize: 1, page: offset, sort: 'iccid', order: 'desc' },
      })
    ).json()
  ).data.items[0].iccid as string;
};

test('an operator opens a SIM from the list, suspends it and resumes it on its page', async ({ page, request }) => {
  const iccid = await activeSim(request, 'operator@demo.example.com', 3);
  await signIn(page, 'operator@demo.example.com');
  await page.goto('/en-US/sim/simCard');
  await page.getByRole('textbox', { name: 'Whole value or last characters' }).fill(iccid);
  await page.getByRole('link', { name: iccid }).click();
  await expect(page).toHaveURL(new RegExp(`/sim/detail\\?iccid=${iccid}$`));
  await expect(page.getByRole('heading', { name: `SIM ${iccid}` })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'All SIMs' })).toHaveClass(/selected/);
  const lifecycle = page.locator('.ant-card').filter({ has: page.locator('.ant-card-head-title', { hasText: /^Lifecycle$/ }) });
  await expect(lifecycle).toContainText('Active');
  await expect(page.getByRole('button', { name: 'Tags' })).toHaveCount(0);
  // Only what an active SIM allows: no Resume while it runs.
  await expect(page.getByRole('button', { name: 'Resume', exact: true })).toHaveCount(0);

  // Suspended while its events are open: the tab reads them again and shows the change at once.
  await page.getByRole('tab', { name: 'Events' }).click();
  const events = page.getByRole('tabpanel', { name: 'Events' });
  await expect(events.getByRole('row').nth(1)).toBeVisible();
  const pausedBefore = await events.getByRole('row').filter({ hasText: 'Paused' }).count();
  await page.getByRole('button', { name: 'Suspend' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Suspend' }).click();
  await expect.poll(() => events.getByRole('row').filter({ hasText: 'Paused' }).count()).toBeGreaterThan(pausedBefore);
  await page.getByRole('tab', { name: 'Basic' }).click();
  await expect(lifecycle).toContainText('Paused');
  // The kept-alive list shows the new state, not the one it was left with.
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page.getByRole('row').filter({ hasText: iccid })).toContainText('Paused');
  await page.getByRole('link', { name: iccid }).click();
  await expect(lifecycle).toContainText('Paused');
  await expect(page.getByRole('button', { name: 'Suspend', exact: true })).toHaveCount(0);
  await page.getByRole('button', { name: 'Resume' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Resume' }).click();
  await expect(lifecycle).toContainText('Active');
});

test('a user sees a SIM without any action button', async ({ page, request }) => {
  const iccid = await activeSim(request, 'user@demo.example.com');
  await signIn(page, 'user@demo.example.com');
  await page.goto(`/en-US/sim/detail?iccid=${iccid}`);
  await expect(page.getByRole('heading', { name: `SIM ${iccid}` })).toBeVisible();
  for (const name of ['Activate', 'Suspend', 'Resume', 'Reset', 'Device name', 'Notes', 'Tags'])
    await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
});

test('an admin edits the tags: 10 of 10 characters at most, each refused beyond', async ({ page, request }) => {
  const iccid = await activeSim(request, 'admin@demo.example.com', 5);
  await signIn(page, 'admin@demo.example.com');
  await page.goto(`/en-US/sim/detail?iccid=${iccid}`);
  await page.getByRole('button', { name: 'Tags' }).click();
  const dialog = page.getByRole('dialog');
  // One tags box (typed, Enter adds the tag), not a generated list of "Tags-1", "Tags-2" fields.
  const box = dialog.getByRole('textbox', { name: 'Tags' });
  await expect(dialog.getByText(/Tags-\d/)).toHaveCount(0);
  // Start from none: Backspace in the empty box takes the last tag away.
  await box.click();
  for (let i = 0; i < 12; i++) await box.press('Backspace');
  await expect(dialog.locator('.ant-tag')).toHaveCount(0);
  for (let i = 0; i < 9; i++) await box.pressSequentially(`tag-${i}\n`);
  await expect(dialog.locator('.ant-tag')).toHaveCount(9);
  // Eleven characters: refused in words, and what was typed stays in the box (nothing cut).
  await box.pressSequentially('eleven-char\n');
  await expect(dialog.getByText('Tag “eleven-char” must be at most 10 characters')).toBeVisible();
  await expect(box).toHaveValue('eleven-char');
  await expect(dialog.locator('.ant-tag')).toHaveCount(9);
  // Ten characters are taken: the tenth tag.
  await box.fill('');
  await box.pressSequentially('ten-chars!\n');
  await expect(box).toHaveValue('');
  await expect(dialog.locator('.ant-tag', { hasText: 'ten-chars!' })).toBeVisible();
  // An eleventh tag cannot be added: it stays in the box, refused in words.
  await box.pressSequentially('one-more\n');
  await expect(dialog.getByText('Tags can have at most 10 entries')).toBeVisible();
  await expect(box).toHaveValue('one-more');
  await expect(dialog.locator('.ant-tag')).toHaveCount(10);
  await box.fill('');
  // Each tag has its own named remove cross, and removing one makes room again.
  await dialog.getByRole('img', { name: 'Remove tag-0' }).click();
  await expect(dialog.locator('.ant-tag')).toHaveCount(9);
  await box.pressSequentially('one-more\n');
  await expect(dialog.locator('.ant-tag')).toHaveCount(10);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved')).toBeVisible();
  const device = page.locator('.ant-card').filter({ has: page.locator('.ant-card-head-title', { hasText: /^Device$/ }) });
  await expect(device).toContainText('ten-chars!');
  await expect(device).toContainText('one-more');
  await expect(device).toContainText('tag-8');
  await expect(device).not.toContainText('tag-0');
});

test('a user goes through every tab of a SIM: the tab stays in the address, the chart draws, the trace and the diagnose PDF download', async ({
  page,
  request,
}) => {
  // An active SIM with a month of CDRs in the demo data (the first live ones carry traffic).
  const s = await apiSession(request, 'user@demo.example.com');
  const list = await (
    await request.post('/api/main/sim/list/es', { headers: s.as('DEMO'), data: { status: 'active', pageSize: 1, page: 1, sort: 'iccid', order: 'asc' } })
  ).json();
  const iccid = list.data.items[0].iccid as string;
  await signIn(page, 'user@demo.example.com');
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`/en-US/sim/detail?iccid=${iccid}`);
  const tab = (name: string) => page.getByRole('tab', { name, exact: true });
  await expect(tab('Basic')).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('.ant-card-head-title', { hasText: /^Lifecycle$/ })).toBeVisible();

  await tab('Connection').click();
  await expect(page).toHaveURL(/[?&]tab=connection/);
  await expect(page.getByText('Connection status')).toBeVisible();
  await page.reload();
  await expect(tab('Connection')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByText('Connection status')).toBeVisible();
  await page.getByRole('button', { name: 'Refresh' }).click();

  await tab('Bundles').click();
  const bundles = page.getByRole('tabpanel');
  await expect(bundles.getByText('In use').first()).toBeVisible();
  await bundles
    .getByRole('button', { name: /expand row/i })
    .first()
    .click();
  await expect(bundles.getByText(/^Coverage countries \(\d+\)$/).first()).toBeVisible();
  await expect(bundles.getByText('Overuse policy').first()).toBeVisible();

  await tab('Usage').click();
  await expect(page).toHaveURL(/[?&]tab=usage/);
  await expect(page.getByRole('img', { name: 'Data volume per period, uplink and downlink' }).locator('canvas')).toBeVisible();
  await page.getByText('Monthly', { exact: true }).click();
  await expect(page.getByText('Last 12 months')).toBeVisible();
  await expect(page.getByRole('img', { name: 'Data volume per period, uplink and downlink' }).locator('canvas')).toBeVisible();

  await tab('Events').click();
  await expect(page.getByRole('tabpanel').getByText('Status change').first()).toBeVisible();
  await page.getByText('Status trace', { exact: true }).click();
  await expect(page.getByRole('tabpanel').getByRole('row')).not.toHaveCount(0);
  const csv = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download status trace (CSV)' }).click();
  expect((await csv).suggestedFilename()).toBe(`status-trace-${iccid}.csv`);

  await tab('Diagnose').click();
  await expect(page.getByText('SIM state')).toBeVisible();
  await expect(page.getByText('The SIM is active: it may pass data.')).toBeVisible();
  const pdf = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download PDF' }).click();
  const file = await pdf;
  expect(file.suggestedFilename()).toBe(`diagnose-${iccid}.pdf`);
  const fs = await import('node:fs');
  expect(
    fs
      .readFileSync((await file.path())!)
      .subarray(0, 5)
      .toString('latin1'),
  ).toBe('%PDF-');

  await tab('CDRs').click();
  await expect(page.getByText('CDRs of the last 31 days, newest first.')).toBeVisible();
  await expect(page.getByRole('tabpanel').getByRole('columnheader', { name: 'RAT', exact: true })).toBeVisible();
  await expect(page.getByRole('tabpanel').getByRole('row').nth(1)).toContainText(/\d/);

  await tab('SMS').click();
  await expect(page.getByRole('tabpanel').getByRole('columnheader', { name: 'Direction' })).toBeVisible();
  await expect(page).toHaveURL(/[?&]tab=sms/);
  expect(errors).toEqual([]);
});
