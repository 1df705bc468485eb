/**
 * Accessibility: every screen of SPEC.md section 2 passes axe-core's WCAG 2.x A and AA rules with no
 * serious or critical violation. The walk reads the console's own route table (src/shell/routes.ts), so a new screen is
 * checked without new test code; a screen outside the menu is reached as a person reaches it, through the first link to
 * it on the screen it highlights (a SIM's detail from the SIM list), or by its bare path when no link leads there.
 */
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContextOptions, Page } from '@playwright/test';
import axe from 'axe-core';
import { SCREENS, type ScreenDef } from '../../src/shell/routes';
import { expect, test } from './fixtures';
import { fillSignIn, signIn } from './helpers';

const ADMIN = 'admin@demo.example.com';
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'];
// axe leaves its experimental rules out of a run by tags; those that test a WCAG A or AA criterion are switched on (among
// them label-content-name-mismatch: a control's name holds its visible text).
const EXPERIMENTAL = Object.fromEntries(
  axe
    .getRules()
    .filter((r) => r.tags.includes('experimental') && r.tags.some((t) => WCAG.includes(t)))
    .map((r) => [r.ruleId, { enabled: true }]),
);
/** Signed-in pages that are not screens of the menu table but belong to the shell (the user menu's entries). */
const SHELL_PAGES = ['profile', 'changePassword'];
/** Pages outside the shell: sign-in's companions and the error pages. */
const STATIC_PAGES = ['termsOfUse', 'privacy', '401', 'no-such-page'];
const BRANDS = ['localhost', 'nova.localhost', 'aurora.localhost', 'terra.localhost'];

/**
 * The demo admin, signed in once per worker through the sign-in page; each signed-in test starts from that browser
 * state (the access token in localStorage, the refresh cookie) instead of signing in again.
 */
const signedIn = test.extend<object, { adminState: Exclude<BrowserContextOptions['storageState'], string | undefined> }>({
  adminState: [
    async ({ browser, workerServer }, use) => {
      const context = await browser.newContext({ baseURL: workerServer.url, locale: 'en-US' });
      const page = await context.newPage();
      await signIn(page, ADMIN);
      const state = await context.storageState();
      await context.close();
      await use(state);
    },
    { scope: 'worker' },
  ],
  storageState: async ({ adminState }, use) => use(adminState),
});

/**
 * One signed-in page for the walk over the screens, kept by the worker: each screen is a fresh load of the console
 * (page.goto), from the browser's cache after the first, instead of a new browser context per screen. A failed test
 * ends the worker, so the next one starts from a new page.
 */
const walk = signedIn.extend<object, { adminPage: Page }>({
  adminPage: [
    async ({ browser, workerServer, adminState }, use) => {
      const context = await browser.newContext({ baseURL: workerServer.url, locale: 'en-US', storageState: adminState });
      await use(await context.newPage());
      await context.close();
    },
    { scope: 'worker' },
  ],
});

/** The next frame has been drawn (what a key press or a click changed is on screen). */
const nextFrame = (page: Page) => page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));

/** Wait until the page has drawn its data: a heading or a link is there and nothing says it is busy. */
async function ready(page: Page): Promise<void> {
  await expect(page.getByRole('heading').or(page.getByRole('link')).first()).toBeVisible();
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
}

/** Ready, and every motion that ends has ended (a fade-in drawn half-transparent would be measured at the wrong contrast). */
async function settle(page: Page): Promise<void> {
  await ready(page);
  await nextFrame(page);
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity));
}

