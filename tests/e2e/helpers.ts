import { expect, type Page } from '@playwright/test';

export const PASSWORD = 'Demo#2026';
export const CODE = '246810';

/** Fill the sign-in form as a person would. */
export async function fillSignIn(page: Page, email: string, password = PASSWORD, agree = true): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Verification code').fill(CODE);
  if (agree) await page.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Sign in from the English sign-in page and land on the dashboard. */
export async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto('/en-US/login');
  await fillSignIn(page, email, password);
  await expect(page).toHaveURL(/dashboard\/analysis$/);
}
