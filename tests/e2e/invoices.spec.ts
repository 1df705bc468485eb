/** Invoices: the list, an invoice's detail, its PDF download and its SIM lines. */
import fs from 'node:fs';
import { expect, test } from './fixtures';
import { openFirstInvoice, pdfText, signIn } from './helpers';

test('an admin opens an invoice, downloads its PDF and reads its SIM lines', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  // A paid post-payment invoice: the newest paid one of the demo is its deposit, whose one line has no SIM.
  await openFirstInvoice(page, [['Status', 'Paid'], ['Type', 'Post-payment']], 'Paid');
  for (const section of ['Summary', 'Amounts', 'Charges and usage']) await expect(page.locator('.ant-card-head-title').getByText(section, { exact: true })).toBeVisible();
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

test('an admin corrects a published invoice, opens its versions and reads the PDF of each in two languages', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await openFirstInvoice(page, [['Status', 'Published'], ['Type', 'Post-payment']], 'Post-payment');
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
