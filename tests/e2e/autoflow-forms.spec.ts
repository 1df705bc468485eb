/**
 * The rule builder keeps what a person types and says what is wrong: a threshold out of range stays as typed, is
 * refused with its whole range in words, and neither Done nor Save goes through; a rule that suspends SIMs asks before
 * it is enabled, naming how many SIMs it would suspend now (the server's count); e-mail addresses and tags are entered
 * with Enter or a comma, and an address that is not one is said wrong instead of added.
 */
import enRules from '../../src/custom/autoflow/locales/en-US.json' with { type: 'json' };
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, CODE, PASSWORD } from './helpers';

const w = enRules.autoflow;
const ADMIN = 'admin@demo.example.com';
const RULES = '/api/rule/auto_flow/cube/rules';
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const node = (page: Page, label: string) => page.getByRole('button', { name: new RegExp(`^${esc(label)}\\s?:`) });

async function signIn(page: Page): Promise<void> {
  await page.goto('/en-US/login');
  await page.locator('#username').fill(ADMIN);
  await page.locator('#password').fill(PASSWORD);
  await page.locator('#verificationCode').fill(CODE);
  await page.getByRole('checkbox').check();
  await page.locator('button[type=submit]').click();
  await expect(page).toHaveURL(/dashboard\/analysis$/);
}

/** The rules of the demo organisation named so (not deleted). */
async function rulesNamed(request: APIRequestContext, headers: Record<string, string>, name: string) {
  const res = await (await request.get(`${RULES}?page=1&pageSize=20&search=${encodeURIComponent(name)}`, { headers })).json();
  return (
    res.data.items as Array<{ id: string; name: string; status: string; scope: { tags?: string[] }; actions: Array<{ type: string; emails?: string[] }> }>
  ).filter((r) => r.name === name);
}

/** Pick an option of the select labelled `label` in `scope`. */
async function choose(page: Page, scope: ReturnType<Page['getByRole']>, label: string, option: string) {
  await scope.getByLabel(label, { exact: true }).click({ force: true });
  await page.locator(`.ant-select-item-option[title="${option}"]`).last().click();
}

test('a threshold out of range stays as typed, is refused with its range, and Done and Save do not go through; enabling asks with the count', async ({
  page,
  request,
}) => {
  const headers = (await apiSession(request, ADMIN)).as('DEMO');
  await signIn(page);
  await page.goto('/en-US/workFlowOperation');
  await expect(page.getByRole('heading', { name: w.createTitle })).toBeVisible();
  const name = `Zero threshold ${Date.now()}`;
  await page.getByLabel(w.fields.name, { exact: true }).fill(name);

  await node(page, w.node.condition).click();
  const form = page.getByRole('region', { name: w.node.condition });
  await choose(page, form, w.trigger.fields.unit, w.trigger.enum.unit.KB);
  const threshold = form.getByLabel(w.trigger.fields.threshold);
  const range = 'Threshold must be between 1 and 1,073,741,824 KB';
  for (const typed of ['0', '-5', '1073741825']) {
    await threshold.fill(typed);
    await threshold.blur();
    // Left as typed (never clamped to 1 or to the maximum), and said wrong with the whole range.
    await expect(threshold).toHaveValue(typed);
    await expect(form.getByText(range)).toBeVisible();
  }
  await threshold.fill('0');
  await form.getByRole('button', { name: w.done }).click();
  // Done is refused: the panel stays open with the value and the message.
  await expect(form).toBeVisible();
  await expect(threshold).toHaveValue('0');
  await expect(form.getByText(range)).toBeVisible();

  // Save is refused too: no confirmation, no rule.
  await page.getByRole('button', { name: w.save }).click();
  await expect(page.getByText(w.fixMarked)).toBeVisible();
  await expect(node(page, w.node.condition)).toContainText(range);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page).toHaveURL(/workFlowOperation/);
  expect(await rulesNamed(request, headers, name)).toEqual([]);

  // A valid threshold: saving (a new rule is enabled) first asks, naming how many SIMs the engine would suspend now.
  await threshold.fill('1');
  await threshold.blur();
  await expect(form.getByText(range)).toHaveCount(0);
  const doc = { name, trigger: { type: 'data_usage', threshold: 1, unit: 'KB', window: 'cycle' }, scope: { type: 'all' }, actions: [{ type: 'suspend' }] };
  const impact = (await (await request.post(`${RULES}/impact`, { headers, data: doc })).json()).data as { count: number; basis: string };
  expect(impact.basis).toBe('now');
  expect(impact.count).toBeGreaterThan(0);
  await page.getByRole('button', { name: w.save }).click();
  const dialog = page.getByRole('dialog');
  const ask = (impact.count === 1 ? w.enableConfirm.now.suspend_one : w.enableConfirm.now.suspend_other).replace('{{n}}', impact.count.toLocaleString('en-US'));
  await expect(dialog).toContainText(ask);
  await expect(dialog).toContainText(w.enableConfirm.title.replace('{{name}}', name));
  // Cancelled: nothing is saved, the builder stays.
  await dialog.getByRole('button', { name: w.enableConfirm.cancel }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page).toHaveURL(/workFlowOperation/);
  expect(await rulesNamed(request, headers, name)).toEqual([]);
});

