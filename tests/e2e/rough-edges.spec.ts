/**
 * The rough edges a new customer admin met at 1280 px: CDR durations without a unit and a chart that
 * ignored the list, unlabelled filters, forms that looked generated, tables cut off, a side menu that scrolled away,
 * no seats left for accounts, and Spanish cut off in the menu.
 */
import { type Locator, type Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { apiSession, signIn } from './helpers';

test.use({ viewport: { width: 1280, height: 800 } });

/** Wholly inside the window and not covered by anything (a fixed column, a sticky header): a person sees all of it. */
async function seenWhole(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.left < 0 || r.right > window.innerWidth || r.top < 0 || r.bottom > window.innerHeight) return false;
    return [0.1, 0.5, 0.9].every((fx) => {
      const hit = document.elementFromPoint(r.left + r.width * fx, r.top + r.height / 2);
      return hit !== null && (el === hit || el.contains(hit));
    });
  });
}

/** Scroll a table sideways to its end, as a person does with the wheel (Shift) over its rows. */
async function scrollTableToEnd(page: Page, cell: Locator): Promise<void> {
  const box = (await cell.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < 6; i++) await page.mouse.wheel(400, 0);
  await page.waitForTimeout(300);
}

test('CDR durations carry their unit, and the chart shows what the list searched: the same SIMs, the same days', async ({ page, request }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.getByRole('menuitem', { name: 'Call and data records' }).click();
  // Duration is not among the list's first columns at 1280 px; it is one tick away under Columns.
  await page.getByRole('button', { name: 'Columns' }).click();
  await page.getByRole('checkbox', { name: 'Duration' }).check();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('cell', { name: /^\d+ (sec|min|hr)( \d+ (sec|min))?$/ }).first()).toBeVisible();
  const iccid = (await page
    .getByRole('cell', { name: /^89\d{17,18}$/ })
    .first()
    .textContent())!.trim();
  const end = iccid.slice(-4);
  await page.getByRole('textbox', { name: 'Whole value or last characters' }).fill(end);
  await expect(page.getByRole('cell', { name: /^89\d{17,18}$/ }).first()).toHaveText(new RegExp(`${end}$`));

  await page.getByRole('button', { name: 'Chart' }).click();
  await expect(page).toHaveURL(new RegExp(`/en-US/chartView\\?iccid=${end}&from=\\d{4}-\\d{2}-\\d{2}&to=\\d{4}-\\d{2}-\\d{2}$`));
  await expect(page.getByRole('textbox', { name: 'ICCID' })).toHaveValue(end);
  await expect(page.getByText(`SIMs whose ICCID ends in ${end}`)).toBeVisible();
  const url = new URL(page.url());
  const s = await apiSession(request, 'admin@demo.example.com');
  const summary = await (
    await request.post('/api/cdr/sum/distributor/DEMO/stdcdrs', {
      headers: s.as('DEMO'),
      data: { iccid: end, from: url.searchParams.get('from'), to: url.searchParams.get('to') },
    })
  ).json();
  const whole = await (
    await request.post('/api/cdr/sum/distributor/DEMO/stdcdrs', {
      headers: s.as('DEMO'),
      data: { from: url.searchParams.get('from'), to: url.searchParams.get('to') },
    })
  ).json();
  expect(summary.data.total.cdrCount).toBeLessThan(whole.data.total.cdrCount);
  await expect(page.locator('.ant-statistic').filter({ hasText: 'Records' })).toContainText(summary.data.total.cdrCount.toLocaleString('en-US'));

  // Trailing digits typed in the chart itself are taken as the list takes them.
  await page.getByRole('textbox', { name: 'ICCID' }).fill('27');
  await expect(page.getByText('SIMs whose ICCID ends in 27')).toBeVisible();
  await expect(page.getByText(/Digits only/)).toHaveCount(0);
});

test('every SIM list filter carries its name: the two date windows read Activated and Expires', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/sim/simCard');
  await expect(page.getByRole('heading', { name: 'All SIMs' })).toBeVisible();
  await expect(page.getByText('Activated', { exact: true })).toBeVisible();
  await expect(page.getByText('Expires', { exact: true })).toBeVisible();
  // Each name is a label of its own control (a person clicking it lands in that filter).
  for (const name of ['Search', 'Activated', 'Expires', 'Lifecycle status', 'Connection', 'SIM technology', 'Product type', 'Shared pool', 'Batch number']) {
    const label = page.locator('label', { hasText: new RegExp(`^${name}$`) });
    await expect(label, name).toBeVisible();
    await expect(page.locator(`[id="${await label.getAttribute('for')}"]`), name).toBeVisible();
  }
});

