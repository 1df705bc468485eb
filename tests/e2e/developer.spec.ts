import fs from 'node:fs';
import { expect, test } from './fixtures';
import { signIn } from './helpers';

test('an admin makes an API key: the private key is shown once with a download, then listed without it, and deleted after a confirmation', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/developerView');
  await expect(page.getByRole('heading', { name: 'Developer' })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'API keys' })).toHaveAttribute('aria-selected', 'true');
  // The seeded key of the demo admin.
  await expect(page.getByRole('row').filter({ hasText: 'Fleet backend' })).toBeVisible();

  await page.getByRole('button', { name: 'New API key' }).click();
  const dialog = page.getByRole('dialog', { name: 'New API key' });
  await dialog.getByLabel('Name (optional)').fill('Nightly sync');
  await dialog.getByRole('button', { name: 'Create' }).click();
  const made = page.getByRole('dialog', { name: 'Your new API key' });
  await expect(made.getByText('This private key is shown once')).toBeVisible();
  await expect(made.getByText('-----BEGIN PRIVATE KEY-----')).toBeVisible();
  const download = page.waitForEvent('download');
  await made.getByRole('button', { name: 'Download private key (.pem)' }).click();
  const file = await (await download).path();
  expect(fs.readFileSync(file, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  await made.getByRole('button', { name: 'I have saved it' }).click();

  const row = page.getByRole('row').filter({ hasText: 'Nightly sync' });
  await expect(row).toBeVisible();
  await expect(row.getByText('Never')).toBeVisible();
  await expect(page.getByText('BEGIN PRIVATE KEY')).toHaveCount(0);
  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('API key deleted')).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: 'Nightly sync' })).toHaveCount(0);
});

test('webhook settings: the secret is hidden until asked for, an http:// URL is refused under the field, a test event needs a URL', async ({ page }) => {
  await signIn(page, 'superadmin@demo.example.com');
  await page.goto('/en-US/developerView?tab=webhook');
  await expect(page.getByRole('tab', { name: 'Webhook settings' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByText(/whsec_/)).toHaveCount(0);
  await page.getByRole('button', { name: 'Show secret' }).click();
  await expect(page.getByText(/^whsec_/)).toBeVisible();
  // No URL yet: the webhook cannot be switched on nor tested.
  await expect(page.getByRole('switch', { name: 'Send events to the webhook URL' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Send test event' })).toBeDisabled();

  await page.getByLabel('Webhook URL', { exact: true }).fill('http://hooks.example.com/iot');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Webhook URL must be a full HTTPS URL' })).toBeVisible();
  await page.getByLabel('Webhook URL', { exact: true }).fill('https://127.0.0.1/hook');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'must not point at a private, loopback' })).toBeVisible();
  // Nothing was saved.
  await page.reload();
  await expect(page.getByLabel('Webhook URL', { exact: true })).toHaveValue('');
});

test('the notification log lists deliveries with their outcome and opens one whole; the API log filters by trace ID', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/developerView?tab=notificationLog');
  const first = page.getByRole('row').filter({ hasText: 'hooks.demo.example.com' }).first();
  await expect(first).toBeVisible();
  await first.getByRole('button', { name: 'Details' }).click();
  const drawer = page.getByRole('dialog');
  await expect(drawer.getByText('"timestamp"')).toBeVisible();
  await expect(drawer.getByRole('button', { name: 'Send again' })).toBeVisible();
  await drawer.getByRole('button', { name: 'Close' }).click();

  await page.getByRole('tab', { name: 'API log' }).click();
  await expect(page).toHaveURL(/tab=apiLog/);
  await expect(page.getByRole('row').filter({ hasText: '/api/public/v1/' }).first()).toBeVisible();
  await page.getByLabel('Trace ID').fill('no-such-trace');
  await page.getByLabel('Trace ID').press('Enter');
  await expect(page.getByText('No public API calls yet.')).toBeVisible();
});

test('an operator has no Developer page', async ({ page }) => {
  await signIn(page, 'operator@demo.example.com');
  await expect(page.getByRole('menuitem', { name: 'Developer' })).toHaveCount(0);
  await page.goto('/en-US/developerView');
  await expect(page.getByRole('heading', { name: 'Developer' })).toHaveCount(0);
});

test('the help box links to the public API reference, which opens beside the console with every route', async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  await page.goto('/zh-CN/dashboard/analysis');
  const opened = page.waitForEvent('popup');
  await page.getByRole('link', { name: 'API 参考' }).click();
  const reference = await opened;
  await expect(reference).toHaveURL(/\/api\/public\/reference$/);
  await expect(reference.getByRole('heading', { name: /IoT Connect public API/ }).first()).toBeVisible();
  await expect(reference.getByText('/v1/sims/list').first()).toBeVisible();
});
