/**
 * Webhooks as a customer meets them (issue 16): a receiver of their own over HTTPS (a certificate made by openssl in
 * the global set-up, trusted by the server through NODE_EXTRA_CA_CERTS), set up on the Developer page, and a SIM
 * suspended on its page arriving there signed, verified with the `standardwebhooks` package.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { type APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, signIn } from './helpers';

interface Received {
  headers: Record<string, string>;
  body: string;
}

async function receiver() {
  const dir = process.env.TEST_TLS_DIR!;
  const received: Received[] = [];
  const server = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const activeSim = async (request: APIRequestContext) => {
  const s = await apiSession(request, 'admin@demo.example.com');
  const res = await request.post('/api/main/sim/list/es', { headers: s.as('DEMO'), data: { status: 'active', pageSize: 1, page: 7, sort: 'iccid', order: 'desc' } });
  return (await res.json()).data.items[0].iccid as string;
};

test('an admin points the webhook at their HTTPS receiver; a SIM suspended on its page arrives signed and shows in the notification log', async ({ page, request }) => {
  const rx = await receiver();
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