test('forms read like hand-made ones: sentences naming the field, Previous left of Next, the switcher closes', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/newUser');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('E-mail is required')).toBeVisible();
  await expect(page.getByText('Role is required')).toBeVisible();
  await expect(page.getByText(/^is required$/)).toHaveCount(0);

  await page.goto('/en-US/setCard');
  await page.getByRole('button', { name: 'Invite' }).click();
  const dialog = page.getByRole('dialog', { name: 'Invite a person' });
  await dialog.getByLabel('E-mail').fill('side.by.side@partner.example.com');
  await dialog.getByRole('button', { name: 'Next' }).click();
  const previous = (await dialog.getByRole('button', { name: 'Previous' }).boundingBox())!;
  const next = (await dialog.getByRole('button', { name: 'Next' }).boundingBox())!;
  expect(Math.abs(previous.y - next.y)).toBeLessThan(4);
  expect(previous.x + previous.width).toBeLessThanOrEqual(next.x);
  await dialog.getByRole('button', { name: 'Close' }).click();

  await page.getByRole('button', { name: /^Organisation:/ }).click();
  const create = page.getByRole('button', { name: 'New organisation' });
  await create.click();
  await expect(page).toHaveURL(/\/en-US\/orgscreate$/);
  await expect(create).toBeHidden();
});

test('at 1280 px every table shows its actions and scrolls sideways inside itself, and the side menu stays in place', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/orgs');
  await expect(page.getByRole('cell', { name: 'Demo Logistics North' })).toBeVisible();
  for (const name of ['Name', 'SMS quota', 'Default', 'Actions'])
    expect(await seenWhole(page.getByRole('columnheader', { name, exact: true })), name).toBe(true);
  expect(await seenWhole(page.getByRole('row', { name: /Demo Logistics North/ }).getByRole('button', { name: 'Make default' }))).toBe(true);
  expect(await seenWhole(page.getByRole('row', { name: /Demo Logistics North/ }).getByRole('button', { name: 'Delete' }))).toBe(true);

  await page.goto('/en-US/taskcenter');
  await expect(page.getByRole('button', { name: 'Download' }).first()).toBeVisible();
  expect(await seenWhole(page.getByRole('columnheader', { name: 'Report' }))).toBe(true);
  expect(await seenWhole(page.getByRole('button', { name: 'Download' }).first())).toBe(true);

  // The SIM list is wider than the page: sideways inside the table, its ICCIDs kept in view, to Last session.
  await page.goto('/en-US/sim/simCard');
  const first = page.getByRole('cell', { name: /^89\d{17,18}$/ }).first();
  await expect(first).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
  await scrollTableToEnd(page, page.getByRole('cell', { name: /^\d+(\.\d)? (kB|MB|GB)$/ }).first());
  expect(await seenWhole(page.getByRole('columnheader', { name: 'Last session' }))).toBe(true);
  expect(await seenWhole(page.getByRole('columnheader', { name: 'ICCID' }))).toBe(true);
  expect(await seenWhole(first)).toBe(true);

  // A long page scrolled to its end: the menu is still there beside it.
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await page.waitForTimeout(200);
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(300);
  expect(await seenWhole(page.getByRole('menuitem', { name: 'Task center' }))).toBe(true);
});

test('accounts show their seats left, as organisations do (SPEC.md section 6)', async ({ page, request }) => {
  const s = await apiSession(request, 'admin@demo.example.com');
  const seats = (await (await request.get('/api/main/org/user/config/user_surplus/DEMO', { headers: s.as('DEMO') })).json()).data;
  const text = `${seats.accountsLeft} of ${seats.accountCap} accounts left`;
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/en-US/setCard');
  await expect(page.getByText(text)).toBeVisible();
  await page.getByRole('button', { name: 'New account' }).click();
  await expect(page.getByText(text)).toBeVisible();
  await page.goto('/en-US/setCard');
  await page.getByRole('button', { name: 'Invite' }).click();
  await expect(page.getByRole('dialog', { name: 'Invite a person' }).getByText(text)).toBeVisible();
});

test('in Spanish no menu entry is cut off', async ({ page }) => {
  await signIn(page, 'admin@demo.example.com');
  await page.goto('/es-ES/dashboard/analysis');
  await expect(page.getByRole('menuitem', { name: 'Centro de tareas' })).toBeVisible();
  const cut = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('[role="menuitem"] span')]
        .filter((s) => (s as HTMLElement).offsetParent !== null && s.scrollWidth > s.clientWidth + 1 && getComputedStyle(s).overflow === 'hidden')
        .map((s) => s.textContent),
    );
  expect(await cut()).toEqual([]);
  // Each group's entries, one group open at a time.
  for (const group of ['Panel', 'SIM']) {
    await page.getByRole('menuitem', { name: group, exact: true }).click();
    await page.waitForTimeout(300);
    expect(await cut(), group).toEqual([]);
  }
});
