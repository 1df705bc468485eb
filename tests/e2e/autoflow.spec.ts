/**
 * Automation rules as an admin meets them, in English and in Chinese: a rule built on the canvas (data usage
 * above 50 MB in the cycle → suspend + webhook, on one SIM typed into the scope node; the condition opened with the
 * keyboard, its missing threshold shown on its node, an action added as a node) and saved; the scheduled evaluation
 * (every 2 s on the e2e servers: AUTOFLOW_SCHEDULE_SECONDS in e2e-env.ts) trips it on that SIM's cycle usage, the
 * network suspends the SIM, and the run is in the history with each action's outcome; try-it-out shows the webhook body;
 * an operator, who lacks the autoflow resource, is told so in SPEC.md's words.
 */
import en from '../../src/locales/en-US.json' with { type: 'json' };
import zh from '../../src/locales/zh-CN.json' with { type: 'json' };
import enCommon from '../../common/locales/en-US.json' with { type: 'json' };
import zhCommon from '../../common/locales/zh-CN.json' with { type: 'json' };
import enRules from '../../src/custom/autoflow/locales/en-US.json' with { type: 'json' };
import zhRules from '../../src/custom/autoflow/locales/zh-CN.json' with { type: 'json' };
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, CODE, PASSWORD } from './helpers';

const LANGS = [
  { lang: 'en-US', words: { ...en, ...enRules }, common: enCommon },
  { lang: 'zh-CN', words: { ...zh, ...zhRules }, common: zhCommon },
] as const;
const ADMIN = 'admin@demo.example.com';
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A button's name: antd puts a space between the two characters of a two-character Chinese label. */
const button = (label: string) => new RegExp(`${[...label].map(esc).join('\\s?')}`);
/** A node of the canvas, named by its visible text: "Condition: above 50 MB in the bundle cycle". */
const node = (page: Page, label: string) => page.getByRole('button', { name: new RegExp(`^${esc(label)}\\s?:`) });

async function signIn(page: Page, lang: string, email: string): Promise<void> {
  await page.goto(`/${lang}/login`);
  await page.locator('#username').fill(email);
  await page.locator('#password').fill(PASSWORD);
  await page.locator('#verificationCode').fill(CODE);
  await page.getByRole('checkbox').check();
  await page.locator('button[type=submit]').click();
  await expect(page).toHaveURL(/dashboard\/analysis$/);
}

