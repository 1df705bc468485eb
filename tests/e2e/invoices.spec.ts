/** Invoices: the list, an invoice's detail, its PDF download and its SIM lines. */
import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, BACK_OFFICE, openFirstInvoice, pdfText, signIn } from './helpers';

test('an admin opens an invoice, downloads its PDF and reads its SIM lines', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  // A paid post-payment invoice: the newest paid one of the demo is its deposit, whose one line has no SIM.
  await openFirstInvoice(
    page,
    [
      ['Status', 'Paid'],
      ['Type', 'Post-payment'],
    ],
    'Paid',
  );
  for (const section of ['Summary', 'Amounts', 'Charges and usage'])
    await expect(page.locator('.ant-card-head-title').getByText(section, { exact: true })).toBeVisible();
  await expect(page.locator('.ant-descriptions').getByText(/€|EUR/).first()).toBeVisible();

  const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()]);
  expect(pdf.suggestedFilename()).toMatch(/\.pdf$/);
  const bytes = fs.readFileSync((await pdf.path())!);
  expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');

  await page.getByRole('button', { name: 'SIM details' }).click();
  await expect(page.getByRole('heading', { name: /^SIM details of / })).toBeVisible();
  // The invoice's SIM lines only: a pool's line (no SIM, no ICCID) is in the pool details, not first in this list.
  await expect(page.locator('.ant-table-row').first()).toContainText(/89\d{17}/);
  await expect(page.getByRole('menuitem', { name: 'Invoices' })).toHaveClass(/selected/);
});

test('the SIM details of an invoice name it in their Invoice filter, in en-US and zh-CN', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await openFirstInvoice(
    page,
    [
      ['Status', 'Paid'],
      ['Type', 'Post-payment'],
    ],
    'Paid',
  );
  await page.getByRole('button', { name: 'SIM details' }).click();
  const heading = page.getByRole('heading', { name: /^SIM details of / });
  await expect(heading).toHaveText(/^SIM details of \S+-\d{6}-/);
  const bill = (await heading.textContent())!.replace('SIM details of ', '');
  const month = `${bill.split('-')[1].slice(0, 4)}-${bill.split('-')[1].slice(4)}`;
  const [y, m] = month.split('-').map(Number);
  const monthIn = (lang: string) => new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', timeZone: 'UTC' }).format(Date.UTC(y, m - 1, 1));
  // The number, "v2" on a corrected invoice's later version, the month.
  const scope = (lang: string) => new RegExp(`^${bill}( v\\d+)? · ${monthIn(lang)}$`);
  // Not "All": the invoice the lines are of, its number and month; read-only, and kept when the filters are cleared.
  const filter = page.getByRole('textbox', { name: 'Invoice', exact: true });
  await expect(filter).toHaveValue(scope('en-US'));
  await expect(filter).toHaveAttribute('readonly');
  await page.getByRole('button', { name: 'Clear all' }).click();
  await expect(filter).toHaveValue(scope('en-US'));
  await expect(page.locator('.ant-table-row').first()).toContainText(/89\d{17}/);
  for (const width of [1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: test.info().outputPath(`sim-details-en-US-${width}.png`) });
  }

  await page.goto(page.url().replace('/en-US/', '/zh-CN/'));
  await expect(page.getByRole('heading', { name: `${bill} 的 SIM 明细` })).toBeVisible();
  await expect(page.getByRole('textbox', { name: '发票', exact: true })).toHaveValue(scope('zh-CN'));
  for (const width of [1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: test.info().outputPath(`sim-details-zh-CN-${width}.png`) });
  }
});

