import { expect, test } from './fixtures';
import { signIn } from './helpers';

// The top-level menu each role sees follows docs/permissions.md (read on the feature key).
const MENUS: Record<string, string[]> = {
  'user@demo.example.com': ['Dashboard', 'SIM', 'SMS', 'Call and data records', 'Task center'],
  'operator@demo.example.com': ['Dashboard', 'SIM', 'SMS', 'Call and data records', 'Task center'],
  'admin@demo.example.com': ['Dashboard', 'SIM', 'Invoices', 'SMS', 'Automation rules', 'Call and data records', 'Developer', 'Settings', 'Task center'],
  'superadmin@demo.example.com': ['Dashboard', 'SIM', 'Invoices', 'SMS', 'Automation rules', 'Call and data records', 'Developer', 'Settings', 'Task center'],
};

for (const [email, expected] of Object.entries(MENUS)) {
  test(`${email} sees the menu its role allows`, async ({ page }) => {
    await signIn(page, email);
    const items = page
      .getByRole('menu')
      .first()
      .locator(':scope > li[role="menuitem"], :scope > li[role="none"] > [role="menuitem"], :scope > li.ant-menu-submenu > [role="menuitem"]');
    await expect(items).toHaveText(expected);
  });
}

test('a route outside the role’s rights sends the user to the root', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.goto('/en-US/setCard');
  await expect(page).toHaveURL(/\/en-US\/dashboard\/analysis$/);
  await page.goto('/en-US/autoflow');
  await expect(page).toHaveURL(/\/en-US\/dashboard\/analysis$/);
  // The dashboard says why, in SPEC.md's words for the missing autoflow resource.
  await expect(page.getByText('You do not have this permission, please contact your admin!')).toBeVisible();
});

test('a user typing the address of a page they may not open is told, on the dashboard, which page it was', async ({ page }) => {
  // docs/permissions.md: a user reads neither autoflow-cube (Automation rules) nor customer-bill-cube (Invoices).
  await signIn(page, 'user@demo.example.com');
  for (const [path, name] of [
    ['autoflow', 'Automation rules'],
    ['finance', 'Invoices'],
    ['trigger', 'Automation rules'],
  ]) {
    await page.goto(`/en-US/${path}`);
    await expect(page).toHaveURL(/\/en-US\/dashboard\/analysis$/);
    await expect(page.getByRole('alert').filter({ hasText: `You do not have access to ${name}` })).toBeVisible();
  }
  // Closing the notice forgets it; the next page has none.
  await page.getByRole('alert').getByRole('button', { name: 'Close' }).click();
  await expect(page.getByRole('alert')).toHaveCount(0);
  // In Chinese, with the page's name as the Chinese menu calls it.
  await page.goto('/zh-CN/finance');
  await expect(page).toHaveURL(/\/zh-CN\/dashboard\/analysis$/);
  await expect(page.getByRole('alert')).toContainText('您没有访问“账单”的权限');
});

test('child screens highlight their menu item', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/workFlowOperation');
  await expect(page.getByRole('menuitem', { name: 'Automation rules' })).toHaveClass(/selected/);
  await expect(page.getByRole('heading', { name: 'New automation rule' })).toBeVisible();
});

test('the organisation switcher lists the other organisations and switches', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('button', { name: /^Organisation:/ }).click();
  await expect(page.getByRole('menuitem', { name: 'Demo Logistics North' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'New organisation' })).toBeVisible();
  // The switch reloads the page once the new organisation's rights are in (the menu has closed at once, before).
  const reloaded = page.waitForEvent('load');
  await page.getByRole('menuitem', { name: 'Demo Logistics South' }).click();
  await reloaded;
  await expect(page.getByRole('button', { name: /^Organisation:/ })).toContainText('Demo Logistics South');
  expect(await page.evaluate(() => localStorage.getItem('partnerCode'))).toBe('DEMO-SOUTH');
});

test('an account in one organisation sees the message instead of a list', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.getByRole('button', { name: /^Organisation:/ }).click();
  await expect(page.getByText('You belong to no other organisation')).toBeVisible();
  await expect(page.getByRole('button', { name: 'New organisation' })).toHaveCount(0);
});

test('About shows the version', async ({ page }) => {
  await signIn(page, 'operator@demo.example.com');
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'About' }).click();
  await expect(page.getByText('Version 1.6.8-alpha.1')).toBeVisible();
});

test('the time toggle is stored as TimeZone', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.getByText('UTC', { exact: true }).click();
  expect(await page.evaluate(() => localStorage.getItem('TimeZone'))).toBe('UTC');
});

test('the organisation switcher shows 3 organisations, then 10 and More with 12', async ({ page, request }) => {
  const login = await request.post('/api/identity/sso/signin/direct/cube/offline-access', {
    data: { username: 'superadmin@demo.example.com', password: 'Demo#2026', verificationCode: '246810', agreeTerms: true },
  });
  const token = (await login.json()).data.user.token;
  const create = async (i: number) => {
    const res = await request.post('/api/main/orgs', {
      headers: { authorization: `Bearer ${token}`, partnercode: 'DEMO' },
      data: { name: `Switcher Org ${String(i).padStart(2, '0')}`, country: 'DE', smsQuota: 1 },
    });
    expect(res.status()).toBe(200);
  };
  // Other specs may have added organisations the superadmin oversees: count them, then make exactly 3 others.
  const others = async () =>
    ((await (await request.get('/api/main/orgs', { headers: { authorization: `Bearer ${token}`, partnercode: 'DEMO' } })).json()).data as unknown[]).length - 1;
  let made = 0;
  while ((await others()) < 3) await create(++made);
  expect(await others()).toBe(3);
  await signIn(page, 'superadmin@demo.example.com');
  await page.getByRole('button', { name: /^Organisation:/ }).click();
  await expect(page.locator('.ant-dropdown').getByRole('menuitem')).toHaveCount(3);
  await expect(page.getByRole('menuitem', { name: 'More…' })).toHaveCount(0);

  while ((await others()) < 12) await create(++made);
  await signIn(page, 'superadmin@demo.example.com');
  await page.getByRole('button', { name: /^Organisation:/ }).click();
  await expect(page.getByRole('menuitem', { name: 'More…' })).toBeVisible();
  await expect(page.locator('.ant-dropdown').getByRole('menuitem')).toHaveCount(11);
  await page.getByRole('menuitem', { name: 'More…' }).click();
  await expect(page).toHaveURL(/\/en-US\/orgs$/);
});
