/**
 * Invoices and the task center: the provider's back office runs the invoice job for a closed month from the invoices list and
 * follows it in the task center; a paid invoice's PDF prints its payments and versions in English and in Chinese.
 */
import { expect, test } from './fixtures';
import { BACK_OFFICE, openFirstInvoice, pdfText, signIn } from './helpers';

test("the provider's back office makes the invoices of last month from the invoices list and sees the job in the task center", async ({ page }) => {
  await signIn(page, BACK_OFFICE);
  await page.getByRole('menuitem', { name: 'Invoices' }).click();
  await page.getByRole('button', { name: 'Make invoices' }).click();
  const dialog = page.getByRole('dialog', { name: 'Make the invoices of a closed month' });
  // Last month by default, named as the reader's language names it; the dialog says what will happen.
  const last = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 1));
  const name = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', timeZone: 'UTC' }).format(last);
  await expect(dialog.getByLabel('Month')).toBeVisible();
  await expect(dialog.getByText(name).first()).toBeVisible();
  await expect(dialog.getByText(`Invoices are made for ${name}`)).toBeVisible();
  await expect(dialog.getByText('An invoice already made for that month is left as it is.', { exact: false })).toBeVisible();
  // The current month is not offered.
  // The select itself, not its input under the shown month, and without force, so the click waits for the dialog's
  // opening animation to end (a forced click during it sometimes left the list closed).
  await dialog.locator('.ant-select').first().click();
  const current = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', timeZone: 'UTC' }).format(new Date());
  const offered = page.locator('.ant-select-dropdown');
  await expect(offered.getByTitle(name, { exact: true })).toBeVisible();
  await expect(offered.getByTitle(current, { exact: true })).toHaveCount(0);
  await offered.getByTitle(name, { exact: true }).click();
  await dialog.getByRole('button', { name: 'Make invoices' }).click();
  await expect(page.getByText(`The invoice job for ${name} runs in the task center`)).toBeVisible();
  await page.getByRole('button', { name: 'Open the task center' }).click();
  await expect(page.getByRole('heading', { name: 'Task center' })).toBeVisible();
  const row = page.getByRole('row').filter({ hasText: 'Invoice run' }).first();
  await expect(row).toBeVisible();
  await expect(row).toContainText(last.toISOString().slice(0, 7));
  // The job ends (made now, or found made already by the monthly timer, and left as it is); the list follows it live.
  await expect(row.getByText('Done')).toBeVisible({ timeout: 30_000 });
});

test("a paid invoice's PDF prints its payments and its versions, in English and in Chinese", async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await openFirstInvoice(page, [['Status', 'Paid']], 'Paid');
  const payments = page.locator('.ant-card').filter({ has: page.locator('.ant-card-head-title', { hasText: /^Payments$/ }) });
  const reference = (await payments.getByRole('row').nth(1).getByRole('cell').nth(1).textContent())!.trim();
  expect(reference.length).toBeGreaterThan(0);

  const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()]);
  const text = await pdfText((await pdf.path())!);
  for (const words of ['Payments', 'Paid on', 'Still due', 'Versions', 'Made on']) expect(text).toContain(words);
  // The current version is marked, whichever it is (the demo corrects one of its paid invoices).
  expect(text).toMatch(/v\d+ · current/);
  expect(text).toContain(reference);
  expect(text).toContain('€');

  await page.goto(page.url().replace('/en-US/', '/zh-CN/'));
  await expect(page.getByRole('heading', { name: '发票' })).toBeVisible();
  const [zh] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: '下载 PDF' }).click()]);
  const zhText = await pdfText((await zh.path())!);
  for (const words of ['付款记录', '付款日期', '待付金额', '版本记录', '生成日期']) expect(zhText).toContain(words);
  expect(zhText).toMatch(/v\d+ · 当前/);
  expect(zhText).toContain(reference);
  expect(zhText).toMatch(/\d{4}年\d{1,2}月\d{1,2}日/);
});
