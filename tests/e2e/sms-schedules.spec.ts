/**
 * Scheduled SMS as an admin meets it: from the menu to a new weekly schedule (one SIM picked by its last
 * digits, one pasted, one from an Excel file the server reads), its details with the coming runs, disabled after a confirmation, the operation log saying who
 * did what, and a seeded schedule's execution history opened down to its messages. In English and in Chinese.
 */
import en from '../../src/locales/en-US.json' with { type: 'json' };
import zh from '../../src/locales/zh-CN.json' with { type: 'json' };
import enSchedules from '../../src/custom/sms-schedules/locales/en-US.json' with { type: 'json' };
import zhSchedules from '../../src/custom/sms-schedules/locales/zh-CN.json' with { type: 'json' };
import common from '../../common/locales/en-US.json' with { type: 'json' };
import commonZh from '../../common/locales/zh-CN.json' with { type: 'json' };
import * as XLSX from '@e965/xlsx';
import { DEMO_SIMS } from '../../server/db/seed-fleet.js';
import { expect, test } from './fixtures';

const LANGS = [
  { lang: 'en-US', words: { ...en, ...enSchedules }, shared: common, wednesday: 'Wednesday', expand: 'Expand row' },
  { lang: 'zh-CN', words: { ...zh, ...zhSchedules }, shared: commonZh, wednesday: '星期三', expand: '展开行' },
] as const;

/** An Excel workbook whose first column lists ICCIDs under the template's header. */
const workbook = (iccids: string[]) => {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['ICCID'], ...iccids.map((i) => [i])]), 'Sheet1');
  return XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
};

/** A button's name: antd puts a space between the two characters of a two-character Chinese label. */
const button = (label: string) => new RegExp(`${[...label].map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s?')}`);

for (const { lang, words, shared, wednesday, expand } of LANGS) {
  const w = words.smsSchedules;
  test(`${lang}: an admin creates a weekly schedule, disables it and reads its history`, async ({ page }) => {
    await page.goto(`/${lang}/login`);
    await page.locator('#username').fill('admin@demo.example.com');
    await page.locator('#password').fill('Demo#2026');
    await page.locator('#verificationCode').fill('246810');
    await page.getByRole('checkbox').check();
    const resources = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/main/resources');
    await page.locator('button[type=submit]').click();
    await expect(page).toHaveURL(/dashboard\/analysis$/);
    // The shell settled (its menu is drawn again once the organisation's resources answer): a click on a menu item
    // during that redraw was once lost under load.
    await resources;

    // The menu's SMS group holds the scheduled SMS.
    await page.getByRole('menuitem', { name: words.menu.group.message }).click();
    await page.getByRole('menuitem', { name: words.menu.scheduleSmsDetails }).click();
    await expect(page.getByRole('heading', { name: words.menu.scheduleSmsDetails })).toBeVisible();
    await page.getByRole('button', { name: button(w.new) }).click();
    await expect(page.getByRole('heading', { name: words.menu.scheduleSmsAdd })).toBeVisible();

    const name = `Weekly check ${lang}`;
    await page.getByLabel(w.fields.name).fill(name);
    await page.getByLabel(w.fields.content).fill('STATUS?');
    await expect(page.getByText(w.characters.replace('{{count}}', '7').replace('{{limit}}', '140'))).toBeVisible();
    await page.getByRole('checkbox', { name: wednesday }).check();
    // One SIM found by its last digits, one pasted.
    await page.getByRole('combobox', { name: w.pickSim }).fill(DEMO_SIMS.active.slice(-6));
    // antd draws the visible option beside a hidden list for screen readers: the visible one carries the title.
    await page.getByTitle(new RegExp(DEMO_SIMS.active)).click();
    const targets = page.getByLabel(w.fields.targets, { exact: true });
    await expect(targets).toHaveValue(DEMO_SIMS.active);
    await targets.fill(`${DEMO_SIMS.active}\n${DEMO_SIMS.pre_activated}`);
    await expect(page.getByText(w.targetCount.replace('{{count}}', '2').replace('{{max}}', '1000'))).toBeVisible();
    // A third from an Excel file, read by the server; a file of another type is refused in the page's language.
    const chooser = page.locator('input[type=file]');
    await chooser.setInputFiles({ name: 'notes.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4') });
    await expect(page.getByText(shared.rules.fileType.replace('{{field}}', shared.fields.file).replace('{{types}}', '.xlsx, .xls, .csv, .txt'))).toBeVisible();
    await chooser.setInputFiles({
      name: 'more.xlsx',
      mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      buffer: workbook([DEMO_SIMS.paused]),
    });
    await expect(page.getByText(w.fileRead.replace('{{name}}', 'more.xlsx').replace('{{count}}', '1'))).toBeVisible();
    await expect(targets).toHaveValue(`${DEMO_SIMS.active}\n${DEMO_SIMS.pre_activated}\n${DEMO_SIMS.paused}`);
    await expect(page.getByText(w.targetCount.replace('{{count}}', '3').replace('{{max}}', '1000'))).toBeVisible();
    await page.getByRole('button', { name: button(w.create) }).click();

    // Its details: enabled, three targets, the coming runs, no run yet.
    await expect(page.getByRole('heading', { name })).toBeVisible();
    await expect(page.getByText(w.status.enabled, { exact: true })).toBeVisible();
    await expect(page.getByText(w.upcoming.split(/[(（]/)[0].trim(), { exact: false })).toBeVisible();
    await expect(page.getByText(w.noRuns)).toBeVisible();

    await page.getByRole('button', { name: button(w.disable) }).click();
    await page
      .getByRole('tooltip')
      .getByRole('button', { name: button(w.disable) })
      .click();
    await expect(page.getByText(w.status.disabled, { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: button(w.enable) })).toBeVisible();

    await page.getByRole('tab', { name: w.operationLog }).click();
    const log = page.getByRole('tabpanel', { name: w.operationLog });
    await expect(log.getByRole('row').filter({ hasText: w.logAction.disable })).toContainText('Adam Admin');
    await expect(log.getByRole('row').filter({ hasText: w.logAction.create })).toBeVisible();

    // A seeded schedule's history, one run opened down to its messages.
    await page.getByRole('link', { name: w.backToList }).click();
    await page.getByRole('link', { name: 'Daily heartbeat ping' }).click();
    await expect(page.getByRole('heading', { name: 'Daily heartbeat ping' })).toBeVisible();
    const history = page.getByRole('tabpanel', { name: w.history });
    await history.getByRole('button', { name: expand }).first().click();
    await expect(history.getByRole('cell', { name: w.recordStatus.delivered }).first()).toBeVisible();
  });
}
