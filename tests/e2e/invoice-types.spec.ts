/**
 * The other invoice types on the invoice page: the provider's back office issues a credit note against a paid invoice
 * and edits a draft's settlement details (a wrong IBAN refused by its check digits, then saved), and sees what the
 * demo's last post-payment invoice drew on the paid deposit when it was issued, in en-US and zh-CN; and a deposit
 * requested and paid on the pages pays part of an invoice issued before it.
 */
import { expect, test } from './fixtures';
import { apiSession, BACK_OFFICE, signIn } from './helpers';

const BILLS = '/api/customer/cube/v2/api/customer/bills';

const WORDS = {
  'en-US': {
    credit: 'Issue credit note',
    creditTitle: 'Issue a credit note',
    amount: 'Amount',
    reason: 'Reason',
    credited: /Credit note CRN-\S+ issued/,
    creditType: 'Credit',
    editSettlement: 'Settlement details',
    settlementTitle: 'Edit settlement details',
    customer: 'Settlement customer',
    iban: 'IBAN',
    taxRate: 'Tax rate',
    save: 'Save',
    badIban: 'This IBAN is not valid (its check digits do not match)',
    saved: 'Settlement details saved',
    card: 'Settlement details',
    fromDeposit: 'Paid from deposit',
    depositLeft: 'Deposit left',
  },
  'zh-CN': {
    credit: '开具贷项通知单',
    creditTitle: '开具贷项通知单',
    amount: '金额',
    reason: '原因',
    credited: /贷项通知单 CRN-\S+ 已开具/,
    creditType: '贷项',
    editSettlement: '结算信息',
    settlementTitle: '编辑结算信息',
    customer: '结算客户',
    iban: 'IBAN',
    taxRate: '税率',
    save: /^保\s?存$/,
    badIban: '该 IBAN 无效（校验位不匹配）',
    saved: '结算信息已保存',
    card: '结算信息',
    fromDeposit: '已从押金支付',
    depositLeft: '剩余押金',
  },
} as const;

for (const [lang, w] of Object.entries(WORDS)) {
  test(`the provider's back office issues a credit note and edits a draft's settlement details (${lang})`, async ({ page, request }) => {
    const api = await apiSession(request, BACK_OFFICE);
    const list = async (body: object) =>
      (await (await request.post(BILLS, { headers: api.as('DEMO'), data: { pageSize: 50, ...body } })).json()).data.items as Array<{
        id: string;
        amountInclTax: number;
      }>;
    const paid = (await list({ status: 'paid', type: 'post_payment' })).filter((i) => i.amountInclTax >= 20);
    const draft = (await list({ status: 'draft' }))[0];
    expect(paid.length).toBeGreaterThanOrEqual(2);
    expect(draft).toBeDefined();
    await signIn(page, BACK_OFFICE);

    // A credit note against a paid invoice: it opens as an invoice of its own, its amount negative.
    await page.goto(`/${lang}/financeDetailsPage?id=${paid[lang === 'en-US' ? 0 : 1].id}`);
    await page.getByRole('button', { name: w.credit }).click();
    const credit = page.getByRole('dialog', { name: w.creditTitle });
    await credit.getByLabel(new RegExp(`^${w.amount}`)).fill('10.00');
    await credit.getByLabel(w.reason).fill(lang === 'en-US' ? 'Two days of outage' : '两天服务中断');
    await credit.getByRole('button', { name: w.credit }).click();
    await expect(page.getByText(w.credited)).toBeVisible();
    const summary = page.locator('.ant-descriptions').first();
    await expect(summary.getByText(w.creditType, { exact: true })).toBeVisible();
    await expect(
      page
        .locator('.ant-descriptions')
        .getByText(/-€10\.00/)
        .first(),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: w.credit })).toHaveCount(0);

    // A draft's settlement details: a wrong IBAN is refused by its check digits, then the details are saved.
    await page.goto(`/${lang}/financeDetailsPage?id=${draft.id}`);
    await page.getByRole('button', { name: w.editSettlement }).click();
    const edit = page.getByRole('dialog', { name: w.settlementTitle });
    await edit.getByLabel(w.customer).fill(lang === 'en-US' ? 'Demo Logistics Settlement GmbH' : '演示物流结算有限公司');
    await edit.getByLabel(w.iban).fill('GB82 WEST 1234 5698 7654 33');
    await edit.getByRole('button', { name: w.save }).click();
    await expect(edit.getByText(w.badIban)).toBeVisible();
    await expect(edit.locator('.ant-form-item-has-error')).toHaveCount(1);
    await edit.getByLabel(w.iban).fill('GB82 WEST 1234 5698 7654 32');
    await edit.getByLabel(w.taxRate).fill('20');
    await edit.getByRole('button', { name: w.save }).click();
    await expect(page.getByText(w.saved)).toBeVisible();
    const card = page.getByTestId('settlement-card');
    await expect(card.locator('.ant-card-head-title')).toHaveText(w.card);
    await expect(card).toContainText('GB82WEST12345698765432');
    await expect(card).toContainText('20%');
  });
}

