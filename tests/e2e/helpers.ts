import fs from 'node:fs';
import { expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { E2E_JWT_SECRET, FIXTURE_PORT } from './e2e-env';

export const PASSWORD = 'Demo#2026';
/** The provider's back-office account (server/db/seed.ts): the one that makes, corrects, credits and settles invoices. */
export const BACK_OFFICE = 'billing@provider.example.com';
/** The fixture server of playwright.config.ts (SCHEMAS_DIR=tests/fixtures/schemas, one port above the main one). */
export const FIXTURE_BASE = `http://localhost:${FIXTURE_PORT}`;
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

/** Fill one field, press a button (Save, Next) and wait for what that should show: the field's message, a notice, the new value. */
export async function fillAndPress(field: Locator, value: string, button: Locator, shows: Locator): Promise<void> {
  await field.fill(value);
  await button.click();
  await expect(shows).toBeVisible();
}

/** Replace the browser's access token with an expired one of the same session (same account and session id). */
export async function expireAccessToken(page: Page): Promise<void> {
  const { SignJWT, decodeJwt } = await import('jose');
  const token = await page.evaluate(() => localStorage.getItem('token'));
  const claims = decodeJwt(token!);
  const now = Math.floor(Date.now() / 1000);
  const expired = await new SignJWT({ sid: claims.sid })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(claims.sub))
    .setIssuedAt(now - 120)
    .setExpirationTime(now - 60)
    .setIssuer('iot-console')
    .sign(new TextEncoder().encode(E2E_JWT_SECRET));
  await page.evaluate((t) => localStorage.setItem('token', t), expired);
}

/** A signed-in API session for arranging data (another person acting at the same time). */
export async function apiSession(request: APIRequestContext, email: string): Promise<{ token: string; as: (partnerCode: string) => Record<string, string> }> {
  const res = await request.post('/api/identity/sso/signin/direct/cube/offline-access', {
    data: { username: email, password: PASSWORD, verificationCode: CODE, agreeTerms: true },
  });
  expect(res.status()).toBe(200);
  const token = (await res.json()).data.user.token as string;
  return { token, as: (partnerCode) => ({ authorization: `Bearer ${token}`, partnercode: partnerCode }) };
}

/** The text a PDF reader extracts from a downloaded file (pdf.js through unpdf). */
export async function pdfText(file: string): Promise<string> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  return (await extractText(await getDocumentProxy(new Uint8Array(fs.readFileSync(file))), { mergePages: true })).text;
}

/** From the menu, open the invoices list, pick each filter's option (filter, option; English words) and open the first invoice, which shows `shows`. */
export async function openFirstInvoice(page: Page, filters: Array<[string, string]>, shows: string): Promise<void> {
  await page.getByRole('menuitem', { name: 'Invoices' }).click();
  await expect(page.getByRole('heading', { name: 'Invoices' })).toBeVisible();
  for (const [filter, option] of filters) {
    await page.getByRole('combobox', { name: filter, exact: true }).click({ force: true });
    await page.getByTitle(option, { exact: true }).click();
  }
  const first = page.getByRole('row').nth(1);
  await expect(first).toContainText(shows);
  await first.getByRole('link').click();
  await expect(page.getByRole('heading', { name: 'Invoice' })).toBeVisible();
}
