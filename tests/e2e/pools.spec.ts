/** Shared pools: list, detail with usage, settings, activity and events, rename; the menu entry only where pools exist. */
import { expect, test } from './fixtures';
import { fillAndPress, signIn } from './helpers';

test('an admin opens a pool: usage, settings, activity, events, and renames it', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('menuitem', { name: 'SIM', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Shared pools' }).click();
  await expect(page.getByRole('heading', { name: 'Shared pools' })).toBeVisible();
  await page.getByRole('link', { name: 'EU Fleet Pool' }).click();

  await expect(page.getByRole('heading', { name: 'EU Fleet Pool' })).toBeVisible();
  await expect(page.getByRole('progressbar', { name: 'Current usage' })).toBeVisible();
  await expect(page.getByText(/ of .* used/)).toBeVisible();
  for (const section of ['Overview', 'Usage this cycle', 'Settings'])
    await expect(page.locator('.ant-card-head-title').getByText(section, { exact: true })).toBeVisible();
  await expect(page.locator('.ant-descriptions').getByText('No limit')).toBeVisible();

  // Activity: the SIMs of the pool; Events: filtered by type.
  await expect(page.getByRole('tabpanel').getByRole('row').nth(1)).toContainText(/89\d{17}/);
  await page.getByRole('tab', { name: 'Events' }).click();
  await expect(page.getByRole('tabpanel', { name: 'Events' }).getByRole('row').nth(1)).toBeVisible();

  await page.getByRole('button', { name: 'Rename' }).click();
  const dialog = page.getByRole('dialog');
  const [name, save] = [dialog.getByRole('textbox', { name: 'Name' }), dialog.getByRole('button', { name: 'Save' })];
  await fillAndPress(name, '   ', save, dialog.getByText('has the wrong format'));
  await fillAndPress(name, 'cold chain pool', save, dialog.getByText('Name is already in use'));
  await fillAndPress(name, 'EU Fleet Pool 2026', save, page.getByText('Renamed to EU Fleet Pool 2026'));
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

test("the pool dashboard draws its four charts and the pool's SIMs; an admin changes the settings", async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/sim/shared');
  await page.getByRole('link', { name: 'EU Fleet Pool' }).click();
  await expect(page.getByRole('tab', { name: 'Dashboard', selected: true })).toBeVisible();
  // Each chart is drawn on its canvas once its call answered.
  for (const chart of ['Usage now against the limit', 'Usage over the cycle', 'Usage per day or per SIM group', 'Top SIMs this cycle']) {
    await expect(page.getByRole('img', { name: chart }).locator('canvas')).toBeVisible();
  }
  await page.getByText('Per SIM group', { exact: true }).click();
  await expect(page.getByRole('img', { name: 'Usage per day or per SIM group' }).locator('canvas')).toBeVisible();
  const members = page.getByRole('table', { name: 'SIMs of the pool' });
  await expect(members.getByRole('row').nth(1)).toContainText(/89\d{17}/);
  await expect(members.getByRole('row').nth(1)).toContainText(/Enrolled|Stopped for overage|Waiting for activation/);

  await page.getByRole('tab', { name: 'Settings' }).click();
  const panel = page.getByRole('tabpanel', { name: 'Settings' });
  await expect(panel.getByRole('textbox', { name: 'Name' })).toHaveValue('EU Fleet Pool');
  await panel.getByRole('radio', { name: 'Manual' }).check();
  await panel.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Settings saved')).toBeVisible();
  // The settings tab stays shown; the page's own settings section says the same after the change.
  await expect(panel.getByRole('radio', { name: 'Manual' })).toBeChecked();
  await expect(page.locator('.ant-descriptions').getByText('Manual', { exact: true })).toBeVisible();
  // A name of spaces is refused in the form, and nothing is sent.
  await panel.getByRole('textbox', { name: 'Name' }).fill('   ');
  await panel.getByRole('button', { name: 'Save settings' }).click();
  await expect(panel.getByText('Enter a name')).toBeVisible();
  await panel.getByRole('textbox', { name: 'Name' }).fill('EU Fleet Pool');
  // Back to the seed's value for the specs that follow.
  await panel.getByRole('radio', { name: 'Automatic' }).check();
  await panel.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.locator('.ant-descriptions').getByText('Automatic', { exact: true })).toBeVisible();
});

test("a user reads the pool's settings but may not change them, in the console and at the server", async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.goto('/en-US/sim/shared');
  await page.getByRole('link', { name: 'EU Fleet Pool' }).click();
  await page.getByRole('tab', { name: 'Settings' }).click();
  const panel = page.getByRole('tabpanel', { name: 'Settings' });
  await expect(panel.getByText('Only an administrator can change these settings.')).toBeVisible();
  await expect(panel.getByRole('radio', { name: 'No limit' })).toBeDisabled();
  await expect(panel.getByRole('button', { name: 'Save settings' })).toHaveCount(0);
  // The server refuses the change too (the console's hiding is a convenience).
  const status = await page.evaluate(async () => {
    const partner = localStorage.getItem('partnerCode') ?? '';
    const id = location.pathname.split('/').pop();
    const res = await fetch(`/api/pool/shared_pool/cube/pools/${id}/settings`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${localStorage.getItem('token') ?? ''}`,
        partnerCode: partner,
        tenantId: partner,
        timestamp: String(Date.now()),
        timezone: 'UTC',
        language: 'en-US',
      },
      body: '{"optInMode":"manual"}',
    });
    return res.status;
  });
  expect(status).toBe(403);
});