for (const [lang, w] of Object.entries(WORDS)) {
  test(`an invoice issued after a deposit was paid shows what it drew on the deposit (${lang})`, async ({ page, request }) => {
    const api = await apiSession(request, BACK_OFFICE);
    const get = async (url: string) => (await (await request.get(url, { headers: api.as('DEMO') })).json()).data;
    const issued = (await (await request.post(BILLS, { headers: api.as('DEMO'), data: { pageSize: 50, type: 'post_payment', status: 'published' } })).json())
      .data.items as Array<{ id: string }>;
    let drawn: { id: string; amount: number } | undefined;
    for (const inv of issued) {
      const draw = ((await get(`${BILLS}/${inv.id}/settles`)).items as Array<{ kind: string; amount: number }>).find((s) => s.kind === 'deposit');
      if (draw) drawn = { id: inv.id, amount: draw.amount };
    }
    expect(drawn, 'the demo seed issues an invoice that draws on the deposit').toBeDefined();
    await signIn(page, BACK_OFFICE);
    await page.goto(`/${lang}/financeDetailsPage?id=${drawn!.id}`);
    const amount = new Intl.NumberFormat(lang, { style: 'currency', currency: 'EUR' }).format(drawn!.amount);
    const card = page.getByTestId('settlement-card');
    await expect(card.locator('.ant-descriptions-item').filter({ hasText: w.fromDeposit })).toContainText(amount);
    await expect(card.getByTestId('deposit-applied')).toHaveText(amount);
    await expect(card.locator('.ant-descriptions-item').filter({ hasText: w.depositLeft }).getByTestId('deposit-left')).toBeVisible();
    // Among the payments, the draw is named, not its reference.
    await expect(page.locator('.ant-table-row').filter({ hasText: w.fromDeposit }).filter({ hasText: amount })).toBeVisible();
  });
}

test('a deposit paid after an invoice was issued pays part of it, shown on that invoice (en-US)', async ({ page, request }) => {
  const api = await apiSession(request, BACK_OFFICE);
  const get = async (url: string) => (await (await request.get(url, { headers: api.as('DEMO') })).json()).data;
  /** What each issued, unpaid post-payment invoice of org-demo has drawn on the deposit, in cents. */
  const bills = new Map<string, string>();
  const draws = async () => {
    const open = (await (await request.post(BILLS, { headers: api.as('DEMO'), data: { pageSize: 50, type: 'post_payment', status: 'published' } })).json()).data
      .items as Array<{ id: string; billId: string }>;
    for (const inv of open) bills.set(inv.id, inv.billId);
    const sums = await Promise.all(
      open.map(async (inv) =>
        ((await get(`${BILLS}/${inv.id}/settles`)).items as Array<{ kind: string; amount: number }>)
          .filter((s) => s.kind === 'deposit')
          .reduce((n, s) => n + Math.round(s.amount * 100), 0),
      ),
    );
    return new Map(open.map((inv, i) => [inv.id, sums[i]]));
  };
  const before = await draws();
  expect(before.size, 'the demo has an issued invoice not yet paid').toBeGreaterThan(0);

  await signIn(page, BACK_OFFICE);
  await page.goto('/en-US/finance');
  await page.getByRole('button', { name: 'Request deposit' }).click();
  const ask = page.getByRole('dialog', { name: 'Request deposit' });
  await ask.getByLabel(/^Amount/).fill('1.00');
  await ask.getByRole('button', { name: 'Request' }).click();
  await expect(page.getByText(/Deposit invoice DEP-\S+ issued/)).toBeVisible();
  await page.getByRole('button', { name: 'Record payment' }).click();
  const pay = page.getByRole('dialog', { name: 'Record payment' });
  await pay.getByLabel(/^Amount/).fill('1.00');
  await pay.getByLabel('Reference').fill('SEPA-E2E-DEPOSIT');
  await pay.getByRole('button', { name: 'Record payment' }).click();
  const notice = page.locator('.ant-notification-notice');
  await expect(notice).toContainText('Payment recorded. The deposit paid 1 earlier invoice:');

  // The 1.00 went at once to one invoice issued before, which stays issued (it asked for more).
  const after = await draws();
  const gained = [...after].filter(([id, cents]) => cents !== (before.get(id) ?? 0));
  expect(gained.map(([id, cents]) => [id, cents - (before.get(id) ?? 0)])).toEqual([[gained[0]?.[0], 100]]);
  // The person is told so, in a notice that stays: which invoice, how much, that it still asks for more; its link opens it.
  const billId = bills.get(gained[0][0])!;
  await expect(notice.getByRole('listitem')).toHaveText([`${billId} €1.00 from the deposit, part still due`]);
  await notice.getByText(billId).click();
  await expect(page).toHaveURL(new RegExp(`financeDetailsPage\\?id=${gained[0][0]}$`));
  await expect(notice).toHaveCount(0);
  await expect(page.getByTestId('settlement-card').getByTestId('deposit-applied')).toHaveText(
    new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(gained[0][1] / 100),
  );
  await expect(page.locator('.ant-table-row').filter({ hasText: 'Paid from deposit' }).filter({ hasText: '€1.00' })).toBeVisible();
});

