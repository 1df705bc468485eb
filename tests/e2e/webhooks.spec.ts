/**
 * Webhooks as a customer meets them: a receiver of their own over HTTPS (a certificate made by openssl in
 * the global set-up, trusted by the server through NODE_EXTRA_CA_CERTS), set up on the Developer page, and a SIM
 * suspended on its page arriving there signed, verified with the `standardwebhooks` package.
 */
import { Webhook } from 'standardwebhooks';
import { type APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures';
import { httpsReceiver } from '../test-tls';
import { apiSession, signIn } from './helpers';

const activeSim = async (request: APIRequestContext) => {
  const s = await apiSession(request, 'admin@demo.example.com');
  const res = await request.post('/api/main/sim/list/es', {
    headers: s.as('DEMO'),
    data: { status: 'active', pageSize: 1, page: 7, sort: 'iccid', order: 'desc' },
  });
  return (await res.json()).data.items[0].iccid as string;
};

test('an admin points the webhook at their HTTPS receiver; a SIM suspended on its page arrives signed and shows in the notification log', async ({
  page,
  request,
}) => {
  const rx = await httpsReceiver();
  try {
    const iccid = await activeSim(request);
    await signIn(page, 'admin@demo.example.com');
    await page.goto('/en-US/developerView?tab=webhook');
    await page.getByRole('button', { name: 'Show secret' }).click();
    const secret = (await page.getByText(/^whsec_/).textContent())!.trim();
    await page.getByLabel('Webhook URL', { exact: true }).fill(rx.url);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Webhook URL saved')).toBeVisible();
    const on = page.getByRole('switch', { name: 'Send events to the webhook URL' });
    if ((await on.getAttribute('aria-checked')) !== 'true') await on.click();
    await expect(on).toHaveAttribute('aria-checked', 'true');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect(page.getByText('Delivered: your receiver answered 200.')).toBeVisible();

    await page.goto(`/en-US/sim/detail?iccid=${iccid}`);
    await page.getByRole('button', { name: 'Suspend' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Suspend' }).click();
    const ofSim = () => rx.received.filter((r) => JSON.parse(r.body).subtype === 'status_change' && JSON.parse(r.body).data.iccid === iccid);
    await expect.poll(() => ofSim().length, { timeout: 30_000 }).toBe(1);
    const [suspended] = ofSim();
    const verified = new Webhook(secret).verify(suspended.body, suspended.headers);
    expect(verified).toMatchObject({ type: 'sim', subtype: 'status_change', data: { iccid, from: 'active', to: 'paused', source: 'console' } });
    expect(() => new Webhook(secret).verify(suspended.body.replace('paused', 'active'), suspended.headers)).toThrow();

    await page.goto('/en-US/developerView?tab=notificationLog');
    const row = page.getByRole('row').filter({ hasText: rx.url }).filter({ hasText: '200' }).first();
    await expect(row).toBeVisible();

    // Off again: the receiver closes with this test, and nothing more is sent to it.
    await page.goto('/en-US/developerView?tab=webhook');
    await page.getByRole('switch', { name: 'Send events to the webhook URL' }).click();
    await expect(page.getByRole('switch', { name: 'Send events to the webhook URL' })).toHaveAttribute('aria-checked', 'false');
  } finally {
    await rx.close();
  }
});
