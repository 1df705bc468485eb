/**
 * The demo seed: one partner brand (plus the three brand variants), a first-level organisation with
 * two sub-organisations, one account per role, and the fleet data every screen shows.
 * Runs once: a database that already has the demo brand is left alone.
 */
import type { Db, Queryable } from './db.js';
import type { FileStore } from '../job/storage.js';
import { hashPassword } from '../identity/passwords.js';
import { seedFleet, type SeedSize } from './seed-fleet.js';

export const DEMO_PASSWORD = 'Demo#2026';

export const DEMO_BRANDS = [
  { id: 'brand-default', partnerCode: 'DEMO', host: 'localhost', variant: 'default', platformName: 'IoT Connect', themeColor: '#d4380d' },
  { id: 'brand-nova', partnerCode: 'NOVA', host: 'nova.localhost', variant: 'nova', platformName: 'Nova IoT', themeColor: '#1677ff' },
  { id: 'brand-aurora', partnerCode: 'AURORA', host: 'aurora.localhost', variant: 'aurora', platformName: 'Aurora Connect', themeColor: '#13a8a8' },
  // Terra also has reports switched off: its menu has no Reports and sim/reports leads to the SIM list.
  {
    id: 'brand-terra',
    partnerCode: 'TERRA',
    host: 'terra.localhost',
    variant: 'terra',
    platformName: 'Terra M2M',
    themeColor: '#389e0d',
    reportsEnabled: false,
  },
] as const;

/** What sets each brand variant apart, so that every theme option of SPEC.md section 3 can be seen on a demo host. */
const VARIANT_THEMES: Record<string, Record<string, unknown>> = {
  default: {},
  // Nova: its own stylesheet and a tinted sign-in page.
  nova: {
    customStyle: '.brand-footer { letter-spacing: .02em; }',
    login: {
      backgroundColor: '#e6f4ff',
      logo: '',
      hideLogo: false,
      hideTitleLink: true,
      title: 'Nova IoT Console',
      hidePrivacyPolicy: false,
      hideContactUs: false,
    },
  },
  // Aurora: English and Spanish only, Spanish first; no privacy link on sign-in.
  aurora: {
    localizations: { supportedLanguages: ['es-ES', 'en-US'], defaultLanguage: 'es-ES' },
    login: {
      backgroundColor: '#e6fffb',
      logo: '',
      hideLogo: false,
      hideTitleLink: false,
      title: 'Aurora Connect',
      hidePrivacyPolicy: true,
      hideContactUs: false,
    },
  },
  // Terra: no support button, no documentation, no About, no contact link, no logo on sign-in.
  terra: {
    support: { hideSupport: true, spanishEmail: 'soporte@terra.example.com', englishEmail: 'support@terra.example.com' },
    hideCubeDocumentation: true,
    login: { backgroundColor: '#f6ffed', logo: '', hideLogo: true, hideTitleLink: true, title: 'Terra M2M', hidePrivacyPolicy: false, hideContactUs: true },
  },
};

export const DEMO_ORGS = [
  { id: 'org-demo', code: 'DEMO', name: 'Demo Logistics GmbH', country: 'DE', parent: null, level: 1, smsQuota: 10000 },
  { id: 'org-demo-north', code: 'DEMO-NORTH', name: 'Demo Logistics North', country: 'DE', parent: 'org-demo', level: 2, smsQuota: 2000 },
  { id: 'org-demo-south', code: 'DEMO-SOUTH', name: 'Demo Logistics South', country: 'ES', parent: 'org-demo', level: 2, smsQuota: 2000 },
  // Another customer, so tests can prove one organisation never sees another's data.
  { id: 'org-other', code: 'OTHER', name: 'Other Customer Ltd', country: 'GB', parent: null, level: 1, smsQuota: 5000 },
] as const;

export const DEMO_ACCOUNTS = [
  { id: 'acc-superadmin', email: 'superadmin@demo.example.com', first: 'Sofia', last: 'Superadmin', role: 'superadmin', oversight: true, locale: 'en-US' },
  { id: 'acc-admin', email: 'admin@demo.example.com', first: 'Adam', last: 'Admin', role: 'admin', oversight: false, locale: 'en-US' },
  { id: 'acc-operator', email: 'operator@demo.example.com', first: 'Olivia', last: 'Operator', role: 'operator', oversight: false, locale: 'en-US' },
  { id: 'acc-user', email: 'user@demo.example.com', first: 'Umar', last: 'User', role: 'user', oversight: false, locale: 'en-US' },
  { id: 'acc-other-admin', email: 'admin@other.example.com', first: 'Otto', last: 'Other', role: 'admin', oversight: false, locale: 'en-US' },
] as const;

/**
 * The provider's billing clerk: a back-office account (accounts.back_office), the only kind that makes, corrects,
 * credits and settles invoices (common/permissions.ts). It is a user of the organisations it bills, which their
 * account lists and seats leave out.
 */
export const BACK_OFFICE_ACCOUNT = {
  id: 'acc-billing',
  email: 'billing@provider.example.com',
  first: 'Bea',
  last: 'Billing',
  locale: 'en-US',
  orgs: ['org-demo', 'org-other'],
} as const;

/**
 * Seed the demo data once. size "small" keeps test databases quick; "demo" fills every screen. files: where the files
 * the seed lists (reports, finished exports) are written; without it the seed lists none. now: the moment the data is
 * dated from (this one by default).
 */
