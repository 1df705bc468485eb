/**
 * What a SIM's bundles do to it, on its page: the data-policy notice says it is slowed and why (here an
 * automation rule's throttle, made by the real engine when the SIM is suspended); the service tab, the cycles with a
 * cycle's detail, the bundle queue; and the bundle orders list's view by product with its exports.
 */
import { expect, test } from './fixtures';
import { apiSession, signIn } from './helpers';

test("a throttled SIM's page says it is slowed and why, and shows its service, cycles and bundle queue", async ({ page, request }) => {
  const s = await apiSession(request, 'admin@demo.example.com');
  const headers = s.as('DEMO');
  const list = await request.post('/api/main/sim/list/es', {
    headers,
    data: { status: 'active', technology: 'ONE_IMSI', pageSize: 1, page: 7, sort: 'iccid', order: 'asc' },
  });
  const iccid = (await list.json()).data.items[0].iccid as string;
  // A rule that slows this SIM to 128 kbps when it is suspended: the engine runs it, as it would for a customer.
  const rule = `Slow ${iccid.slice(-6)}`;
  const created = await request.post('/api/rule/auto_flow/cube/rules', {
    headers,
    data: {
      name: rule,
      trigger: { type: 'status_change', from: 'active', to: 'paused' },
      scope: { type: 'iccids', iccids: [iccid] },
      actions: [{ type: 'throttle', speedKbps: 128 }],
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  expect((await request.post('/api/main/sim/suspend', { headers, data: { iccids: [iccid] } })).status()).toBe(200);
  await expect
    .poll(async () => (await (await request.get(`/api/main/sim/bundle/overuse_policy/${iccid}`, { headers })).json()).data.control, { timeout: 30_000 })
    .toBe('throttle_128');
  expect((await request.post('/api/main/sim/resume', { headers, data: { iccids: [iccid] } })).status()).toBe(200);

  await signIn(page, 'admin@demo.example.com');
  await page.goto(`/en-US/sim/detail?iccid=${iccid}`);
  const notice = page.getByTestId('data-policy');
  await expect(notice).toContainText('Data slowed to 128 kbps');
  await expect(notice).toContainText(`The automation rule “${rule}” slowed this SIM's data`);
  await expect(notice).toContainText('a new cycle does not release it');

  await page.getByRole('tab', { name: 'Service' }).click();
  const service = page.getByTestId('sim-service');
  await expect(service).toContainText('Slowed to 128 kbps');
  await expect(service).toContainText('Bundles in use');
  await expect(page.getByTestId('sim-periods')).toContainText('Pre-activated period');
  await expect(page.getByTestId('sim-card')).toContainText('Only pre-activated SIMs can be activated.');

  await page.getByRole('tab', { name: 'Cycles' }).click();
  const cycles = page.getByTestId('cycles');
  await expect(cycles.getByRole('row').nth(1)).toBeVisible();
  await expect(cycles.getByRole('row').nth(1)).toContainText('Now');
  await cycles.getByRole('row').nth(1).getByRole('button').first().click();
  const detail = page.getByTestId('cycle-detail');
  await expect(detail).toContainText('Uplink');
  await expect(detail).toContainText('CDRs');
  await page.keyboard.press('Escape');

  await page.getByRole('tab', { name: 'Bundles' }).click();
  const queue = page.getByTestId('bundle-queue');
  await expect(queue).toContainText('Counts the cycle');
  await expect(queue.getByRole('button', { name: 'Cancel' }).first()).toBeVisible();
});

test('the bundle orders list shows the bundles by product and exports their coverage through the task center', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.goto('/en-US/sim/service');
  await page.getByRole('button', { name: 'By bundle' }).click();
  await expect(page).toHaveURL(/view=bundles/);
  await expect(page.getByRole('heading', { name: 'Bundles by product' })).toBeVisible();
  const table = page.getByTestId('bundle-summary');
  await expect(table.getByRole('row').nth(1)).toBeVisible();
  await page.getByRole('button', { name: 'Export coverage' }).click();
  await page.getByRole('menuitem', { name: 'Coverage countries as CSV' }).click();
  await expect(page.getByText(/Export of [\d,]+ started/)).toBeVisible();
  await page.getByRole('button', { name: 'Orders' }).click();
  await expect(page).not.toHaveURL(/view=bundles/);
});
