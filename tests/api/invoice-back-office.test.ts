/**
 * Invoices are the provider's statements to the customer: every route that changes one (INVOICE_CHANGES of
 * common/permissions.ts) refuses every customer role, and the provider's back-office account does them. A customer
 * administrator can neither see, change nor remove the back-office account, nor grant its flag.
 */
import { describe, expect, it } from 'vitest';
import { abilityFromRules, type AppRule } from '../../common/ability.js';
import { INVOICE_CHANGES } from '../../common/permissions.js';
import { ROLES } from '../../common/roles.js';
import { fullPath } from '../../server/http/route.js';
import { ALL_ROUTES } from '../../server/routes.js';
import { BACK_OFFICE, call, DB_KINDS, DEMO, DEMO_PASSWORD, signedInSuite, TEST_CODE } from '../helper.js';

const BILLS = '/api/customer/cube/v2/api/customer/bills';
const CHANGING = ALL_ROUTES.filter(
  (r) =>
    typeof r.permission === 'object' && r.permission.subject === 'customer-bill-cube' && (INVOICE_CHANGES as readonly string[]).includes(r.permission.action),
);

/** A body each changing route would accept from the back office (the refusal comes before it is read). */
const BODIES: Record<string, object> = {
  publish: {},
  settle: { amount: 1, paidOn: '2026-11-01', reference: 'SEPA-HOSTILE' },
  correct: { reason: 'Changed by the customer' },
  generate: { month: '2026-09' },
  credit: { amountMinor: 100, reason: 'Goodwill' },
  deposit: { amountMinor: 100_000 },
  settlement: {},
};

describe.each(DB_KINDS)("invoices are changed by the provider's back office alone on %s", (kind) => {
  const suite = signedInSuite({ kind, config: { clock: () => new Date('2026-11-10T09:00:00Z') } }, { ...DEMO, billing: BACK_OFFICE });

  /** DEMO's issued invoice of October 2026 (the seed's INV-202610-DEMO) and what a change would alter. */
  const issued = async () =>
    (
      await suite.t.db.query<{ id: string; status: string; version: number }>(
        "SELECT id, status, version FROM invoices WHERE org_id = 'org-demo' AND status = 'published' AND is_current ORDER BY billing_cycle DESC LIMIT 1",
      )
    ).rows[0];
  const footprint = async () =>
    (
      await suite.t.db.query<{ invoices: number; settles: number; paid: number }>(
        "SELECT (SELECT count(*)::int FROM invoices WHERE org_id = 'org-demo') AS invoices, (SELECT count(*)::int FROM invoice_settles WHERE org_id = 'org-demo') AS settles, (SELECT count(*)::int FROM invoices WHERE org_id = 'org-demo' AND status = 'paid') AS paid",
      )
    ).rows[0];

  it('walks every invoice-changing route', () => {
    expect(new Set(CHANGING.map((r) => (r.permission as { action: string }).action))).toEqual(new Set(INVOICE_CHANGES));
  });

  it.each(ROLES)('refuses every invoice change to a customer %s, on a real invoice with a valid body, and changes nothing', async (role) => {
    const inv = await issued();
    expect(inv).toBeDefined();
    const before = await footprint();
    for (const r of CHANGING) {
      const action = (r.permission as { action: string }).action;
      const url = fullPath(r).replace(':id', inv.id);
      const res = await call(suite.t.app, suite[role], { method: r.method, url, payload: BODIES[action] });
      expect(res.statusCode, `${role} ${r.method} ${url}: ${res.body}`).toBe(403);
      expect(res.json().status.message).toBe('Permission denied');
    }
    expect(await footprint()).toEqual(before);
    expect(await issued()).toEqual(inv);
  });

  it.each(ROLES)('gives a customer %s a console that offers no invoice change', async (role) => {
    const res = await suite.t.app.inject({
      method: 'POST',
      url: '/api/identity/sso/signin/direct/cube/offline-access',
      payload: { username: DEMO[role], password: DEMO_PASSWORD, verificationCode: TEST_CODE, agreeTerms: true },
    });
    const ability = abilityFromRules(res.json().data.permissions as AppRule[]);
    for (const action of INVOICE_CHANGES) expect(ability.can(action, 'customer-bill-cube')).toBe(false);
  });

  it('lets the back office record a payment, which the customer admin then reads', async () => {
    const inv = await issued();
    const outstanding = (await call(suite.t.app, suite.billing, { method: 'GET', url: `${BILLS}/${inv.id}/settles` })).json().data.outstanding as number;
    const paid = await call(suite.t.app, suite.billing, {
      method: 'POST',
      url: `${BILLS}/${inv.id}/settles`,
      payload: { amount: outstanding, paidOn: '2026-11-09', reference: 'SEPA-BANK-1' },
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().data.invoice.status).toBe('paid');
    const seen = (await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${inv.id}/settles` })).json().data;
    expect(seen.items.at(-1)).toMatchObject({ reference: 'SEPA-BANK-1', recordedBy: BACK_OFFICE });
  });

  it("keeps the back-office account out of the customer's hands: not listed, not counted, not changed, not removed", async () => {
    const billingId = suite.billing.accountId;
    const list = (await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/partner/DEMO/accounts?pageSize=100' })).json().data;
    expect(list.items.map((a: { email: string }) => a.email)).not.toContain(BACK_OFFICE);
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/org/user/config/user_surplus/DEMO' })).json().data.accountsUsed).toBe(4);
    for (const who of [suite.admin, suite.superadmin]) {
      expect((await call(suite.t.app, who, { method: 'GET', url: `/api/main/partner/DEMO/accounts/${billingId}` })).statusCode).toBe(404);
      expect((await call(suite.t.app, who, { method: 'PUT', url: `/api/main/accounts/${billingId}`, payload: { role: 'admin' } })).statusCode).toBe(404);
      expect((await call(suite.t.app, who, { method: 'DELETE', url: `/api/identity/permission/info/cube/permissions/DEMO/${billingId}` })).statusCode).toBe(
        404,
      );
    }
    // Inviting is by role, and the back office is no role: an invitation naming it is refused by its schema.
    const invite = await call(suite.t.app, suite.superadmin, {
      method: 'POST',
      url: '/api/identity/info/cube/invites',
      payload: { email: 'new.clerk@demo.example.com', role: 'backOffice' },
    });
    expect(invite.statusCode).toBe(400);
    expect((await suite.t.db.query('SELECT 1 FROM accounts WHERE back_office AND id <> $1', [billingId])).rows).toHaveLength(0);
  });
});
