/**
 * Accounts (setCard, newUser, userDetail) from schemas/accounts.json: coloured role tags, a new account with the
 * password rule and its generator, status, password reset, edit and removal with confirmations, the invite wizard,
 * no action on a superadmin for an admin, and status and password out of reach, with the reason, for an account that
 * is also in an organisation the admin does not administer.
 */
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, fillAndPress, signIn } from './helpers';

const form = (page: Page) => page.locator('form');

async function openAccounts(page: Page) {
  // Accounts sits in the Settings group beside Notifications.
  await page.getByRole('menuitem', { name: 'Settings' }).click();
  await page.getByRole('menuitem', { name: 'Accounts' }).click();
  await expect(page.getByRole('heading', { name: 'Accounts' })).toBeVisible();
}

test('role tags are red for admins and superadmins, blue for operators, green for users', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await openAccounts(page);
  const tagOf = (email: string) =>
    page
      .getByRole('row', { name: new RegExp(email) })
      .locator('.ant-tag')
      .first();
  await expect(tagOf('superadmin@demo')).toHaveClass(/ant-tag-red/);
  await expect(tagOf('^admin@demo|\\badmin@demo')).toHaveClass(/ant-tag-red/);
  await expect(tagOf('operator@demo')).toHaveClass(/ant-tag-blue/);
  await expect(tagOf('user@demo')).toHaveClass(/ant-tag-green/);
});

test('an admin makes an account, disables and enables it, resets its password, edits and removes it', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await openAccounts(page);
  await page.getByRole('button', { name: 'New account' }).click();
  await expect(page.getByRole('heading', { name: 'New account' })).toBeVisible();

  await form(page).getByLabel('E-mail').fill('not-an-address');
  await form(page).getByLabel('First name').fill('Nina');
  await form(page).getByLabel('Last name').fill('Newcomer');
  await page.getByRole('combobox', { name: 'Role' }).click({ force: true });
  // Nobody gives a role above their own: an admin is offered no superadmin.
  await expect(page.getByTitle('Superadmin')).toHaveCount(0);
  await page.getByTitle('Operator').click();
  await form(page).getByLabel('Password').fill('abc');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('must be a valid e-mail address')).toBeVisible();
  await expect(page.getByText('Password must be 6-12 digits and include letter, number and symbol!')).toBeVisible();

  await form(page).getByLabel('E-mail').fill('nina.newcomer@demo.example.com');
  await page.getByRole('button', { name: 'Generate' }).click();
  await expect(form(page).getByLabel('Password')).toHaveValue(/^.{12}$/);
  await page.getByRole('button', { name: 'Create' }).click();

  await expect(page).toHaveURL(/userDetail\?id=/);
  await expect(page.getByText('nina.newcomer@demo.example.com')).toBeVisible();
  await expect(page.getByText('Role and access')).toBeVisible();

  await page.getByRole('button', { name: 'Disable' }).click();
  await expect(page.getByText(/Disable Nina Newcomer\?/)).toBeVisible();
  await page.getByRole('button', { name: 'OK', exact: true }).click();
  await expect(page.locator('.ant-descriptions').getByText('Disabled')).toBeVisible();
  await page.getByRole('button', { name: 'Enable' }).click();
  await page.getByRole('button', { name: 'OK', exact: true }).click();
  await expect(page.locator('.ant-descriptions').getByText('Active')).toBeVisible();

  await page.getByRole('button', { name: 'Reset password' }).click();
  await page.getByRole('button', { name: 'OK', exact: true }).click();
  await expect(page.getByText('A new password was sent to nina.newcomer@demo.example.com')).toBeVisible();

  await page.getByRole('button', { name: 'Edit' }).click();
  await expect(form(page).getByLabel('First name')).toHaveValue('Nina');
  const save = page.getByRole('button', { name: 'Save' });
  await fillAndPress(form(page).getByLabel('First name'), 'x'.repeat(31), save, page.getByText('must be at most 30 characters'));
  await fillAndPress(form(page).getByLabel('First name'), 'Nora', save, page.locator('.ant-descriptions').getByText('Nora'));

  await page.getByRole('button', { name: 'Remove from organisation' }).click();
  await expect(page.getByText(/Remove Nora Newcomer from/)).toBeVisible();
  await page.getByRole('button', { name: 'OK', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Accounts' })).toBeVisible();
  await expect(page.getByRole('row', { name: /nina\.newcomer/ })).toHaveCount(0);
});

