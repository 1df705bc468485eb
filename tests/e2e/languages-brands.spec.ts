import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { fillSignIn, signIn } from './helpers';

/** The first task row's start: a task's reference reads PFX-YYYYMMDD-XXXXXX (server/job/task-reference.ts). */
const firstStart = (page: Page) =>
  page
    .getByRole('row')
    .filter({ hasText: /[A-Z]{3}-\d{8}-[0-9A-Z]{6}/ })
    .first()
    .locator('time')
    .first();

const LANGUAGES = [
  { lang: 'en-US', heading: 'Task center', date: /^[A-Z][a-z]{2} \d{1,2}, \d{4}/ },
  { lang: 'zh-CN', heading: '任务中心', date: /^\d{4}年\d{1,2}月\d{1,2}日/ },
  { lang: 'zh-TW', heading: '任務中心', date: /^\d{4}年\d{1,2}月\d{1,2}日/ },
  { lang: 'es-ES', heading: 'Centro de tareas', date: /^\d{1,2} [a-z]{3,4}\.? \d{4}/ },
];

for (const { lang, heading, date } of LANGUAGES) {
  test(`in ${lang} the prefix, the texts and the dates change`, async ({ page }) => {
    await signIn(page, 'admin@demo.example.com');
    await page.goto(`/${lang}/taskcenter`);
    await expect(page).toHaveURL(new RegExp(`/${lang}/taskcenter$`));
    await expect(page.getByRole('heading', { name: heading })).toBeVisible();
    // The cell may leave out the year (this year's dates do); its title always holds the whole date.
    await expect(firstStart(page)).toHaveAttribute('title', date);
    expect(await page.evaluate(() => localStorage.getItem('lang'))).toBe(lang);
  });
}

test('the UTC/local toggle changes every time shown', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/taskcenter');
  await expect(firstStart(page)).not.toHaveText(/UTC$/);
  await page.getByText('UTC', { exact: true }).click();
  await expect(firstStart(page)).toHaveText(/UTC$/);
  expect(await page.evaluate(() => localStorage.getItem('TimeZone'))).toBe('UTC');
});

const VARIANTS = [
  { host: 'nova', name: 'Nova IoT', variant: 'nova', footer: /Nova IoT · Connectivity by Nova Networks/ },
  { host: 'aurora', name: 'Aurora Connect', variant: 'aurora', footer: /Aurora Connect — every device, every country/ },
  { host: 'terra', name: 'Terra M2M', variant: 'terra', footer: /Terra M2M machine-to-machine services/ },
];

for (const v of VARIANTS) {
  test(`the ${v.host} brand shows its logo and its footer`, async ({ page, baseURL }) => {
    const origin = baseURL!.replace('localhost', `${v.host}.localhost`);
    await page.goto(`${origin}/en-US/login`);
    await fillSignIn(page, 'user@demo.example.com');
    await expect(page).toHaveURL(/dashboard\/analysis$/);
    await expect(page.getByRole('img', { name: `${v.name} logo` })).toHaveAttribute('data-variant', v.variant);
    await expect(page.getByText(v.footer)).toBeVisible();
  });
}

test('terra hides support, documentation, About, the sign-in logo and the contact link', async ({ page, baseURL }) => {
  const origin = baseURL!.replace('localhost', 'terra.localhost');
  await page.goto(`${origin}/en-US/login`);
  await expect(page.getByRole('link', { name: 'Contact us' })).toHaveCount(0);
  await expect(page.getByRole('img', { name: 'Terra M2M logo' })).toHaveCount(0);
  await fillSignIn(page, 'user@demo.example.com');
  await expect(page.getByRole('img', { name: 'Terra M2M logo' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Support' })).toHaveCount(0);
  await expect(page.getByText('Documentation')).toHaveCount(0);
  await page.getByRole('button', { name: 'Account menu' }).click();
  await expect(page.getByRole('menuitem', { name: 'About' })).toHaveCount(0);
});

test('aurora offers only its languages and no privacy link on sign-in; the default brand shows all', async ({ page, baseURL }) => {
  const origin = baseURL!.replace('localhost', 'aurora.localhost');
  await page.goto(`${origin}/zh-CN/login`);
  await expect(page).toHaveURL(/\/en-US\/login$/);
  await expect(page.getByRole('link', { name: 'Privacy Policy' })).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Language' }).click({ force: true });
  await expect(page.getByTitle('Español')).toBeVisible();
  await expect(page.getByTitle('English').last()).toBeVisible();
  await expect(page.getByTitle('简体中文')).toHaveCount(0);
  await expect(page.getByTitle('繁體中文')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Contact us' })).toHaveAttribute('href', 'mailto:support@demo.example.com');

  await page.goto('/en-US/login');
  await expect(page.getByRole('link', { name: 'Privacy Policy' })).toBeVisible();
  await page.getByRole('combobox', { name: 'Language' }).click({ force: true });
  for (const name of ['English', '简体中文', '繁體中文', 'Español']) await expect(page.getByTitle(name).last()).toBeVisible();
});