LANGS.forEach(({ lang, words, common }, index) => {
  const w = words.autoflow;
  test(`${lang}: an admin builds a usage rule on the canvas, watches it trip on its SIM and sees the run and the webhook body`, async ({ page, request }) => {
    const api = await apiSession(request, ADMIN);
    const headers = api.as('DEMO');
    await signIn(page, lang, ADMIN);

    await page.getByRole('menuitem', { name: words.menu.autoflow }).click();
    await expect(page.getByRole('heading', { name: words.menu.autoflow })).toBeVisible();
    await page.getByRole('button', { name: button(w.newRule) }).click();
    await expect(page.getByRole('heading', { name: w.createTitle })).toBeVisible();
    // The builder is outside the menu: the automation item stays highlighted.
    await expect(page.locator('.ant-menu-item-selected')).toContainText(words.menu.autoflow);

    // The SIM the rule watches: an active one already past 50 MB in its cycle (its usage as the network reported it; the
    // e2e servers run no background traffic), one per language so the two runs do not meet.
    const sims = await (
      await request.post('/api/main/sim/list/es', { headers, data: { status: 'active', pageSize: 20, sort: 'cycleUsageKb', order: 'desc' } })
    ).json();
    const over = (sims.data.items as Array<{ iccid: string; cycleUsageKb: number; poolId: string | null }>).filter(
      (s) => s.cycleUsageKb > 50 * 1024 && !s.poolId,
    );
    const iccid = over[index].iccid;

    const name = `Usage over 50 MB ${lang}`;
    await page.getByLabel(w.fields.name, { exact: true }).fill(name);
    // The trigger: data usage, picked in the trigger node's panel.
    await node(page, w.node.trigger).click();
    const panel = page.getByRole('region', { name: w.node.trigger });
    await panel.getByLabel(w.trigger.fields.type).click({ force: true });
    await page.locator(`.ant-select-item-option[title="${w.trigger.enum.type.data_usage}"]`).click();
    await panel.getByRole('button', { name: button(w.done) }).click();

    // Saved without a threshold: the condition's node says what is missing.
    await page.getByRole('button', { name: button(w.save) }).click();
    const condition = node(page, w.node.condition);
    await expect(condition).toContainText(w.trigger.fields.threshold);
    // Opened with the keyboard: focus the node, Enter.
    await condition.focus();
    await page.keyboard.press('Enter');
    const form = page.getByRole('region', { name: w.node.condition });
    await form.getByLabel(w.trigger.fields.threshold).fill('50');
    const over50 = w.words.dataUsage.replace('{{value}}', '50').replace('{{unit}}', 'MB').replace('{{window}}', w.trigger.enum.window.cycle);
    await expect(condition).toContainText(over50);
    await expect(condition).not.toContainText(w.trigger.fields.threshold);

    // The scope: the one SIM, typed in.
    await node(page, w.node.scope).click();
    const scope = page.getByRole('region', { name: w.node.scope });
    await scope.getByLabel(w.scope.fields.type).click({ force: true });
    await page.locator(`.ant-select-item-option[title="${w.scope.enum.type.iccids}"]`).click();
    await scope.getByLabel(w.scope.fields.iccids).fill(iccid);
    await scope.getByRole('button', { name: button(w.done) }).click();

    // Suspend is the first action; the webhook is added as a second node.
    await expect(node(page, w.node.actionN.replace('{{n}}', '1'))).toContainText(w.action.enum.type.suspend);
    await page.getByRole('button', { name: button(w.addAction) }).click();
    await page.getByRole('menuitem', { name: w.action.enum.type.webhook }).click();
    await expect(node(page, w.node.actionN.replace('{{n}}', '2'))).toContainText(w.action.enum.type.webhook);
    await page.getByRole('button', { name: button(w.save) }).click();
    // A new rule that suspends asks first, naming how many SIMs it would suspend now (the one typed in: 1).
    const ask = page.getByRole('dialog');
    await expect(ask).toContainText(w.enableConfirm.now.suspend_one.replace('{{n}}', '1'));
    await ask.getByRole('button', { name: button(w.enableConfirm.saveEnable) }).click();
    await expect(page).toHaveURL(/\/autoflow$/);
    const row = page.getByRole('row').filter({ hasText: name });
    await expect(row).toContainText(w.words.triggerLine.replace('{{name}}', w.trigger.enum.type.data_usage).replace('{{condition}}', over50));
    await expect(row).toContainText(w.action.enum.type.webhook);

    // The scheduled evaluation trips it: the network suspends the SIM.
    await expect
      .poll(async () => (await (await request.post('/api/main/sim/list/es', { headers, data: { iccids: [iccid] } })).json()).data.items[0]?.status, {
        timeout: 30_000,
      })
      .toBe('paused');

    // The run is in the history with each action's outcome.
    await row.getByRole('link', { name }).click();
    await expect(page.getByRole('heading', { name })).toBeVisible();
    const run = page.getByRole('tabpanel', { name: w.runs }).getByRole('row').filter({ hasText: iccid });
    // The suspend's outcome is written when the network has answered: the page's refresh shows it then.
    await expect(async () => {
      await page
        .getByRole('tabpanel', { name: w.runs })
        .getByRole('button', { name: button(w.refresh) })
        .click();
      await expect(run).toContainText(`${w.action.enum.type.suspend}: ${w.outcome.done}`, { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
    await expect(run).toContainText(w.trigger.enum.type.data_usage);
    await expect(run).toContainText(`${w.action.enum.type.webhook}: ${w.outcome.queued}`);
    // Filtered by one action's outcome: a failed suspend finds none, a done one finds the run.
    const runs = page.getByRole('tabpanel', { name: w.runs });
    await runs.getByRole('combobox', { name: w.fields.actionOutcome }).click({ force: true });
    await page.locator(`.ant-select-item-option[title="${w.outcome.failed}"]`).last().click();
    await expect(run).toHaveCount(0);
    await runs.getByRole('combobox', { name: w.fields.actionOutcome }).click({ force: true });
    await page.locator(`.ant-select-item-option[title="${w.outcome.done}"]`).last().click();
    await expect(run).toHaveCount(1);
    // The change records: who made the rule and what it was.
    await page.getByRole('tab', { name: w.changes }).click();
    const change = page.getByRole('tabpanel', { name: w.changes }).getByRole('row').filter({ hasText: ADMIN });
    await expect(change).toContainText(w.changeAction.create);
    await expect(change).toContainText(w.changeValue.replace('{{field}}', w.fields.name).replace('{{value}}', name));
    await page.getByRole('tab', { name: w.simsInScope }).click();
    await expect(page.getByRole('tabpanel', { name: w.simsInScope }).getByRole('cell', { name: iccid })).toBeVisible();
    // The SIM back as it was for the specs after this one (the rule stays tripped for this cycle: it does not fire again).
    expect((await request.post('/api/main/sim/resume', { headers, data: { iccids: [iccid] } })).status()).toBe(200);

    // Try-it-out on the rule built on the canvas: the exact body its webhook action sends.
    await page.getByRole('tab', { name: w.tryItOut }).click();
    const body = page.getByRole('tabpanel', { name: w.tryItOut }).locator('pre');
    await expect(body).toContainText('"subtype": "rule_fired"');
    await expect(body).toContainText(`"ruleName": "${name}"`);
    await expect(body).toContainText('"trigger": "data_usage"');
  });

  test(`${lang}: an operator, without the autoflow resource, is told so`, async ({ page }) => {
    await signIn(page, lang, 'operator@demo.example.com');
    await expect(page.getByRole('menuitem', { name: words.menu.autoflow })).toHaveCount(0);
    await page.goto(`/${lang}/workFlowOperation?template=suspendOver1Gb`);
    await expect(page.getByText(common.errors.autoflowWriteMissing)).toBeVisible();
    await expect(page).toHaveURL(/dashboard\/analysis$/);
  });
});
