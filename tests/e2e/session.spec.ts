import { expect, test } from './fixtures';
import { apiSession, expireAccessToken, signIn } from './helpers';

const TOKEN_UNAUTHORISED = 'CB-00-0401';

test('an expired token with every call of a page in flight: one refresh, and every call is replayed and succeeds', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/taskcenter');
  await expect(page.getByRole('cell', { name: 'SIM export' }).first()).toBeVisible();
  await expireAccessToken(page);

  const refused: string[] = [];
  const succeeded: string[] = [];
  const refreshes: number[] = [];
  const failures: string[] = [];
  page.on('response', async (res) => {
    const url = res.url();
    if (!url.includes('/api/')) return;
    const call = `${res.request().method()} ${url}`;
    if (url.includes('/sso/signin/direct/cube/refresh')) refreshes.push(res.status());
    else if (res.status() === 400 && (await res.json().catch(() => null))?.status?.code === TOKEN_UNAUTHORISED) refused.push(call);
    else if (res.status() === 200) succeeded.push(call);
    else failures.push(`${res.status()} ${url}`);
  });
  await page.reload();
  await expect(page.getByRole('cell', { name: 'SIM export' }).first()).toBeVisible();
  // Every call that met the expired token waited for the one refresh and was replayed with success. (How many are in
  // flight at once depends on when the page's code arrives; tests/api/console-http.test.ts holds 5 at once exactly.)
  await expect.poll(() => refused.length).toBeGreaterThanOrEqual(2);
  await expect.poll(() => refused.every((c) => succeeded.includes(c))).toBe(true);
  expect(refreshes).toEqual([200]);
  expect(failures).toEqual([]);
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('a failed refresh ends at sign-in with the server’s message', async ({ page, context }) => {
  await signIn(page, 'user@demo.example.com');
  await expireAccessToken(page);
  await context.clearCookies();
  await page.reload();
  await expect(page).toHaveURL(/\/en-US\/login$/);
  await expect(page.getByText('Refresh token error, please sign in again.')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
});

test('a 401 with a stored token (the account was disabled meanwhile) clears all storage and shows the token-expired page', async ({ page, request }) => {
  await signIn(page, 'user@demo.example.com');
  const admin = await apiSession(request, 'admin@demo.example.com');
  expect((await request.patch('/api/main/change_status/accounts/acc-user', { headers: admin.as('DEMO'), data: { status: 'disabled' } })).status()).toBe(200);
  try {
    // The next call meets 401; the console may already have made one on its own, so a call is asked for (opening the
    // task center) only while the console is not on its way there. A reload could race that way and land on sign-in.
    await expect(async () => {
      if (!page.url().endsWith('/401')) await page.getByRole('menuitem', { name: 'Task center' }).click({ timeout: 1_000 });
      await expect(page).toHaveURL(/\/401$/, { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
    await expect(page.getByText('Your session has expired')).toBeVisible();
    expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([]);
  } finally {
    await request.patch('/api/main/change_status/accounts/acc-user', { headers: admin.as('DEMO'), data: { status: 'active' } });
  }
});

test('removed from the organisation one works in: the 0502 modal, then sign-out', async ({ page, request }) => {
  await signIn(page, 'operator@demo.example.com');
  await page.getByRole('button', { name: /^Organisation:/ }).click();
  await page.getByRole('menuitem', { name: 'Demo Logistics North' }).click();
  await expect(page.getByRole('button', { name: /^Organisation:/ })).toContainText('Demo Logistics North');

  const admin = await apiSession(request, 'admin@demo.example.com');
  const removed = await request.delete('/api/identity/permission/info/cube/permissions/DEMO-NORTH/acc-operator', { headers: admin.as('DEMO-NORTH') });
  expect(removed.status()).toBe(200);

  // The live rights event meets 0502 by itself; until it has, the next call (opening the task center) does. The
  // modal may open while the menu is being clicked, so the click is tried only while it is not there.
  const dialog = page.getByRole('dialog');
  const expired = dialog.getByText('Your session has expired. Please sign in again.');
  await expect(async () => {
    if (!(await expired.isVisible())) await page.getByRole('menuitem', { name: 'Task center' }).click({ timeout: 1_000 });
    await expect(expired).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await dialog.getByRole('button', { name: 'OK' }).click();
  await expect(page).toHaveURL(/\/en-US\/login$/);
  expect((await page.evaluate(() => Object.keys(localStorage))).filter((k) => !['lang', 'theme'].includes(k))).toEqual([]);
  // The operator stays out of Demo Logistics North: each e2e run starts on a fresh database, and no later spec needs it.
});

test('a role changed by an admin reaches the open console live, and so does the next one on the stream it reconnects by itself', async ({ page, request }) => {
  // Wait until the console listens (the shell loads on demand, then opens the live stream).
  const listening = page.waitForResponse((r) => r.url().includes('/api/identity/sse/connect'));
  await signIn(page, 'user@demo.example.com');
  await listening;
  await expect(page.getByRole('menuitem', { name: 'Task center' })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'Accounts' })).toHaveCount(0);
  const admin = await apiSession(request, 'admin@demo.example.com');
  const marker = await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
  const reconnected = page.waitForRequest((r) => r.url().includes('/api/identity/sse/connect') && !!r.headers()['last-event-id'], { timeout: 30_000 });
  try {
    expect((await request.put('/api/main/accounts/acc-user', { headers: admin.as('DEMO'), data: { role: 'admin' } })).status()).toBe(200);
    await expect(page.getByText('Your access was updated.')).toBeVisible({ timeout: 10_000 });
    // Accounts comes in the Settings group (beside Notifications), both admins' screens.
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await expect(page.getByRole('menuitem', { name: 'Accounts' })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { marker: number }).marker)).toBe(marker);
    // The server ended the stream after telling it (its rights chose what it may hear): the console reconnects by
    // itself, resuming after that event, so the next change reaches it too.
    await reconnected;
    expect((await request.put('/api/main/accounts/acc-user', { headers: admin.as('DEMO'), data: { role: 'user' } })).status()).toBe(200);
    await expect(page.getByRole('menuitem', { name: 'Accounts' })).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { marker: number }).marker)).toBe(marker);
  } finally {
    await request.put('/api/main/accounts/acc-user', { headers: admin.as('DEMO'), data: { role: 'user' } });
  }
});
