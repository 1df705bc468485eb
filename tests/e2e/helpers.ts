import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { E2E_JWT_SECRET, FIXTURE_PORT } from './e2e-env';

export const PASSWORD = 'Demo#2026';
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
