import { expect, test } from './fixtures';
import { CODE, fillSignIn, PASSWORD } from './helpers';

const ACCOUNTS = [
  ['superadmin@demo.example.com', 'Superadmin'],
  ['admin@demo.example.com', 'Admin'],
  ['operator@demo.example.com', 'Operator'],
  ['user@demo.example.com', 'User'],
] as const;

for (const [email, role] of ACCOUNTS) {
  test(`${role} signs in through the form and lands on the dashboard`, async ({ page }) => {
    await page.goto('/en-US/login');
    await fillSignIn(page, email);
    await expect(page).toHaveURL(/\/en-US\/dashboard\/analysis$/);
    await expect(page.getByText(role, { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: /^Organisation:/ })).toContainText('Demo Logistics GmbH');
  });
}

test('a wrong password shows the server message', async ({ page }) => {
  await page.goto('/en-US/login');
  await fillSignIn(page, 'user@demo.example.com', 'Wrong#123');
  await expect(page.getByText('Wrong e-mail or password.')).toBeVisible();
  await expect(page).toHaveURL(/\/en-US\/login$/);
});

test('the terms agreement is required', async ({ page }) => {
  await page.goto('/en-US/login');
  await fillSignIn(page, 'user@demo.example.com', PASSWORD, false);
  await expect(page.getByText('Please agree to the terms of use and the privacy policy')).toBeVisible();
});

test('a deep link without a token goes to sign-in and back after it', async ({ page }) => {
  await page.goto('/es-ES/dashboard/analysis?from=mail');
  await expect(page).toHaveURL(/\/es-ES\/login$/);
  await page.getByLabel('Correo electrónico').fill('user@demo.example.com');
  await page.getByLabel('Contraseña').fill(PASSWORD);
  await page.getByLabel('Código de verificación').fill(CODE);
  await page.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await expect(page).toHaveURL(/\/es-ES\/dashboard\/analysis\?from=mail$/);
});

test('the session is fetched from the refresh cookie when the token is gone', async ({ page }) => {
  await page.goto('/en-US/login');
  await fillSignIn(page, 'operator@demo.example.com');
  await expect(page).toHaveURL(/dashboard\/analysis$/);
  await page.evaluate(() => localStorage.removeItem('token'));
  await page.goto('/en-US/dashboard/analysis');
  await expect(page.getByText('Operator', { exact: true })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeTruthy();
});

test('sign-out asks, clears storage and returns to sign-in', async ({ page }) => {
  await page.goto('/en-US/login');
  await fillSignIn(page, 'admin@demo.example.com');
  await expect(page).toHaveURL(/dashboard\/analysis$/);
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page.getByText('Are you sure you want to sign out?')).toBeVisible();
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page).toHaveURL(/\/en-US\/login$/);
  const keys = await page.evaluate(() => Object.keys(localStorage));
  expect(keys.filter((k) => k !== 'lang')).toEqual([]);
  // The refresh cookie is revoked too: the protected page sends us back to sign-in.
  await page.goto('/en-US/dashboard/analysis');
  await expect(page).toHaveURL(/\/en-US\/login$/);
});

test('an unsupported language prefix redirects to a supported one', async ({ page }) => {
  await page.goto('/fr-FR/login');
  await expect(page).toHaveURL(/\/en-US\/login$/);
  await page.goto('/termsOfUse');
  await expect(page).toHaveURL(/\/en-US\/termsOfUse$/);
});

test('the sign-in page in Chinese', async ({ page }) => {
  await page.goto('/zh-CN/login');
  await expect(page.getByRole('button', { name: '登 录' }).or(page.getByRole('button', { name: '登录' }))).toBeVisible();
});

test('the sign-in page stays light: no table, chart, flow or spreadsheet code loads before sign-in', async ({ page }) => {
  const scripts: string[] = [];
  page.on('response', async (res) => {
    if (res.url().endsWith('.js')) scripts.push(`${res.url()}\n${await res.text()}`);
  });
  await page.goto('/en-US/login');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(scripts.length).toBeGreaterThan(0);
  for (const s of scripts) {
    const name = s.slice(0, s.indexOf('\n'));
    expect(name).not.toMatch(/shell-layout|task-center-page/);
    // The entry names the chunks of lazy pages (assets/echarts-….js) in its preload map: names, not code.
    expect(s.replace(/assets\/[\w.-]+\.js/g, ''), name).not.toMatch(/echarts|@xyflow|ReactFlow|SheetJS|exceljs|pdfkit/);
  }
});
