/**
 * docs/schemas.md's worked example in the browser: the APN profile, copied from the doc into the fixture server's
 * SCHEMAS_DIR (tests/e2e/seed-db.ts), with no TypeScript and no table of ours. An admin creates, edits and deletes
 * profiles (one from its page, several ticked in the list, each after a confirmation naming them), in en-US and zh-CN.
 */
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { FIXTURE_BASE, apiSession, signIn } from './helpers';

test.use({ baseURL: FIXTURE_BASE });

const form = (page: Page) => page.locator('form');

/** Fill the create form; the field named "default" is a switch or tick box like any boolean. */
async function create(page: Page, lang: string, labels: { new: string; name: string; apn: string; create: string }, name: string, apn: string) {
  await page.goto(`/${lang}/r/apn-profiles`);
  await page.getByRole('button', { name: labels.new }).click();
  await form(page).getByLabel(labels.name, { exact: true }).fill(name);
  await form(page).getByLabel(labels.apn, { exact: true }).fill(apn);
  await page.getByRole('button', { name: labels.create }).click();
}

test('en-US: an admin creates, edits and deletes APN profiles, one and several, each after a confirmation', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  const labels = { new: 'New APN profile', name: 'Name', apn: 'APN', create: 'Create' };
  // The schema's pattern holds in the form: upper case is no APN.
  await create(page, 'en-US', labels, 'Fleet internet', 'Internet');
  await expect(page.getByText('has the wrong format')).toBeVisible();
  await form(page).getByLabel('APN', { exact: true }).fill('iot.example.com');
  await page.getByRole('combobox', { name: 'Authentication' }).click({ force: true });
  await page.getByTitle('PAP').click();
  await page.getByRole('combobox', { name: 'IP type' }).click({ force: true });
  await page.getByTitle('IPv4', { exact: true }).click();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/r\/apn-profiles\/show\/[0-9A-Za-z]{20}$/);
  await expect(page.getByText('iot.example.com')).toBeVisible();

  // Edit, the field named default included.
  await page.getByRole('button', { name: 'Edit' }).click();
  await form(page).getByLabel('Name', { exact: true }).fill('Fleet internet EU');
  await form(page).getByLabel('Default', { exact: true }).check();
  await page.getByRole('button', { name: 'Save' }).click();
  // The page is titled by the record's name, under the resource it belongs to, which leads back to the list.
  await expect(page.getByRole('heading', { level: 3 })).toHaveText('Fleet internet EU');
  await expect(page.locator('.ant-breadcrumb')).toHaveText('APN profiles/Fleet internet EU');

  // Delete from its page: the confirmation names it; Cancel keeps it.
  await page.getByRole('button', { name: 'Delete Fleet internet EU' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Delete APN profile “Fleet internet EU”?');
  await expect(dialog).toContainText('This cannot be undone.');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.locator('.ant-descriptions').getByText('Fleet internet EU', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Delete Fleet internet EU' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(/\/r\/apn-profiles$/);
  await expect(page.getByRole('row', { name: /Fleet internet EU/ })).toHaveCount(0);

  // Several at once from the list.
  for (const [name, apn] of [
    ['Bulk one', 'one.example'],
    ['Bulk two', 'two.example'],
  ]) {
    await page.goto('/en-US/r/apn-profiles/create');
    await form(page).getByLabel('Name', { exact: true }).fill(name);
    await form(page).getByLabel('APN', { exact: true }).fill(apn);
    await page.getByRole('combobox', { name: 'Authentication' }).click({ force: true });
    await page.getByTitle('None').click();
    await page.getByRole('combobox', { name: 'IP type' }).click({ force: true });
    await page.getByTitle('IPv6', { exact: true }).click();
    await page.getByRole('button', { name: 'Create' }).click();
    await expect(page).toHaveURL(/\/show\//);
  }
  await page.goto('/en-US/r/apn-profiles');
  await page.getByRole('checkbox', { name: /Bulk one/ }).check();
  await page.getByRole('checkbox', { name: /Bulk two/ }).check();
  await page.getByRole('button', { name: 'Delete 2 ticked' }).click();
  const bulk = page.getByRole('dialog');
  await expect(bulk).toContainText('Delete these 2 APN profiles?');
  await expect(bulk.getByRole('listitem')).toHaveText(['Bulk one', 'Bulk two']);
  await bulk.getByRole('button', { name: 'Delete' }).click();
  // The dialog closes only once both are gone; a refusal or failure stays in it, and a failure here says which.
  await expect(bulk)
    .toHaveCount(0)
    .catch(async (e: Error) => {
      throw new Error(`The confirmation stayed open, saying: ${await bulk.innerText().catch(() => '(gone)')}\n${e.message}`);
    });
  await expect(page.getByRole('row', { name: /Bulk one|Bulk two/ })).toHaveCount(0);
});

// antd spaces out a button's two Chinese characters ("创 建"), and an icon adds its name before: matched either way.
const zh = (word: string) => new RegExp(`${[...word].join('\\s*')}$`);

test('zh-CN: the same pages and confirmation in Chinese', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/zh-CN/r/apn-profiles/create');
  await expect(page.getByRole('heading', { name: /APN 配置/ })).toBeVisible();
  await form(page).getByLabel('名称', { exact: true }).fill('车队专网');
  await form(page).getByLabel('APN', { exact: true }).fill('fleet.cn');
  await page.getByRole('combobox', { name: '认证方式' }).click({ force: true });
  await page.getByTitle('CHAP').click();
  await page.getByRole('combobox', { name: 'IP 类型' }).click({ force: true });
  await page.getByTitle('IPv4 和 IPv6').click();
  await page.getByRole('button', { name: zh('创建') }).click();
  await expect(page).toHaveURL(/\/zh-CN\/r\/apn-profiles\/show\//);
  await expect(page.getByText('接入点')).toBeVisible();
  await page.getByRole('button', { name: zh('编辑') }).click();
  await form(page).getByLabel('名称', { exact: true }).fill('车队专网二');
  await page.getByRole('button', { name: zh('保存') }).click();
  await expect(page.locator('.ant-descriptions').getByText('车队专网二', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: '删除 车队专网二' }).click();
  const dialog = page.getByRole('dialog');
  // A Latin word after the Chinese verb is set apart by a space, as Chinese text sets them ("APN 配置", "这 2 项").
  await expect(dialog.locator('.ant-modal-confirm-title')).toHaveText('删除 APN 配置“车队专网二”？');
  await dialog.getByRole('button', { name: zh('删除') }).click();
  await expect(page).toHaveURL(/\/zh-CN\/r\/apn-profiles$/);
  await expect(page.getByRole('row', { name: /车队专网二/ })).toHaveCount(0);
});

test('an emptied user name is taken away when the edit is saved', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/r/apn-profiles/create');
  await form(page).getByLabel('Name', { exact: true }).fill('Emptied user');
  await form(page).getByLabel('APN', { exact: true }).fill('empty.example');
  await page.getByRole('combobox', { name: 'Authentication' }).click({ force: true });
  await page.getByTitle('PAP').click();
  await form(page).getByLabel('User name', { exact: true }).fill('fleet-user');
  await page.getByRole('combobox', { name: 'IP type' }).click({ force: true });
  await page.getByTitle('IPv4', { exact: true }).click();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('fleet-user', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Edit' }).click();
  await expect(form(page).getByLabel('User name', { exact: true })).toHaveValue('fleet-user');
  await form(page).getByLabel('User name', { exact: true }).fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page).toHaveURL(/\/r\/apn-profiles\/show\//);
  await expect(page.locator('.ant-descriptions').getByText('Emptied user', { exact: true })).toBeVisible();
  await expect(page.getByText('fleet-user', { exact: true })).toHaveCount(0);
});

test("a user, for whom APN profiles is the Settings group's only entry, finds it in that group's place, before Task center", async ({ page }) => {
  await signIn(page, 'user@demo.example.com');
  // The schemas' entries come with the catalog, after the console's own.
  await expect(page.getByRole('menuitem', { name: 'APN profiles' })).toBeVisible();
  const top = page.locator('.ant-layout-sider .ant-menu-root > li');
  const labels = await top.allInnerTexts();
  const apn = labels.findIndex((l) => l.includes('APN profiles'));
  expect(apn).toBeGreaterThan(-1);
  expect(apn).toBeLessThan(labels.findIndex((l) => l.includes('Task center')));
});

test("a profile still in use is not deleted: the dialog stays, says why in the page's language, offers only Close", async ({ page, request }) => {
  // In the other customer's organisation: the fixture server's gateways of the demo organisation are other tests'.
  const admin = await apiSession(request, 'admin@other.example.com');
  const made = await request.post('/api/main/resources/apn-profiles', {
    headers: admin.as('OTHER'),
    data: { name: 'Gateway uplink', apn: 'uplink.example', authType: 'none', ipType: 'ipv4', default: false },
  });
  expect(made.status()).toBe(200);
  const profile = (await made.json()).data.id as string;
  const gateway = await request.post('/api/main/resources/gateways', {
    headers: admin.as('OTHER'),
    data: { serial: 'GW-000555', name: 'Uplink gate', kind: 'indoor', ports: 4, apnProfileId: profile },
  });
  expect(gateway.status()).toBe(200);

  await signIn(page, 'admin@other.example.com');
  await page.goto(`/en-US/r/apn-profiles/show/${profile}`);
  await page.getByRole('button', { name: 'Delete Gateway uplink' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Gateway uplink is still used by other records: remove those first.');
  await expect(dialog.locator('.ant-modal-confirm-title')).toHaveText('Not deleted');
  // Trying again cannot pass: only Close is left, and the refusal is said once, in the dialog, not again in a toast.
  await expect(dialog.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await expect(page.getByText(/still used/)).toHaveCount(1);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('heading', { level: 3 })).toHaveText('Gateway uplink');

  // The same from the list, several ticked, in Chinese: nothing goes, the one in use is named.
  const spare = await request.post('/api/main/resources/apn-profiles', {
    headers: admin.as('OTHER'),
    data: { name: 'Spare uplink', apn: 'spare.example', authType: 'none', ipType: 'ipv4', default: false },
  });
  expect(spare.status()).toBe(200);
  await page.goto('/zh-CN/r/apn-profiles');
  await page.getByRole('checkbox', { name: /Gateway uplink/ }).check();
  await page.getByRole('checkbox', { name: /Spare uplink/ }).check();
  await page.getByRole('button', { name: /删除所选 2 项/ }).click();
  const bulk = page.getByRole('dialog');
  await expect(bulk.locator('.ant-modal-confirm-title')).toHaveText('删除这 2 项 APN 配置？');
  await bulk.getByRole('button', { name: zh('删除') }).click();
  await expect(bulk.getByRole('alert')).toHaveText('Gateway uplink 仍被其他记录使用，请先删除这些记录。');
  await expect(bulk.locator('.ant-modal-confirm-title')).toHaveText('未删除任何一项');
  await bulk.getByRole('button', { name: zh('关闭') }).click();
  await expect(bulk).toHaveCount(0);
  await expect(page.getByRole('row', { name: /Spare uplink/ })).toHaveCount(1);
});