test('the credit dialog offers what is left to credit, not the invoice’s total, and says so when more is typed (en-US)', async ({ page, request }) => {
  const api = await apiSession(request, BACK_OFFICE);
  const headers = api.as('DEMO');
  // A paid invoice not credited yet (the tests above credit the first two), then 10.00 of it credited.
  const paid = (await (await request.post(BILLS, { headers, data: { pageSize: 50, status: 'paid', type: 'post_payment' } })).json()).data.items as Array<{
    id: string;
    amountInclTax: number;
  }>;
  const creditable = [];
  for (const inv of paid)
    if (
      inv.amountInclTax >= 20 &&
      (await (await request.get(`${BILLS}/${inv.id}/settlement`, { headers })).json()).data.creditLeftMinor === Math.round(inv.amountInclTax * 100)
    )
      creditable.push(inv);
  const inv = creditable.at(-1)!;
  expect(inv, 'a paid invoice of 20.00 or more not credited yet').toBeDefined();
  expect((await request.post(`${BILLS}/${inv.id}/credit`, { headers, data: { amountMinor: 1000, reason: 'Earlier note' } })).status()).toBe(200);
  const left = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(inv.amountInclTax - 10);
  const notes = async () => ((await (await request.post(BILLS, { headers, data: { pageSize: 100, type: 'credit' } })).json()).data.items as unknown[]).length;
  const before = await notes();

  await signIn(page, BACK_OFFICE);
  await page.goto(`/en-US/financeDetailsPage?id=${inv.id}`);
  await page.getByRole('button', { name: 'Issue credit note' }).click();
  const credit = page.getByRole('dialog', { name: 'Issue a credit note' });
  await expect(credit.getByText(`Left to credit: ${left}.`)).toBeVisible();
  // The whole total, which the dialog allowed before, is kept as typed and refused naming what is left.
  const amount = credit.getByLabel(/^Amount/);
  await amount.fill(inv.amountInclTax.toFixed(2));
  await credit.getByLabel('Reason').fill('Too much');
  await credit.getByRole('button', { name: 'Issue credit note' }).click();
  await expect(credit.getByText(`At most ${left} is left to credit on this invoice: its total less the credit notes already issued.`)).toBeVisible();
  await expect(amount).toHaveValue(inv.amountInclTax.toFixed(2));
  expect(await notes()).toBe(before);
  // What is left exactly is issued.
  await amount.fill((inv.amountInclTax - 10).toFixed(2));
  await credit.getByRole('button', { name: 'Issue credit note' }).click();
  await expect(page.getByText(/Credit note CRN-\S+ issued/)).toBeVisible();
  expect(await notes()).toBe(before + 1);
});
