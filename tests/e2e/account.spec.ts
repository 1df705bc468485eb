import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { signIn } from './helpers';

async function changePassword(page: Page, oldPassword: string, password: string, confirm = password) {
  await page.goto('/en-US/changePassword');
  await page.getByLabel('Old password').fill(oldPassword);
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('Confirm password').fill(confirm);
  await page.getByRole('button', { name: 'Change password' }).click();
}

test('change password: the rule, the confirmation, the old password, then sign in again', async ({ page }) => {
  await signIn(page, 'operator@demo.example.com');
  await changePassword(page, 'Demo#2026', 'short');
  await expect(page.getByText('Password must be 6-12 digits and include letter, number and symbol!')).toBeVisible();
  await changePassword(page, 'Demo#2026', 'Oper#2026', 'Oper#2027');
  await expect(page.getByText("Two passwords don't match!")).toBeVisible();
  await changePassword(page, 'Wrong#2026', 'Oper#2026');
  await expect(page.getByText('The old password is wrong.')).toBeVisible();
  await changePassword(page, 'Demo#2026', 'Oper#2026');
  await expect(page).toHaveURL(/\/en-US\/login$/);
  await signIn(page, 'operator@demo.example.com', 'Oper#2026');
  await changePassword(page, 'Oper#2026', 'Demo#2026');
  await expect(page).toHaveURL(/\/en-US\/login$/);
});

test('the profile shows who I am and renames me', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: /Profile$/ }).click();
  await expect(page.getByText('user@demo.example.com')).toBeVisible();
  await page.getByLabel('First name').fill('U'.repeat(31));
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('At most 30 characters')).toBeVisible();
  await page.getByLabel('First name').fill('Ulla');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('button', { name: 'Account menu' })).toContainText('Ulla User');
});
