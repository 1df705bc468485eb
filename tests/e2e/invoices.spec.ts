/** Invoices: the list, an invoice's detail, its PDF download and its SIM lines. */
import fs from 'node:fs';
import { expect, test } from './fixtures';
import { signIn } from './helpers';

test('an admin opens an invoice, downloads its PDF and reads its SIM lines', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('menuitem', { name: 'Invoices' }).click();
  await expect(page.getByRole('heading', { name: 'Invoices' })).toBeVisible();
  await page.getByRole('combobox', { name: 'Status', exact: true }).click({ force: true });
  await page.getByTitle('Paid', { exact: true }).click();
  const first = page.getByRole('row').nth(1);
  await expect(first).toContainText('Paid');
  await first.getByRole('link').click();

  await expect(page.getByRole('heading', { name: 'Invoice' })).toBeVisible();
  for (const section of ['Summary', 'Amounts', 'Charges and usage']) await expect(page.locator('.ant-card-head-title').getByText(section, { exact: true })).toBeVisible();
  await expect(page.locator('.ant-descriptions').getByText(/€|EUR/).first()).toBeVisible();

  const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PDF' }).click()]);
  expect(pdf.suggestedFilename()).toMatch(/\.pdf$/);
  const bytes = fs.readFileSync((await pdf.path())!);
  expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');

  await page.getByRole('button', { name: 'SIM details' }).click();
  await expect(page.getByRole('heading', { name: /^SIM details of / })).toBeVisible();
  await expect(page.getByRole('row').nth(1)).toContainText(/89\d{17}/);
  await expect(page.getByRole('menuitem', { name: 'Invoices' })).toHaveClass(/selected/);
});