export async function seedDemo(db: Db, opts: { size?: SeedSize; files?: FileStore; now?: Date } = {}): Promise<boolean> {
  const done = await db.query("SELECT 1 FROM brands WHERE id = 'brand-default'");
  if (done.rows.length > 0) return false;
  const hash = await hashPassword(DEMO_PASSWORD);
  return db.tx(async (q) => {
    // Several instances starting at once: one seeds, the others wait for it and find the seed there.
    if (db.kind === 'postgres') await q.query('SELECT pg_advisory_xact_lock(727002)');
    if ((await q.query("SELECT 1 FROM brands WHERE id = 'brand-default'")).rows.length > 0) return false;
    await seedIdentity(q, hash);
    await seedFleet(q, { size: opts.size ?? 'demo', kind: db.kind, files: opts.files, now: opts.now });
    return true;
  });
}

async function seedIdentity(q: Queryable, hash: string): Promise<void> {
  for (const b of DEMO_BRANDS) {
    const theme = {
      platformName: b.platformName,
      themeColor: b.themeColor,
      themeColorDark: b.themeColor,
      customStyle: '',
      logoFavicon: '',
      platformTitle: b.platformName,
      platformHelp: 'https://docs.demo.example.com',
      login: {
        backgroundColor: '#f5f5f5',
        logo: '',
        hideLogo: false,
        hideTitleLink: false,
        title: b.platformName,
        hidePrivacyPolicy: false,
        hideContactUs: false,
      },
      hideFooter: false,
      localizations: { supportedLanguages: ['en-US', 'zh-CN', 'zh-TW', 'es-ES'], defaultLanguage: 'en-US' },
      support: { hideSupport: false, spanishEmail: 'soporte@demo.example.com', englishEmail: 'support@demo.example.com' },
      hideCubeDocumentation: false,
      ...VARIANT_THEMES[b.variant],
    };
    await q.query('INSERT INTO brands (id, partner_code, host, variant, theme, reports_enabled, is_default) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      b.id,
      b.partnerCode,
      b.host,
      b.variant,
      JSON.stringify(theme),
      'reportsEnabled' in b ? b.reportsEnabled : true,
      b.id === 'brand-default',
    ]);
  }
  for (const o of DEMO_ORGS) {
    await q.query('INSERT INTO organisations (id, code, name, country, parent_id, level, brand_id, sms_quota) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
      o.id,
      o.code,
      o.name,
      o.country,
      o.parent,
      o.level,
      'brand-default',
      o.smsQuota,
    ]);
  }
  for (const a of DEMO_ACCOUNTS) {
    await q.query(
      // The demo accounts have signed in before (the first-sign-in welcome is for new accounts).
      `INSERT INTO accounts (id, email, first_name, last_name, password_hash, locale, oversight, password_changed_at, logins_count, last_sign_in_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now(), 1, now() - interval '1 day')`,
      [a.id, a.email, a.first, a.last, hash, a.locale, a.oversight],
    );
  }
  const member = (account: string, org: string, role: string, isDefault: boolean) =>
    q.query("INSERT INTO memberships (account_id, org_id, role, is_default, status, accepted_at) VALUES ($1, $2, $3, $4, 'active', now())", [
      account,
      org,
      role,
      isDefault,
    ]);
  // Every demo account belongs to the first-level organisation with its role; the superadmin
  // and admin also run the two sub-organisations.
  for (const a of DEMO_ACCOUNTS.filter((x) => x.id !== 'acc-other-admin')) await member(a.id, 'org-demo', a.role, true);
  for (const sub of ['org-demo-north', 'org-demo-south']) {
    await member('acc-superadmin', sub, 'superadmin', false);
    await member('acc-admin', sub, 'admin', false);
  }
  await member('acc-operator', 'org-demo-north', 'operator', false);
  await member('acc-other-admin', 'org-other', 'admin', true);
  const b = BACK_OFFICE_ACCOUNT;
  await q.query(
    `INSERT INTO accounts (id, email, first_name, last_name, password_hash, locale, back_office, password_changed_at, logins_count, last_sign_in_at)
     VALUES ($1, $2, $3, $4, $5, $6, true, now(), 1, now() - interval '1 day')`,
    [b.id, b.email, b.first, b.last, hash, b.locale],
  );
  for (const [i, org] of b.orgs.entries()) await member(b.id, org, 'user', i === 0);
  // The first-level organisations' enterprise and settlement details; the sub-organisations have none yet.
  await q.query(
    `INSERT INTO enterprises (org_id, legal_name, tax_id, address, billing_email, phone, currency, invoice_type, credit_limit_minor, bank_name, iban, bic) VALUES
       ('org-demo', 'Demo Logistics GmbH', 'DE123456789', 'Hafenstraße 1, 20457 Hamburg', 'billing@demo.example.com', '4940123456', 'EUR', 'post_payment', 500000, 'Demo Bank AG', 'DE89370400440532013000', 'COBADEFFXXX'),
       ('org-other', 'Other Customer Ltd', 'GB987654321', '1 Example Street, London', 'billing@other.example.com', '442071234567', 'GBP', 'advance', NULL, 'Example Bank plc', 'GB29NWBK60161331926819', 'NWBKGB2L')`,
  );
}
