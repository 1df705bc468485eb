import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { fillSignIn, signIn } from './helpers';

const signInButton = (page: Page) => page.getByRole('button', { name: 'Sign in' });
const colourOf = (page: Page) => signInButton(page).evaluate((el) => getComputedStyle(el).backgroundColor);

test('the brand of the host colours the console', async ({ page, baseURL }) => {
  const nova = baseURL!.replace('localhost', 'nova.localhost');
  await page.goto(`${nova}/en-US/login`);
  await expect.poll(() => colourOf(page)).toBe('rgb(22, 119, 255)');
  await expect(page).toHaveTitle('Nova IoT');
});

test('when the brand call fails the default red theme is used', async ({ page, baseURL }) => {
  await page.route('**/api/main/brand/logo**', (route) => route.abort());
  const nova = baseURL!.replace('localhost', 'nova.localhost');
  await page.goto(`${nova}/en-US/login`);
  await expect(signInButton(page)).toBeVisible();
  await expect.poll(() => colourOf(page)).toBe('rgb(212, 56, 13)');
});

test('a first sign-in is welcomed with confetti, and the Support button shows both e-mails', async ({ page, request }) => {
  const login = await request.post('/api/identity/sso/signin/direct/cube/offline-access', {
    data: { username: 'admin@demo.example.com', password: 'Demo#2026', verificationCode: '246810', agreeTerms: true },
  });
  const token = (await login.json()).data.user.token;
  const email = `first-${Date.now()}@example.com`;
  const created = await request.post('/api/main/accounts', {
    headers: { authorization: `Bearer ${token}`, partnercode: 'DEMO' },
    data: { email, firstName: 'Fay', lastName: 'First', role: 'user', password: 'Fay#2026' },
  });
  expect(created.status()).toBe(200);

  // The Content-Security-Policy refused canvas-confetti's worker once: no refusal may show in the console.
  const refusals: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && /Content Security Policy|Refused/i.test(m.text()) && refusals.push(m.text())));
  await page.goto('/en-US/login');
  await fillSignIn(page, email, 'Fay#2026');
  await expect(page.getByText('Congratulations! You have signed in for the first time.')).toBeVisible();
  // The confetti are drawn on a canvas of their own above the dialog.
  await expect(page.locator('body > canvas')).toHaveCount(1);
  expect(refusals).toEqual([]);
  await page.keyboard.press('Escape');
  await page.reload();
  await expect(page.getByText('Congratulations!')).toHaveCount(0);

  await page.getByRole('button', { name: 'Support' }).click();
  await expect(page.getByRole('link', { name: 'support@demo.example.com' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'soporte@demo.example.com' })).toBeVisible();
});

test('sign-out clears the session even when the server is down', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.route('**/api/**', (route) => route.abort());
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: /Sign out$/ }).click();
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page).toHaveURL(/\/en-US\/login$/);
  expect((await page.evaluate(() => Object.keys(localStorage))).filter((k) => k !== 'lang')).toEqual([]);
});

test('opened at 127.0.0.1, an unknown host, the console has the default brand whole: Support and Contact us', async ({ page, baseURL }) => {
  const bare = baseURL!.replace('localhost', '127.0.0.1');
  await page.goto(`${bare}/en-US/login`);
  await expect(page.getByRole('link', { name: 'Contact us' })).toBeVisible();
  await fillSignIn(page, 'admin@demo.example.com');
  await expect(page).toHaveURL(/dashboard\/analysis$/);
  await page.getByRole('button', { name: 'Support' }).click();
  await expect(page.getByRole('link', { name: 'support@demo.example.com' })).toBeVisible();
});
