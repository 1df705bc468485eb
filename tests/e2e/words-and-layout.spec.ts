/**
 * Lists at 1280 px: in every language, every column header and every cell of every list page is within the table's
 * visible area, in line with its header, clear of the fixed columns, and readable: no words cut without an ellipsis
 * and its tooltip, no word broken in the middle, no text wrapped into a narrow column a character or two per line.
 * The administrator's task center (with the Started by column of the organisation's tasks), the rule list and a
 * rule's run history are among them. And the SIM search says when what is typed is too short to search.
 */
import { DEMO_RULE_ID, DEMO_SCHEDULE_ID } from '../../server/db/seed/fixtures.js';
import en from '../../src/custom/autoflow/locales/en-US.json' with { type: 'json' };
import es from '../../src/custom/autoflow/locales/es-ES.json' with { type: 'json' };
import zhCN from '../../src/custom/autoflow/locales/zh-CN.json' with { type: 'json' };
import zhTW from '../../src/custom/autoflow/locales/zh-TW.json' with { type: 'json' };
import { expect, test } from './fixtures';
import { signIn } from './helpers';
import { layoutProblems } from './layout-problems';

const LANGS = { 'en-US': en, 'es-ES': es, 'zh-CN': zhCN, 'zh-TW': zhTW };
type Lang = keyof typeof LANGS;

/** Every list page of the console, and the tabs of a page to open in turn (by their names in the language shown). */
const LISTS: Array<{ path: string; tabs?: (lang: Lang) => string[] }> = [
  { path: 'sim/simCard' },
  { path: 'sim/service' },
  { path: 'sim/shared' },
  { path: 'sim/reports' },
  { path: 'finance' },
  { path: 'message' },
  { path: 'scheduleSmsDetails' },
  { path: `scheduleSmsDetails?id=${DEMO_SCHEDULE_ID}` },
  { path: 'autoflow' },
  // A rule's run history, its SIMs in scope and its changes.
  { path: `trigger?id=${DEMO_RULE_ID}`, tabs: (lang) => [LANGS[lang].autoflow.simsInScope, LANGS[lang].autoflow.changes] },
  { path: 'cdrCard' },
  { path: 'setCard' },
  { path: 'orgs' },
  { path: 'notifications' },
  { path: 'taskcenter' },
];

const soft = expect.configure({ soft: true });

for (const lang of Object.keys(LANGS) as Lang[]) {
  test(`every list fits 1280 px in ${lang}: every header and cell in the table, clear of the fixed columns and readable`, async ({ page }) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, 'admin@demo.example.com');
    for (const list of LISTS) {
      await page.goto(`/${lang}/${list.path}`);
      const rows = page.locator('.ant-table-tbody tr.ant-table-row, .ant-table-tbody .ant-empty');
      await expect(rows.first()).toBeVisible();
      if (list.path === 'taskcenter') {
        // The administrator's view: the organisation's tasks, some started by other members, named in their own column.
        await expect(
          page
            .getByRole('row')
            .filter({ hasText: /Olivia Operator|Sofia Superadmin|[A-Z][a-z]+ User(?![a-z])/ })
            .first(),
        ).toBeVisible();
      }
      const views = [list.path, ...(list.tabs?.(lang) ?? [])];
      for (const [i, view] of views.entries()) {
        if (i > 0) {
          await page.getByRole('tab', { name: view }).click();
          await expect(
            page.locator('.ant-tabs-tabpane-active').locator('.ant-table-tbody tr.ant-table-row, .ant-table-tbody .ant-empty').first(),
          ).toBeVisible();
        }
        // Every page where something is hidden or hard to read (soft), not only the first.
        soft(await layoutProblems(page), `${lang} ${view}`).toEqual([]);
      }
    }
  });
}

test('one digit in the SIM search is not a search yet, and the box says so under it, in the interface language', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, 'admin@demo.example.com');
  for (const [lang, words] of [
    ['en-US', 'Type at least 2 characters to search'],
    ['zh-CN', '至少输入 2 个字符才会搜索'],
  ] as const) {
    await page.goto(`/${lang}/sim/simCard`);
    const total = page.locator('.ant-pagination-total-text');
    await expect(total).toBeVisible();
    const before = await total.textContent();
    const search = page.locator('input[id$="-__search"]');
    await search.fill('7');
    const note = page.getByText(words, { exact: true });
    await expect(note).toBeVisible();
    // Under the box, and the box names it (aria-describedby) for a screen reader.
    const [box, under] = [await search.boundingBox(), await note.boundingBox()];
    expect(under!.y).toBeGreaterThanOrEqual(box!.y + box!.height - 1);
    await expect(search).toHaveAttribute('aria-describedby', (await note.getAttribute('id'))!);
    // Not sent: the list is the whole list still.
    await expect(total).toHaveText(before!);
    await search.fill('77');
    await expect(note).toHaveCount(0);
    await expect(search).not.toHaveAttribute('aria-describedby');
  }
});

test('a part of an ICCID in a rule’s run history is not searched, and the box says why under it', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  const searched: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/rules/triggers/')) searched.push(new URL(r.url()).searchParams.get('iccid') ?? '');
  });
  for (const [lang, box, whole, digits] of [
    ['en-US', 'Filter by ICCID', 'Type the whole ICCID, 18 to 20 digits, to search', 'Digits only for this field'],
    ['zh-CN', '按 ICCID 筛选', '输入完整的 ICCID（18 到 20 位数字）才会搜索', '此字段只能输入数字'],
  ] as const) {
    await page.goto(`/${lang}/trigger?id=${DEMO_RULE_ID}`);
    const search = page.getByRole('searchbox', { name: box });
    await search.fill('8986');
    const note = page.getByText(whole, { exact: true });
    await expect(note).toBeVisible();
    // Under the box, and the box names it (aria-describedby) for a screen reader.
    const [at, under] = [await search.boundingBox(), await note.boundingBox()];
    expect(under!.y).toBeGreaterThanOrEqual(at!.y + at!.height - 1);
    await expect(search).toHaveAttribute('aria-describedby', (await note.getAttribute('id'))!);
    await search.fill('8986x');
    await expect(page.getByText(digits, { exact: true })).toBeVisible();
    // A whole ICCID is searched, and nothing is said.
    const sent = page.waitForRequest((r) => r.url().includes('/rules/triggers/') && r.url().includes('iccid=8986000000000000001'));
    await search.fill('8986000000000000001');
    await sent;
    await expect(page.getByText(whole, { exact: true })).toHaveCount(0);
    await expect(search).not.toHaveAttribute('aria-describedby');
  }
  // Neither part was sent.
  expect(searched.filter((v) => v && v !== '8986000000000000001')).toEqual([]);
});
