import { expect, test } from './fixtures';
import { fillAndPress, signIn } from './helpers';

test('an admin creates an organisation; the form holds the schema’s rules and the server’s answer', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'My Organisations' }).click();
  await expect(page.getByRole('heading', { name: 'My organisations' })).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: 'Demo Logistics North' })).toBeVisible();
  await page.getByRole('button', { name: 'New organisation' }).click();
  await expect(page).toHaveURL(/\/en-US\/orgscreate$/);
  await expect(page.getByText(/of 20 sub-organisations left/)).toBeVisible();

  const name = page.getByRole('textbox', { name: 'Name' });
  const quota = page.getByRole('spinbutton', { name: 'SMS quota' });
  // The quota field keeps what is typed: 0 and 10,001 stay as typed and are refused in words, with the range
  // 1 … the organisation's own quota (10,000).
  await quota.fill('10001');
  await quota.blur();
  await expect(quota).toHaveValue('10001');
  // 4 characters and no country are refused before anything is sent, each under its field.
  await name.fill('Abcd');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('SMS quota must be between 1 and 10,000')).toBeVisible();
  await expect(page.getByText('Name must be 5 to 40 characters long')).toBeVisible();
  await expect(page.getByText('Country is required')).toBeVisible();
  await quota.fill('0');
  await quota.blur();
  await expect(quota).toHaveValue('0');
  await name.fill('A'.repeat(41));
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('SMS quota must be between 1 and 10,000')).toBeVisible();
  await expect(page.getByText('Name must be at most 40 characters long')).toBeVisible();

  // A taken name passes the form and is refused by the server, with its message.
  await name.fill('Demo Logistics South');
  await quota.fill('10000');
  await page.getByRole('combobox', { name: 'Country' }).click({ force: true });
  await page.keyboard.type('Austria');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('The organisation name already exists.')).toBeVisible();

  // 5 characters and exactly the cap are accepted.
  await name.fill('Alpen');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/en-US\/orgs$/);
  const row = page.getByRole('row').filter({ hasText: 'Alpen' });
  await expect(row).toContainText('AT');
  await expect(row).toContainText('10,000');
  await expect(row).toContainText('Admin');
  // The switcher knows the new organisation without a reload (the rights change is pushed live).
  await page.getByRole('button', { name: /^Organisation:/ }).click();
  await expect(page.getByRole('menuitem', { name: 'Alpen' })).toBeVisible({ timeout: 10_000 });
});

test('a user sees its organisations without a New organisation button', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.goto('/en-US/orgs');
  await expect(page.getByRole('row').filter({ hasText: 'Demo Logistics GmbH' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'New organisation' })).toHaveCount(0);
  // Creating an organisation is outside a user's rights: the screen sends it to the root.
  await page.goto('/en-US/orgscreate');
  await expect(page).toHaveURL(/\/en-US\/dashboard\/analysis$/);
});

test('an admin renames an organisation with the rename codes shown, and chooses the default sign-in organisation', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/orgs');
  const rowOf = (name: string) => page.getByRole('row').filter({ hasText: name });
  const dialog = page.getByRole('dialog');

  // 0131: a first-level organisation's name is a superadmin's to change.
  await rowOf('Demo Logistics GmbH').getByRole('button', { name: 'Rename' }).click();
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Demo Logistics Group');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText("Insufficient permission to edit a first-level customer organisation's name.")).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).click();

  // The name's own rules in the form, then 0135 for a taken name, then the rename.
  await rowOf('Alpen').getByRole('button', { name: 'Rename' }).click();
  const [name, save] = [dialog.getByRole('textbox', { name: 'Name' }), dialog.getByRole('button', { name: 'Save' })];
  await fillAndPress(name, 'Alp', save, dialog.getByText('Name must be 5 to 40 characters long'));
  await fillAndPress(name, 'Demo Logistics North', save, dialog.getByText('The organisation name already exists.'));
  await fillAndPress(name, 'Alpen Tirol', save, page.getByText('Renamed to Alpen Tirol'));
  await expect(rowOf('Alpen Tirol')).toBeVisible();

  // The default sign-in organisation moves, and back (later specs sign the admin in to DEMO).
  await rowOf('Alpen Tirol').getByRole('button', { name: 'Make default' }).click();
  await expect(page.getByText('Alpen Tirol is now your default sign-in organisation')).toBeVisible();
  // The default is marked in its row; any other row offers Make default in the same column.
  await expect(rowOf('Alpen Tirol').getByText('Default', { exact: true })).toBeVisible();
  await expect(rowOf('Demo Logistics GmbH').getByRole('button', { name: 'Make default' })).toBeVisible();
  await rowOf('Demo Logistics GmbH').getByRole('button', { name: 'Make default' }).click();
  await expect(rowOf('Demo Logistics GmbH').getByText('Default', { exact: true })).toBeVisible();
  await expect(rowOf('Alpen Tirol').getByRole('button', { name: 'Make default' })).toBeVisible();
});

test('an admin deletes an empty sub-organisation after confirming; one with SIMs is refused with 0132', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/orgs');
  const rowOf = (name: string) => page.getByRole('row').filter({ hasText: name });
  await rowOf('Demo Logistics North').getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Cannot delete: the condition is not met.')).toBeVisible();
  await expect(rowOf('Demo Logistics North')).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await rowOf('Alpen Tirol').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('dialog', { name: 'Delete Alpen Tirol?' })).toBeVisible();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Alpen Tirol was deleted')).toBeVisible();
  await expect(rowOf('Alpen Tirol')).toHaveCount(0);
  // The organisation one works in has no Delete.
  await expect(rowOf('Demo Logistics GmbH').getByRole('button', { name: 'Delete' })).toHaveCount(0);
});
