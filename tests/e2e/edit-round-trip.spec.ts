/**
 * An edit changes only what the person changed. Each edit form of the console is opened on a stored record and saved
 * as it came (then with only its name changed): the record the API answers afterwards equals the one before, every
 * field of it, the name aside. The scheduled SMS form once rebuilt a repeated schedule's start from the day it shows
 * (21:24 became 00:00) and a once-only one's to the minute. Forms: scheduled SMS, account (the generic schema form),
 * organisation rename, pool rename, automation rule.
 */
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, signIn } from './helpers';

type Rec = Record<string, unknown>;

/** What a save writes of its own accord: when and by whom it happened, and the coming runs that follow from the fields. */
const VOLATILE = new Set(['updatedAt', 'updated_at', 'updatedBy', 'upcoming', 'runs', 'nextRunAt', 'version']);
const stable = (r: Rec, without: string[] = []): Rec => Object.fromEntries(Object.entries(r).filter(([k]) => !VOLATILE.has(k) && !without.includes(k)));

async function reader(request: APIRequestContext) {
  const s = await apiSession(request, 'admin@demo.example.com');
  return async (path: string): Promise<Rec> => {
    const res = await request.get(path, { headers: s.as('DEMO') });
    expect(res.status(), path).toBe(200);
    return (await res.json()).data as Rec;
  };
}

/** Save the form as it is, and wait for the save's answer (a 2xx), so the read that follows sees what it wrote. */
async function saveAndWait(page: Page, save: () => Promise<void>, method: RegExp = /POST|PUT|PATCH/) {
  const answered = page.waitForResponse((r) => method.test(r.request().method()) && /\/api\//.test(r.url()) && !/\/list|oneTimeToken|telemetry/.test(r.url()));
  await save();
  const res = await answered;
  expect(res.status(), `${res.request().method()} ${res.url()}`).toBeLessThan(300);
}

test.beforeEach(async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
});

test('a scheduled SMS saved unchanged, or only renamed, keeps its start, end and every other field', async ({ page, request }) => {
  const read = await reader(request);
  const list = await request.post('/api/customer/sms/task/list', {
    headers: (await apiSession(request, 'admin@demo.example.com')).as('DEMO'),
    data: { page: 1, pageSize: 50 },
  });
  const items = (await list.json()).data.items as Array<{ id: string; name: string; mode: string; finished: boolean; locked: boolean; startAt: string }>;
  // A repeated schedule whose start is not at midnight (the seed's are at the minute they were made).
  const s = items.find((i) => i.mode === 'repeated' && !i.locked && !i.finished && !i.startAt.endsWith('T00:00:00.000Z'));
  expect(s, 'a repeated schedule starting within a day').toBeDefined();
  const url = `/api/customer/sms/task/detail/${s!.id}`;
  const before = await read(url);

  await page.goto(`/en-US/scheduleSmsAdd?id=${s!.id}`);
  await expect(page.getByLabel('Name')).toHaveValue(s!.name);
  await saveAndWait(page, () => page.getByRole('button', { name: 'Save' }).click());
  await expect(page).toHaveURL(/scheduleSmsDetails\?id=/);
  expect(stable(await read(url))).toEqual(stable(before));

  await page.goto(`/en-US/scheduleSmsAdd?id=${s!.id}`);
  await page.getByLabel('Name').fill(`${s!.name} (renamed)`);
  await saveAndWait(page, () => page.getByRole('button', { name: 'Save' }).click());
  const renamed = await read(url);
  expect(renamed.name).toBe(`${s!.name} (renamed)`);
  expect(stable(renamed, ['name'])).toEqual(stable(before, ['name']));
  // The operation log names the one change.
  const log = await request.post('/api/customer/operation/log/list', {
    headers: (await apiSession(request, 'admin@demo.example.com')).as('DEMO'),
    data: { id: s!.id, page: 1, pageSize: 5 },
  });
  expect((await log.json()).data.items[0].changes.map((c: { field: string }) => c.field)).toEqual(['name']);

  // Back to its name for the specs that follow.
  await page.goto(`/en-US/scheduleSmsAdd?id=${s!.id}`);
  await page.getByLabel('Name').fill(s!.name);
  await saveAndWait(page, () => page.getByRole('button', { name: 'Save' }).click());
  expect(stable(await read(url))).toEqual(stable(before));
});

