/**
 * The fixture proof of docs/schemas.md in the browser: tests/fixtures/schemas/gateways.json, a made-up resource whose
 * table the test creates (tests/e2e/fixture-db.ts), appears with no TypeScript written: in the menu of the roles its
 * rights allow, with list, show, create and edit pages against the real server, and its rules held on both sides.
 */
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { FIXTURE_BASE, fillAndPress, signIn } from './helpers';

test.use({ baseURL: FIXTURE_BASE });

/** The RJSF form (the list behind it has headers of the same names). */
const form = (page: Page) => page.locator('form');

const openGateways = async (page: Page) => {
  await page.getByRole('menuitem', { name: 'Settings' }).click();
  await page.getByRole('menuitem', { name: 'Field gateways' }).click();
  await expect(page.getByRole('heading', { name: 'Field gateways' })).toBeVisible();
};

test('a user, whose role the schema grants nothing, sees no menu entry and is sent away from its pages', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await expect(page.getByRole('menuitem', { name: 'Field gateways' })).toHaveCount(0);
  await page.goto('/en-US/r/gateways');
  await expect(page).toHaveURL(/dashboard\/analysis$/);
});

test("an admin creates and edits a gateway; the form holds the schema's rules and shows the server's", async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await openGateways(page);
  await expect(page.getByText('Nothing matches')).toBeVisible();
  await page.getByRole('button', { name: 'New Field gateway' }).click();
  await expect(page).toHaveURL(/\/r\/gateways\/create$/);

  // The browser's checks come from the schema: pattern, lengths, bounds, required.
  await form(page).getByLabel('Serial number').fill('GW-12');
  await form(page).getByLabel('Name').fill('ab');
  await form(page).getByLabel('Ports').fill('65');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.locator('#root_serial__error')).toHaveText('Serial number has the wrong format');
  // A length with both ends in the schema is said with both.
  await expect(page.locator('#root_name__error')).toHaveText('Name must be 3 to 30 characters long');
  // The number field keeps what was typed (65 stays 65) and refuses it with the schema's range in words.
  await expect(form(page).getByLabel('Ports')).toHaveValue('65');
  await expect(page.locator('#root_ports__error')).toHaveText('Ports must be between 1 and 64');
  await expect(page.locator('#root_kind__error')).toHaveText('Installation is required');
  await expect(page).toHaveURL(/\/r\/gateways\/create$/);

  await form(page).getByLabel('Serial number').fill('GW-000777');
  await form(page).getByLabel('Name').fill('Harbour gate');
  await form(page).getByLabel('Ports').fill('12');
  await page.getByRole('combobox', { name: 'Installation' }).click({ force: true });
  await page.getByTitle('Outdoor').click();
  await form(page).getByLabel('Site').fill('Pier 7');
  await page.getByRole('button', { name: 'Create' }).click();

  // The detail page, in the schema's sections.
  await expect(page).toHaveURL(/\/r\/gateways\/show\/[0-9A-Za-z]{20}$/);
  await expect(page.getByText('Identity', { exact: true })).toBeVisible();
  await expect(page.getByText('Installation', { exact: true }).first()).toBeVisible();
  await expect(page.locator('.ant-descriptions').getByText('Harbour gate')).toBeVisible();
  await expect(page.getByText('Pier 7')).toBeVisible();

  await page.getByRole('button', { name: 'Edit' }).click();
  await expect(page.getByRole('heading', { name: 'Edit Field gateway' })).toBeVisible();
  await expect(form(page).getByLabel('Name')).toHaveValue('Harbour gate');
  const save = page.getByRole('button', { name: 'Save' });
  await fillAndPress(
    form(page).getByLabel('Name'),
    'n'.repeat(31),
    save,
    page.locator('#root_name__error', { hasText: 'Name must be at most 30 characters long' }),
  );
  await fillAndPress(form(page).getByLabel('Name'), 'Harbour gate east', save, page.locator('.ant-descriptions').getByText('Harbour gate east'));

  // A rule only the server can hold (a serial already taken) is named under its field.
  await page.goto('/en-US/r/gateways/create');
  await form(page).getByLabel('Serial number').fill('GW-000777');
  await form(page).getByLabel('Name').fill('Second gate');
  await form(page).getByLabel('Ports').fill('2');
  await page.getByRole('combobox', { name: 'Installation' }).click({ force: true });
  await page.getByTitle('Indoor').click();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.locator('.ant-form-item-explain-error', { hasText: 'Serial number is already in use' })).toBeVisible();

  // Back in the list: the record, its link and its Edit.
  await page.getByRole('menuitem', { name: 'Field gateways' }).click();
  const row = page.getByRole('row', { name: /GW-000777/ });
  await expect(row).toContainText('Harbour gate east');
  await expect(row.getByRole('link', { name: /Edit/ })).toBeVisible();
});

test('an operator, whom the schema lets read, sees list and detail without create or edit', async ({ page }) => {
  await signIn(page, 'operator@demo.example.com');
  // The operator's Settings group holds the resources schemas add (gateways and the doc's APN profiles).
  await page.getByRole('menuitem', { name: 'Settings' }).click();
  await page.getByRole('menuitem', { name: 'Field gateways' }).click();
  await expect(page.getByRole('row', { name: /GW-000777/ })).toBeVisible();
  await expect(page.getByRole('button', { name: 'New Field gateway' })).toHaveCount(0);
  await expect(page.getByRole('columnheader', { name: 'Actions' })).toHaveCount(0);
  await page.getByRole('link', { name: 'GW-000777' }).click();
  await expect(page.locator('.ant-descriptions').getByText('Harbour gate east')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await page.goto('/en-US/r/gateways/create');
  await expect(page).toHaveURL(/dashboard\/analysis$/);
});

test("the schema's own labels in another language", async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/zh-CN/r/gateways');
  await expect(page.getByRole('heading', { name: '现场网关' })).toBeVisible();
  await expect(page.getByRole('columnheader', { name: '序列号' })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: '现场网关' })).toBeVisible();
});