test('the invite wizard: user info, role and access, confirm; the pending invitation can be revoked', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await openAccounts(page);
  await page.getByRole('button', { name: 'Invite' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite a person' });
  await dialog.getByLabel('E-mail').fill('invitee@');
  await dialog.getByRole('button', { name: 'Next' }).click();
  await expect(dialog.getByText('must be a valid e-mail address')).toBeVisible();
  await dialog.getByLabel('E-mail').fill('ivan.invitee@partner.example.com');
  await dialog.getByRole('button', { name: 'Next' }).click();

  await dialog.getByRole('combobox', { name: 'Role' }).click({ force: true });
  await page.getByTitle('User', { exact: true }).click();
  await dialog.getByRole('button', { name: 'Next' }).click();
  await expect(dialog.getByText(/ivan\.invitee@partner\.example\.com will be invited to .* as User/)).toBeVisible();
  await dialog.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByText('Invitation sent to ivan.invitee@partner.example.com')).toBeVisible();

  const row = page.getByRole('row', { name: /ivan\.invitee/ });
  await expect(row).toContainText('Yes');
  // An invitation, not yet a member: its status says so (the person's own status is not the organisation's to see).
  await expect(row).toContainText('Invited');
  await row.getByRole('link').click();
  await page.getByRole('button', { name: 'Revoke invitation' }).click();
  await page.getByRole('button', { name: 'OK', exact: true }).click();
  await expect(page.getByText('Invitation revoked')).toBeVisible();
  await expect(page.getByRole('row', { name: /ivan\.invitee/ })).toHaveCount(0);
});

test('an admin has no action on a superadmin', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await openAccounts(page);
  await page.getByRole('link', { name: 'superadmin@demo.example.com' }).click();
  await expect(page.getByText('Role and access')).toBeVisible();
  for (const name of ['Edit', 'Disable', 'Reset password', 'Remove from organisation']) await expect(page.getByRole('button', { name })).toHaveCount(0);
});

test('status and password are disabled, with the reason, for an account also in an organisation the admin does not run', async ({ page, request }) => {
  // Made in the admin's organisation, then invited by another customer's admin: the account belongs to both.
  const email = 'shared.across@partner.example.com';
  const admin = await apiSession(request, 'admin@demo.example.com');
  const made = await request.post('/api/main/accounts', {
    headers: admin.as('DEMO'),
    data: { email, firstName: 'Sami', lastName: 'Shared', role: 'user', password: 'Sami#2026' },
  });
  expect(made.status()).toBe(200);
  const other = await apiSession(request, 'admin@other.example.com');
  expect((await request.post('/api/identity/info/cube/invites', { headers: other.as('OTHER'), data: { email, role: 'user' } })).status()).toBe(200);

  await signIn(page, 'admin@demo.example.com');
  await openAccounts(page);
  await page.getByRole('link', { name: email }).click();
  await expect(page.getByText('Role and access')).toBeVisible();
  for (const name of ['Disable', 'Reset password']) await expect(page.getByRole('button', { name })).toBeDisabled();
  await expect(page.getByRole('switch', { name: 'Oversight privilege' })).toBeDisabled();
  await page.getByRole('button', { name: 'Reset password' }).hover({ force: true });
  await expect(page.getByRole('tooltip')).toContainText('also belongs to an organisation where you may not change it');
  // What is the organisation's own stays: the role is edited, the membership removed.
  await expect(page.getByRole('button', { name: 'Edit' })).toBeEnabled();
  await expect(page.getByRole('button', { name: 'Remove from organisation' })).toBeEnabled();
});