/** The serious and critical violations on the page as it stands, one readable line each (rule, target, summary). */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).options({ rules: EXPERIMENTAL }).withTags(WCAG).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(' ')}: ${n.failureSummary?.replace(/\s+/g, ' ').slice(0, 240)}`));
}

async function expectAccessible(page: Page): Promise<void> {
  // A toast left by the screen before (antd's message closes itself after 3 s) would fade out while axe reads the page
  // and be measured half-transparent (a fresh-clone run read #f5f5f5 on white): the page is measured once it is gone.
  await expect(page.locator('.ant-message-notice')).toHaveCount(0, { timeout: 15_000 });
  await settle(page);
  const found = await violations(page);
  expect(found, `${found.length} serious or critical violations on ${page.url()}`).toEqual([]);
}

const pathOf = (href: string) => new URL(href, 'http://x').pathname.replace(/^\/[^/]+\//, '');

/** The first link on the current page that leads to the screen (its path, with whatever query the link carries). */
async function linkTo(page: Page, screen: ScreenDef): Promise<string | undefined> {
  const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
  return hrefs.find((h) => pathOf(h) === screen.path);
}

/** Open a screen as a person would: by its menu path, or through the first link to it on the screen it highlights. */
async function openScreen(page: Page, screen: ScreenDef): Promise<void> {
  if (screen.highlights) {
    const from = SCREENS.find((s) => s.key === screen.highlights)!;
    await page.goto(`/en-US/${from.path}`);
    await ready(page);
    let href = await linkTo(page, screen);
    // One step further: a SIM invoice detail hangs off an invoice's detail, both highlighting the invoice list.
    if (!href) {
      for (const sibling of SCREENS.filter((s) => s.highlights === screen.highlights && s !== screen)) {
        const via = await linkTo(page, sibling);
        if (!via) continue;
        await page.goto(via);
        await ready(page);
        href = await linkTo(page, screen);
        if (href) break;
      }
    }
    if (href) {
      await page.goto(href);
      return;
    }
  }
  await page.goto(`/en-US/${screen.path}`);
}

test.describe('signed out', () => {
  test('the sign-in page has no serious or critical violation', async ({ page }) => {
    await page.goto('/en-US/login');
    await expectAccessible(page);
  });

  test('the forgot-password dialog has no serious or critical violation', async ({ page }) => {
    await page.goto('/en-US/login');
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    await expectAccessible(page);
  });

  for (const path of STATIC_PAGES) {
    test(`/${path} has no serious or critical violation`, async ({ page }) => {
      await page.goto(`/en-US/${path}`);
      await expectAccessible(page);
    });
  }
});

test.describe('every screen of the route table, as the demo admin', () => {
  for (const screen of SCREENS) {
    walk(`${screen.key} (/${screen.path}) has no serious or critical violation`, async ({ adminPage: page }) => {
      await openScreen(page, screen);
      await expectAccessible(page);
    });
  }
  for (const path of SHELL_PAGES) {
    walk(`/${path} has no serious or critical violation`, async ({ adminPage: page }) => {
      await page.goto(`/en-US/${path}`);
      await expectAccessible(page);
    });
  }
});

test.describe('every brand’s colours', () => {
  for (const host of BRANDS) {
    test(`${host}: sign-in, dashboard and SIM list have no serious or critical violation`, async ({ page, baseURL }) => {
      const origin = baseURL!.replace('localhost', host);
      await page.goto(`${origin}/en-US/login`);
      await expectAccessible(page);
      await fillSignIn(page, ADMIN);
      await expect(page).toHaveURL(/dashboard\/analysis$/);
      await expectAccessible(page);
      await page.goto(`${origin}/en-US/sim/simCard`);
      await expectAccessible(page);
    });
  }
});

/**
 * The focused element, or the control drawn around it (a select's box), shows a ring: an outline or a box shadow. A
 * select draws its ring on a class React sets after the focus event, so the ring is awaited, not read at once.
 */
async function expectVisibleFocus(page: Page): Promise<void> {
  await expect.poll(() => focusRing(page), { timeout: 3_000 }).toBe('ring');
}

async function focusRing(page: Page): Promise<string> {
  return page.evaluate(() => {
    let el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return 'nothing focused';
    const what = `${el.tagName} ${el.getAttribute('aria-label') ?? el.textContent?.slice(0, 40)}`;
    for (let up = 0; el && up < 4; up++, el = el.parentElement) {
      const s = getComputedStyle(el);
      if (
        (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) ||
        (s.boxShadow && s.boxShadow !== 'none' && !s.boxShadow.startsWith('rgba(0, 0, 0, 0.02)'))
      )
        return 'ring';
    }
    return `no ring on ${what}`;
  });
}

/** Press Tab until the element has the focus (at most `max` times), each stop visibly focused. */
async function tabTo(page: Page, target: ReturnType<Page['locator']>, max = 30): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el === document.activeElement || el.contains(document.activeElement))) return;
    await expectVisibleFocus(page);
  }
  throw new Error(`Tab never reached ${target}`);
}

/** The text of the focused element. */
const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');

/** Press a key and let the page draw what it moved (a menu moves the focus in the next frame). */
async function press(page: Page, key: string): Promise<void> {
  await page.keyboard.press(key);
  await nextFrame(page);
}

test.describe('keyboard alone', () => {
  signedIn('the side menu opens a group and a screen with the keyboard, focus visible', async ({ page }) => {
    await page.goto('/en-US/dashboard/analysis');
    await settle(page);
    const menu = page.getByRole('menu').first();
    await tabTo(page, menu);
    await expectVisibleFocus(page);
    // Down to the SIM group, open it, into its first item, Enter: the SIM list.
    for (let i = 0; i < 8 && (await focusedText(page)) !== 'SIM'; i++) await press(page, 'ArrowDown');
    expect(await focusedText(page)).toBe('SIM');
    await expectVisibleFocus(page);
    await press(page, 'Enter');
    await expect(menu.getByRole('menuitem', { name: 'All SIMs' })).toBeVisible();
    await press(page, 'ArrowDown');
    await expect.poll(() => focusedText(page)).toBe('All SIMs');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/en-US\/sim\/simCard$/);
  });

  signedIn('the menu folds and unfolds from the keyboard', async ({ page }) => {
    await page.goto('/en-US/dashboard/analysis');
    await settle(page);
    const fold = page.getByRole('button', { name: 'Collapse the menu' });
    await tabTo(page, fold);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'Expand the menu' })).toHaveAttribute('aria-expanded', 'false');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'Collapse the menu' })).toHaveAttribute('aria-expanded', 'true');
  });

  signedIn('the organisation switcher lists the organisations and reaches New organisation with the keyboard', async ({ page }) => {
    await page.goto('/en-US/dashboard/analysis');
    await settle(page);
    await tabTo(page, page.getByRole('button', { name: /^Organisation:/ }));
    await page.keyboard.press('Enter');
    await expect(page.getByRole('menuitem', { name: 'Demo Logistics North' })).toBeVisible();
    await expect
      .poll(() =>
        page
          .getByRole('menu')
          .last()
          .evaluate((m) => m.contains(document.activeElement)),
      )
      .toBe(true);
    // rc-menu moves the focus to the next organisation in the next frame: wait for it before Tab, as a person's
    // key presses are frames apart (a Tab pressed within the same frame is overtaken by the menu's own focus call).
    await press(page, 'ArrowDown');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('menuitem');
    await expectVisibleFocus(page);
    await press(page, 'Tab');
    await expect(page.getByRole('button', { name: 'New organisation' })).toBeFocused();
    await expectVisibleFocus(page);
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/\/en-US\/orgscreate$/);
  });

  signedIn('the sign-out dialog opens from the account menu, holds the focus and closes with the keyboard', async ({ page }) => {
    await page.goto('/en-US/dashboard/analysis');
    await settle(page);
    await tabTo(page, page.getByRole('button', { name: /^Account menu/ }));
    await page.keyboard.press('Enter');
    await expect(page.getByRole('menuitem', { name: 'Sign out' })).toBeVisible();
    await expect
      .poll(() =>
        page
          .getByRole('menu')
          .last()
          .evaluate((m) => m.contains(document.activeElement)),
      )
      .toBe(true);
    for (let i = 0; i < 8 && (await focusedText(page)) !== 'Sign out'; i++) await press(page, 'ArrowDown');
    expect(await focusedText(page)).toBe('Sign out');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await expect(dialog).toBeVisible();
    await expect.poll(() => dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    await expectAccessible(page);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(/dashboard\/analysis$/);
  });

  test('the sign-in form is filled and sent with the keyboard alone, every stop visibly focused', async ({ page }) => {
    await page.goto('/en-US/login');
    await settle(page);
    await tabTo(page, page.getByLabel('E-mail'));
    await page.keyboard.type(ADMIN);
    await tabTo(page, page.getByLabel('Password'));
    await page.keyboard.type('Demo#2026');
    await tabTo(page, page.getByLabel('Verification code'));
    await page.keyboard.type('246810');
    await tabTo(page, page.getByRole('checkbox'));
    await page.keyboard.press('Space');
    await expect(page.getByRole('checkbox')).toBeChecked();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/dashboard\/analysis$/);
  });
});