test('switching on a disabled rule that suspends asks first with the count; cancelled it stays disabled', async ({ page, request }) => {
  const headers = (await apiSession(request, ADMIN)).as('DEMO');
  const name = `Disabled suspender ${Date.now()}`;
  const doc = {
    name,
    trigger: { type: 'status_change', from: 'any', to: 'paused' },
    scope: { type: 'all' },
    actions: [{ type: 'suspend' }],
    status: 'disabled',
  };
  const created = await request.post(RULES, { headers, data: doc });
  expect(created.status(), await created.text()).toBe(200);
  const { count } = (await (await request.post(`${RULES}/impact`, { headers, data: doc })).json()).data as { count: number };
  await signIn(page);
  await page.goto('/en-US/autoflow');
  await page.getByRole('searchbox', { name: w.searchName }).fill(name);
  const row = page.getByRole('row').filter({ hasText: name });
  await row.getByRole('switch').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(w.enableConfirm.scope.suspend_other.replace('{{n}}', count.toLocaleString('en-US')));
  await dialog.getByRole('button', { name: w.enableConfirm.cancel }).click();
  await expect(row.getByRole('switch')).not.toBeChecked();
  expect((await rulesNamed(request, headers, name))[0].status).toBe('disabled');
  // Agreed: it is enabled.
  await row.getByRole('switch').click();
  await page.getByRole('dialog').getByRole('button', { name: w.enableConfirm.ok }).click();
  await expect(row.getByRole('switch')).toBeChecked();
  expect((await rulesNamed(request, headers, name))[0].status).toBe('enabled');
  await request.put(`${RULES}/${(await rulesNamed(request, headers, name))[0].id}/disable`, { headers });
});

test('e-mail addresses and tags are entered with Enter and a comma; an address that is not one is said wrong, not added', async ({ page, request }) => {
  const headers = (await apiSession(request, ADMIN)).as('DEMO');
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await signIn(page);
  await page.goto('/en-US/workFlowOperation');
  const name = `E-mail and tags ${Date.now()}`;
  await page.getByLabel(w.fields.name, { exact: true }).fill(name);
  await node(page, w.node.condition).click();
  const condition = page.getByRole('region', { name: w.node.condition });
  await condition.getByLabel(w.trigger.fields.threshold).fill('1');
  await condition.getByRole('button', { name: w.done }).click();

  // The scope: SIMs with tags, one added with Enter and one with a comma.
  await node(page, w.node.scope).click();
  const scope = page.getByRole('region', { name: w.node.scope });
  await choose(page, scope, w.scope.fields.type, w.scope.enum.type.tags);
  const tags = scope.getByLabel(w.scope.fields.tags);
  await tags.fill('fleet');
  await tags.press('Enter');
  await tags.pressSequentially('cold,');
  await expect(scope.locator('.ant-tag')).toHaveText(['fleet', 'cold']);
  await expect(tags).toHaveValue('');
  await scope.getByRole('button', { name: w.done }).click();

  // The action: e-mail a group instead of suspending.
  await node(page, w.node.actionN.replace('{{n}}', '1')).click();
  const action = page.getByRole('region', { name: w.node.actionN.replace('{{n}}', '1') });
  await choose(page, action, w.action.fields.type, w.action.enum.type.email);
  const emails = action.getByLabel(w.action.fields.emails);
  await emails.fill('ops@demo.example.com');
  await emails.press('Enter');
  await emails.pressSequentially('night@demo.example.com,');
  await emails.fill('not-an-address');
  await emails.press('Enter');
  await expect(action.locator('.ant-tag')).toHaveText(['ops@demo.example.com', 'night@demo.example.com']);
  // Refused with its reason, kept in the box to be corrected.
  await expect(action.getByRole('alert')).toHaveText(`${w.action.items.emails} “not-an-address” must be a valid e-mail address`);
  await expect(emails).toHaveValue('not-an-address');
  await emails.fill('');
  await action.getByRole('button', { name: w.done }).click();
  await expect(node(page, w.node.actionN.replace('{{n}}', '1'))).toContainText(w.words.recipients_other.replace('{{count}}', '2'));

  // Nothing here acts on SIMs: saved without a question.
  await page.getByRole('button', { name: w.save }).click();
  await expect(page).toHaveURL(/\/autoflow$/);
  const [rule] = await rulesNamed(request, headers, name);
  expect(rule.scope.tags).toEqual(['fleet', 'cold']);
  expect(rule.actions).toEqual([{ type: 'email', emails: ['ops@demo.example.com', 'night@demo.example.com'] }]);
  expect(errors).toEqual([]);
  await request.put(`${RULES}/${rule.id}/disable`, { headers });
});

test('a 100-character rule name takes two lines at most in the list, whole on hover and focus', async ({ page, request }) => {
  const headers = (await apiSession(request, ADMIN)).as('DEMO');
  const name = `Long name ${Date.now()} `.padEnd(100, 'x');
  const created = await request.post(RULES, {
    headers,
    data: { name, trigger: { type: 'network_change' }, scope: { type: 'all' }, actions: [{ type: 'webhook' }], status: 'disabled' },
  });
  expect(created.status(), await created.text()).toBe(200);
  await signIn(page);
  await page.goto('/en-US/autoflow');
  await page.getByRole('searchbox', { name: w.searchName }).fill(name.slice(0, 30));
  const link = page.getByRole('link', { name });
  await expect(link).toBeVisible();
  // It wraps between its words, then is cut: two lines of the table at most, not seven.
  const box = (await link.boundingBox())!;
  const lineHeight = await link.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
  expect(box.height).toBeLessThanOrEqual(2 * lineHeight + 1);
  await link.focus();
  await expect(page.getByRole('tooltip')).toHaveText(name);
  await request.delete(`${RULES}/${(await rulesNamed(request, headers, name))[0].id}`, { headers });
});
