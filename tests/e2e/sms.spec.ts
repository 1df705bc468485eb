/**
 * All SMS and instant send: an operator finds a SIM by its last digits, sends it an SMS, sees it delivered
 * and the device's answer under it, and answers that; the same in Chinese with a refusal SIM by SIM; a user reads but has no send or
 * reply. The network delivers each SMS a moment after hand-off and the device always answers (e2e-env.ts); the page
 * hears of it over the live stream (SSE), not by polling.
 */
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, signIn } from './helpers';

/** An active SIM of Demo with a number, taken from the low end of the list (other specs suspend the high end). */
async function activeSim(request: APIRequestContext, skip = 0): Promise<string> {
  const s = await apiSession(request, 'operator@demo.example.com');
  const res = await request.post('/api/main/sim/list/es', { headers: s.as('DEMO'), data: { status: 'active', pageSize: 5, sort: 'iccid', order: 'asc' } });
  return (await res.json()).data.items[skip].iccid as string;
}

test("an operator sends an SMS to a SIM found by its last digits, sees it delivered and the device's answer under it", async ({ page, request }) => {
  const iccid = await activeSim(request, 1);
  await signIn(page, 'operator@demo.example.com');
  await page.goto('/en-US/sim/simCard');
  await page.getByRole('textbox', { name: 'Whole value or last characters' }).fill(iccid.slice(-8));
  const row = page.getByRole('row').filter({ hasText: iccid });
  await expect(page.getByRole('row').filter({ has: page.getByRole('cell') })).toHaveCount(1);
  await row.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Send SMS' }).click();

  const drawer = page.getByRole('dialog', { name: 'Send an SMS' });
  await expect(drawer.getByRole('textbox', { name: 'ICCIDs' })).toHaveValue(iccid);
  await expect(drawer).toContainText('SMS balance');
  await expect(drawer.getByTestId('sms-counter')).toHaveText('0 / 140 characters');
  await drawer.getByRole('textbox', { name: 'Content' }).fill('PING');
  await expect(drawer.getByTestId('sms-counter')).toHaveText('4 / 140 characters');
  await drawer.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(drawer.getByText('1 sent, 0 refused')).toBeVisible();
  await drawer.getByRole('button', { name: 'Done' }).click();

  await page.getByRole('textbox', { name: 'Whole value or last digits' }).fill(iccid.slice(-6));
  const sent = page.getByRole('row').filter({ hasText: 'PING' }).filter({ hasText: iccid }).first();
  await expect(sent.getByText('Delivered')).toBeVisible();
  await expect(sent.getByRole('link', { name: iccid })).toHaveAttribute('href', new RegExp(`/en-US/sim/detail\\?iccid=${iccid}`));
  const thread = page.getByRole('list', { name: '1 reply' }).first();
  await expect(thread).toContainText('PONG');
  await expect(thread).toContainText('From device');
  await expect(thread).toContainText('Received');

  // The operator answers the device from its message in the thread; the answer joins the thread.
  await thread.getByRole('button', { name: 'Reply' }).click();
  const reply = page.getByRole('dialog', { name: `Reply to ${iccid}` });
  await expect(reply).toContainText('Answering: “PONG”');
  await reply.getByRole('textbox', { name: 'Content' }).fill('ACK');
  await reply.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText('Reply sent.')).toBeVisible();
  // The page asked for itself once the reply was sent (ACK "sent"); the network delivers it 300 ms later, and only the
  // live stream can tell the page so within this wait (the page no longer polls; its fallback, while the stream is
  // down, is every 30 s). (The device answers the ACK in turn, so the thread may already hold three.)
  const ack = page
    .getByRole('list', { name: /^[23] replies$/ })
    .first()
    .getByRole('listitem')
    .filter({ hasText: 'ACK' });
  await expect(ack.getByText('Delivered')).toBeVisible();

  // An SMS sent from elsewhere (the API) while the page sits still: nothing on the page asks for it, so only the live
  // stream (its delivery, an event of the organisation) can bring it onto the page.
  const s = await apiSession(request, 'operator@demo.example.com');
  const elsewhere = await request.post('/api/main/sms/send', { headers: s.as('DEMO'), data: { iccids: [iccid], content: 'FROM API' } });
  expect(elsewhere.status()).toBe(200);
  await expect(page.getByRole('row').filter({ hasText: 'FROM API' }).filter({ hasText: iccid }).first().getByText('Delivered')).toBeVisible();
});

test('in Chinese, an operator sends to pasted ICCIDs and sees each refused one with its reason', async ({ page, request }) => {
  const iccid = await activeSim(request, 2);
  const other = await apiSession(request, 'admin@other.example.com');
  const foreign = (await (await request.post('/api/main/sim/list/es', { headers: other.as('OTHER'), data: { pageSize: 1 } })).json()).data.items[0]
    .iccid as string;
  await signIn(page, 'operator@demo.example.com');
  await page.goto('/zh-CN/message');
  await page.getByRole('button', { name: '发送短信' }).click();
  const drawer = page.getByRole('dialog', { name: '发送短信' });
  await drawer.getByRole('textbox', { name: 'ICCID' }).fill(`${iccid}\n${foreign}`);
  await drawer.getByRole('textbox', { name: '内容' }).fill('STATUS?');
  await expect(drawer.getByTestId('sms-counter')).toHaveText('7 / 140 个字符');
  await drawer.getByRole('button', { name: /^发\s?送$/ }).click();
  await expect(drawer.getByText('已发送 1 条，拒绝 1 条')).toBeVisible();
  await expect(drawer.getByRole('row').filter({ hasText: foreign })).toContainText('设备（ICCID）不存在');
  await drawer.getByRole('button', { name: /^完\s?成$/ }).click();

  await page.getByRole('textbox', { name: '完整值或末尾数字' }).fill(iccid.slice(-6));
  const sent = page.getByRole('row').filter({ hasText: 'STATUS?' }).first();
  await expect(sent.getByText('已送达')).toBeVisible();
  await expect(page.getByRole('list', { name: '1 条回复' }).first()).toContainText('OK');
});

test('a user reads All SMS but has no send or reply button', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.goto('/en-US/message');
  await expect(page.getByRole('heading', { name: 'All SMS' })).toBeVisible();
  await expect(page.getByText('SMS balance')).toBeVisible();
  await expect(
    page
      .getByRole('row')
      .filter({ has: page.getByRole('cell') })
      .first(),
  ).toBeVisible();
  await page.getByRole('combobox', { name: 'Direction' }).click({ force: true });
  await page.locator('.ant-select-dropdown').getByTitle('From device (MO)').click();
  // Each message's row links its SIM; the rows of threads under them do not.
  const heads = page.getByRole('row').filter({ has: page.getByRole('link') });
  await expect.poll(async () => (await heads.allTextContents()).every((r) => r.includes('From device'))).toBe(true);
  await expect(heads.first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send SMS' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Reply' })).toHaveCount(0);
});