test("the provider's back office corrects a published invoice, opens its versions and reads the PDF of each in two languages", async ({ page }) => {
  await signIn(page, BACK_OFFICE);
  await openFirstInvoice(
    page,
    [
      ['Status', 'Published'],
      ['Type', 'Post-payment'],
    ],
    'Post-payment',
  );
  const versions = page.locator('.ant-card').filter({ has: page.locator('.ant-card-head-title', { hasText: /^Versions$/ }) });
  await expect(versions.getByRole('row')).toHaveCount(2);
  await expect(versions.getByRole('row').nth(1)).toContainText('Current');

  await page.getByRole('button', { name: 'Correct' }).click();
  const dialog = page.getByRole('dialog', { name: 'Issue a corrected version' });
  await dialog.getByLabel('Reason').fill('Late CDRs of the month');
  await dialog.getByRole('button', { name: 'Correct' }).click();
  await expect(page.getByText('Version 2 made')).toBeVisible();
  // The new version opens: a draft, current; the old one obsolete beside it.
  await expect(versions.getByRole('row')).toHaveCount(3);
  await expect(versions.getByRole('row').nth(1)).toContainText(/v2\s*Current.*Draft/);
  await expect(versions.getByRole('row').nth(2)).toContainText('Obsolete');
  await expect(versions.getByRole('row').nth(1)).toContainText('Late CDRs of the month');
  await expect(page.getByRole('button', { name: 'Publish' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Preview PDF' })).toBeVisible();

  const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()]);
  const text = await pdfText((await pdf.path())!);
  expect(text).toContain('€');
  expect(text).toContain('Draft');
  expect(text).toMatch(/89\d{17}/);
  expect(text).toMatch(/SIM charges \(\d+\)/);

  // Version 1, obsolete, opens from the list of versions, in Spanish as well.
  await versions.getByRole('button', { name: 'Open v1' }).click();
  await expect(page.locator('.ant-descriptions').getByText('Obsolete', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Correct' })).toHaveCount(0);
  await page.goto(page.url().replace('/en-US/', '/es-ES/'));
  await expect(page.getByRole('heading', { name: 'Factura' })).toBeVisible();
  await expect(page.locator('.ant-card-head-title').getByText('Versiones', { exact: true })).toBeVisible();
  const [es] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Descargar PDF' }).click()]);
  const esText = await pdfText((await es.path())!);
  expect(esText).toContain('Factura');
  expect(esText).toContain('€');
  expect(esText).toMatch(/89\d{17}/);
});

const BILLS = '/api/customer/cube/v2/api/customer/bills';
/** What changes an invoice, by its button on the list and on an invoice. */
const LIST_CHANGES = ['Make invoices', 'Request deposit'];
const INVOICE_CHANGES = ['Correct', 'Issue credit note', 'Record payment', 'Publish', 'Settlement details'];
/** A button by its words, after its icon's name ("edit Correct"), never a longer label that ends the same. */
const button = (page: Page, words: string) => page.getByRole('button', { name: new RegExp(`(^|\\s)${words}$`) });

test('a customer admin reads invoices but is offered no change: none on the list, none on an open or a paid invoice', async ({ page, request }) => {
  const api = await apiSession(request, 'admin@demo.example.com');
  const first = async (data: object) =>
    (await (await request.post(BILLS, { headers: api.as('DEMO'), data: { pageSize: 1, ...data } })).json()).data.items[0] as
      { id: string; status: string } | undefined;
  // An open post-payment invoice (the seed's issued one, or the draft a correction made of it) and a paid one.
  const open = (await first({ status: 'published', type: 'post_payment' })) ?? (await first({ status: 'draft', type: 'post_payment' }));
  const paid = await first({ status: 'paid', type: 'post_payment' });
  if (!open || !paid) throw new Error('the demo has no open or no paid post-payment invoice');
  const invoices = [open, paid];

  // The back office is offered them on the same pages (so their absence below is the role's, not the page's).
  await signIn(page, BACK_OFFICE);
  await page.goto('/en-US/finance');
  for (const name of LIST_CHANGES) await expect(button(page, name)).toBeVisible();
  await page.goto(`/en-US/financeDetailsPage?id=${open.id}`);
  for (const name of ['Correct', open.status === 'draft' ? 'Publish' : 'Record payment']) await expect(button(page, name)).toBeVisible();
  await page.goto(`/en-US/financeDetailsPage?id=${paid.id}`);
  await expect(button(page, 'Issue credit note')).toBeVisible();
  await page.context().clearCookies();
  await page.evaluate(() => localStorage.clear());

  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/finance');
  await expect(page.getByRole('row').nth(1)).toBeVisible();
  for (const name of LIST_CHANGES) await expect(button(page, name)).toHaveCount(0);
  for (const inv of invoices) {
    await page.goto(`/en-US/financeDetailsPage?id=${inv.id}`);
    await expect(page.getByRole('button', { name: 'Download PDF' })).toBeVisible();
    for (const name of INVOICE_CHANGES) await expect(button(page, name)).toHaveCount(0);
  }
});

test('a user is kept out of finance: no menu entry, and its address leads home', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await expect(page.getByRole('menuitem', { name: 'Dashboard' }).or(page.getByRole('menuitem').first())).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'Invoices' })).toHaveCount(0);
  await page.goto('/en-US/finance');
  await expect(page).not.toHaveURL(/\/finance$/);
  await expect(page.getByRole('heading', { name: 'Invoices' })).toHaveCount(0);
  await page.goto('/en-US/financeDetailsPage?id=x');
  await expect(page).not.toHaveURL(/financeDetailsPage/);
});