test('an account saved unchanged, or with only its first name changed, keeps every other field', async ({ page, request }) => {
  const read = await reader(request);
  const url = '/api/main/partner/DEMO/accounts/acc-user';
  const before = await read(url);
  const edit = async (first?: string, shown = String(before.firstName)) => {
    await page.goto('/en-US/userDetail?id=acc-user&edit=1');
    const field = page.locator('form').getByLabel('First name');
    await expect(field).toHaveValue(shown);
    if (first !== undefined) await field.fill(first);
    await saveAndWait(page, () => page.getByRole('button', { name: 'Save' }).click());
  };
  await edit();
  expect(stable(await read(url))).toEqual(stable(before));
  await edit('Umara');
  const renamed = await read(url);
  expect(renamed.firstName).toBe('Umara');
  expect(stable(renamed, ['firstName'])).toEqual(stable(before, ['firstName']));
  await edit(String(before.firstName), 'Umara');
  expect(stable(await read(url))).toEqual(stable(before));
});

test('an organisation and a pool renamed to the same name, or a new one, keep every other field', async ({ page, request }) => {
  const read = await reader(request);
  const orgOf = async () => ((await read('/api/main/orgs')) as unknown as Rec[]).find((o) => o.code === 'DEMO-NORTH')!;
  const org = await orgOf();
  const dialog = page.getByRole('dialog');
  const renameOrg = async (name: string) => {
    await page.goto('/en-US/orgs');
    await page
      .getByRole('row')
      .filter({ hasText: String(org.name) })
      .first()
      .getByRole('button', { name: 'Rename' })
      .click();
    await expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveValue(String(org.name));
    await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
    await saveAndWait(page, () => dialog.getByRole('button', { name: 'Save' }).click());
  };
  await renameOrg(String(org.name));
  expect(stable(await orgOf())).toEqual(stable(org));
  await renameOrg('Demo Logistics Nord');
  expect(stable(await orgOf(), ['name'])).toEqual(stable(org, ['name']));
  org.name = 'Demo Logistics Nord';
  await renameOrg('Demo Logistics North');

  const pools = (await read('/api/pool/shared_pool/cube/dashboard/pools?page=1&pageSize=20')) as { items?: Rec[] };
  const pool = pools.items!.find((p) => p.name === 'EU Fleet Pool')!;
  const poolUrl = `/api/pool/shared_pool/cube/pools/${pool.id}/detail`;
  const before = await read(poolUrl);
  const renamePool = async (name: string) => {
    await page.goto(`/en-US/sim/shared/${pool.id}`);
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveValue(String(before.name));
    await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
    await saveAndWait(page, () => dialog.getByRole('button', { name: 'Save' }).click());
  };
  await renamePool(String(before.name));
  expect(stable(await read(poolUrl))).toEqual(stable(before));
});

test('an automation rule saved unchanged keeps every field of its condition, scope and action', async ({ page, request }) => {
  const read = await reader(request);
  const rules = (await read('/api/rule/auto_flow/cube/rules?page=1&pageSize=50')) as { items?: Rec[] } & Rec;
  const rule = (rules.items ?? (rules as unknown as Rec[])).find((r) => r.status === 'disabled') ?? (rules.items ?? (rules as unknown as Rec[]))[0];
  const url = `/api/rule/auto_flow/cube/rules/${rule.id}/detail`;
  const before = await read(url);
  await page.goto(`/en-US/workFlowOperation?id=${rule.id}`);
  await expect(page.getByRole('button', { name: 'Save' })).toBeEnabled();
  await saveAndWait(page, () => page.getByRole('button', { name: 'Save' }).click());
  expect(stable(await read(url))).toEqual(stable(before));
});
