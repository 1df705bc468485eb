/**
 * Whose tasks the task center shows: an administrator's SIM export reaches no user's task center (a user signed in
 * elsewhere while it runs, nor the next person signed in in the same tab), nor its file by address; the administrator
 * sees everyone's tasks, each saying who started it, a member's new task arriving live.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, fillSignIn, signIn } from './helpers';

/** The demo user's name as the task center shows it: any first name, the last name User. */
const DEMO_USER = /[A-Z][a-z]+ User(?![a-z])/;

/** The reference ids the task center shows, top to bottom. */
const shownIds = (page: Page) => page.locator('tbody tr.ant-table-row td:first-child').allInnerTexts();

/** A call made by the page itself, with its stored session: what this person's browser may get. */
const callAsPage = (page: Page, url: string) =>
  page.evaluate(async (u) => {
    const res = await fetch(u, {
      headers: { authorization: `Bearer ${localStorage.getItem('token')}`, partnerCode: localStorage.getItem('partnerCode') ?? '' },
    });
    return { status: res.status, body: (await res.json()) as { data: { items?: Array<{ referenceId: string }> } | null } };
  }, url);

/** A POST made by the page itself, with its stored session. */
const postAsPage = (page: Page, url: string, body: unknown) =>
  page.evaluate(
    async ([u, b]) => {
      const res = await fetch(u as string, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${localStorage.getItem('token')}`,
          partnerCode: localStorage.getItem('partnerCode') ?? '',
        },
        body: JSON.stringify(b),
      });
      return res.status;
    },
    [url, body] as const,
  );

/** The first page of this person's own tasks, as the server answers it. */
const ownIds = async (page: Page) => ((await callAsPage(page, '/api/job/rest/job/my?page=1&pageSize=20')).body.data!.items ?? []).map((i) => i.referenceId);

test('an admin’s SIM export reaches no user’s task center, page or link; the admin sees everyone’s tasks, marked', async ({ page, browser, baseURL }) => {
  // A user signed in in another browser, on the task center while the export runs.
  const elsewhere = await browser.newContext({ baseURL });
  const userPage = await elsewhere.newPage();
  await signIn(userPage, 'user@demo.example.com');
  await userPage.getByRole('menuitem', { name: 'Task center' }).click();
  await expect(userPage.getByRole('heading', { name: 'Task center' })).toBeVisible();
  // The user has a task of their own (the demo data holds none), so the admin's list has someone else's to show.
  expect(await postAsPage(userPage, '/api/main/sim/list/export/task', { format: 'csv' })).toBe(200);
  await expect.poll(() => shownIds(userPage)).toEqual(await ownIds(userPage));

  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/sim/simCard');
  const rows = page.getByRole('row');
  await expect(rows.nth(2)).toBeVisible();
  await rows.nth(1).getByRole('checkbox').check();
  await rows.nth(2).getByRole('checkbox').check();
  await page.getByRole('button', { name: /Export/ }).click();
  const started = page.waitForResponse((r) => r.url().endsWith('/api/main/sim/list/export/task'));
  await page.getByRole('menuitem', { name: '2 ticked as CSV' }).click();
  const { taskId, referenceId } = (await (await started).json()).data as { taskId: string; referenceId: string };
  await page.getByText('Open the task center').click();

  // The administrator sees the organisation's tasks: their own marked You, the others' with who started them.
  const task = page.getByRole('row').filter({ hasText: referenceId });
  await expect(task).toContainText('Done', { timeout: 60_000 });
  await expect(page.getByRole('columnheader', { name: 'Started by' })).toBeVisible();
  await expect(task.getByText('You', { exact: true })).toBeVisible();
  await expect(page.getByText('Everyone’s tasks in the organisation, last 7 days')).toBeVisible();
  // The demo user, by whatever first name another spec of the worker may have given them (account.spec.ts renames).
  await expect(page.getByRole('row').filter({ hasText: DEMO_USER }).first()).toBeVisible();

  // The user's page heard the export run and end (live events), and shows their own tasks only, as the server does.
  await expect(userPage.getByRole('row').filter({ hasText: referenceId })).toHaveCount(0);
  expect(await shownIds(userPage)).toEqual(await ownIds(userPage));
  await expect(userPage.getByRole('columnheader', { name: 'Started by' })).toHaveCount(0);
  // Nor can they fetch its file by address.
  expect((await callAsPage(userPage, `/api/job/rest/job/my/oneTimeToken?id=${taskId}`)).status).toBe(404);
  await elsewhere.close();

  // The admin signs out; a user signs in in the same tab and starts on the dashboard, not on the admin's last page.
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page).toHaveURL(/\/en-US\/login$/);
  await fillSignIn(page, 'user@demo.example.com');
  await expect(page).toHaveURL(/\/en-US\/dashboard\/analysis$/);
  await page.getByRole('menuitem', { name: 'Task center' }).click();
  await expect(page.getByText('Tasks of the last 7 days')).toBeVisible();
  await expect.poll(() => shownIds(page)).toEqual(await ownIds(page));
  expect(await shownIds(page)).not.toContain(referenceId);
  await expect(page.getByRole('columnheader', { name: 'Started by' })).toHaveCount(0);
  expect((await callAsPage(page, `/api/job/rest/job/my/oneTimeToken?id=${taskId}`)).status).toBe(404);
});

test('an admin’s task center shows a member’s task as it starts and ends, without reloading', async ({ page, request }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('menuitem', { name: 'Task center' }).click();
  await expect(page.getByText('Everyone’s tasks in the organisation, last 7 days')).toBeVisible();
  await expect(page.getByRole('columnheader', { name: 'Started by' })).toBeVisible();
  // The page is open (its stream too) before the member starts an export elsewhere.
  await expect.poll(() => shownIds(page)).not.toEqual([]);
  const user = await apiSession(request, 'user@demo.example.com');
  const res = await request.post('/api/main/sim/list/export/task', { headers: user.as('DEMO'), data: { format: 'csv' } });
  expect(res.status()).toBe(200);
  const { referenceId } = (await res.json()).data as { referenceId: string };
  // The live events of the member's task reach the administrator's page: the row appears and ends done.
  const row = page.getByRole('row').filter({ hasText: referenceId });
  await expect(row).toContainText(DEMO_USER);
  await expect(row).toContainText('Done', { timeout: 60_000 });
});
