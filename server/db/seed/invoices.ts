/**
 * Generator: the invoices of the closed months, made by the monthly invoice job itself over the seeded bundles and
 * usage, then moved through the demo's lifecycle by the code the invoice routes run (publish, correct, settle), so
 * every state and a second version show. In the full demo, org-demo also requests a deposit and pays it before last
 * month's invoice is issued, which draws on it (invoice-lifecycle.ts publishBill); a credit note is issued against
 * the month before's invoice; and last month's advance invoice is left a draft as the job made it.
 */
import { minorOf } from '../../../common/billing.js';
import { runInvoiceJob } from '../../billing/invoice-job.js';
import { correctBill, creditBill, publishBill, requestDeposit, settleBill } from '../../billing/invoice-lifecycle.js';
import { FLEETS } from './fixtures.js';
import { type Ctx, DAY, HOUR, MINUTE, dateOnly, monthStart } from './rows.js';

/** The instance name the seed runs the job as; its lease is let go at the end, so a server's own job runs at once. */
const SEED_OWNER = 'demo-seed';
/** Who publishes, corrects and records payments in each organisation of the demo. */
const ADMIN_OF: Record<string, string> = {
  'org-demo': 'acc-admin',
  'org-demo-north': 'acc-admin',
  'org-demo-south': 'acc-admin',
  'org-other': 'acc-other-admin',
};
/** The full demo's deposit: at most this (minor units), and at most half of last month's invoice, so that it draws it all. */
const DEPOSIT_MINOR = 100_000;

export async function seedInvoices(ctx: Ctx): Promise<void> {
  const { rng, now, size, db } = ctx;
  // Each organisation's billing profile first: the job bills in its currency, tax rate and bank.
  for (const f of FLEETS) {
    await ctx.q.query(
      `INSERT INTO billing_profiles (org_id, currency, tax_rate, overage_minor_per_mb, settlement_customer, bank_details, credit_limit) VALUES ($1, $2, $3, 2, $4, $5, 5000)
       ON CONFLICT (org_id) DO UPDATE SET currency = EXCLUDED.currency, tax_rate = EXCLUDED.tax_rate, settlement_customer = EXCLUDED.settlement_customer, bank_details = EXCLUDED.bank_details, credit_limit = EXCLUDED.credit_limit`,
      [
        f.org,
        f.currency,
        f.taxRate,
        f.org === 'org-other' ? 'Other Customer Ltd' : 'Demo Logistics GmbH',
        JSON.stringify({ bank: 'Demo Bank AG', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' }),
      ],
    );
  }
  // The job as it runs an hour into each month after the ones billed, oldest first; then, the days after, the month's
  // invoices published, the one before last month's of org-demo corrected once, and the older ones paid. No moment
  // is later than now.
  const months = size === 'small' ? 2 : 6;
  // PGlite has no autovacuum: without statistics of the tables just filled, the job's join of bundles and usage is
  // planned as a nested loop that sums the month's usage again for every SIM (10 s instead of 0.1 s for org-demo).
  await ctx.q.query('ANALYZE bundle_orders, usage_daily');
  for (let k = months; k >= 1; k--) {
    const closed = monthStart(now, -k + 1).getTime();
    const at = (offset: number) => new Date(Math.min(closed + offset, now.getTime()));
    const run = await runInvoiceJob(db, at(HOUR), SEED_OWNER, 0);
    const typeOf = async (id: string) => (await ctx.q.query<{ org_id: string; type: string }>('SELECT org_id, type FROM invoices WHERE id = $1', [id])).rows[0];
    if (k === 1 && size === 'demo') {
      // org-demo's deposit, requested and paid before last month's invoice is issued: that invoice draws on it.
      for (const made of run.made) {
        const { org_id: orgId, type } = await typeOf(made.id);
        if (orgId === 'org-demo' && type === 'post_payment') await seedDeposit(ctx, Math.min(DEPOSIT_MINOR, Math.floor(minorOf(made.total) / 2)), at);
      }
    }
    for (const made of run.made) {
      const { org_id: orgId, type } = await typeOf(made.id);
      let id = made.id;
      // Last month's advance invoice of org-demo stays the draft the job made (the demo's draft to edit and issue).
      if (k === 1 && size === 'demo' && orgId === 'org-demo' && type === 'advance') continue;
      await publishBill(ctx.q, orgId, id, at(2 * DAY));
      if (k === 1) continue;
      // Only a post-payment invoice is corrected (the job's advance invoices are published and paid as they are).
      if (k === 2 && orgId === 'org-demo' && type === 'post_payment') {
        const v2 = await correctBill(db, orgId, id, 'Late CDRs of the month', at(3 * DAY), { owner: SEED_OWNER });
        id = v2!.id;
        await publishBill(ctx.q, orgId, id, at(4 * DAY));
      }
      const inv = (
        await ctx.q.query<{ total: string; due: string }>('SELECT amount_incl_tax::text AS total, due_date::text AS due FROM invoices WHERE id = $1', [id])
      ).rows[0];
      // Paid two days before it was due, in one payment; an invoice of nothing has nothing to pay.
      const paid = new Date(Math.min(Date.parse(`${inv.due}T09:00:00Z`) - 2 * DAY, now.getTime()));
      if (Number(inv.total) > 0) {
        await settleBill(ctx.q, {
          orgId,
          id,
          amount: Number(inv.total),
          paidOn: dateOnly(paid),
          reference: `SEPA-${rng.digits(8)}`,
          recordedBy: ADMIN_OF[orgId],
          now: paid,
        });
      }
    }
  }
  await ctx.q.query('UPDATE job_leases SET lease_owner = NULL, lease_until = NULL WHERE name = $1 AND lease_owner = $2', ['monthly_invoices', SEED_OWNER]);
  if (size === 'demo')
    await seedCreditNote(ctx, monthStart(now, -1).toISOString().slice(0, 7), new Date(Math.min(monthStart(now).getTime() + 4 * DAY, now.getTime())));
}

/** org-demo's deposit of `minor`, requested by the deposit route's code and paid in full the day after (by the settle route's). */
async function seedDeposit(ctx: Ctx, minor: number, at: (offset: number) => Date): Promise<void> {
  if (minor <= 0) return;
  const requested = at(HOUR + 5 * MINUTE);
  const id = await requestDeposit(ctx.q, { orgId: 'org-demo', amountMinor: minor, reason: 'Deposit for the invoices to come', now: requested });
  const paid = at(DAY);
  await settleBill(ctx.q, {
    orgId: 'org-demo',
    id,
    amount: minor / 100,
    paidOn: dateOnly(paid),
    reference: `SEPA-${ctx.rng.digits(8)}`,
    recordedBy: ADMIN_OF['org-demo'],
    now: paid,
  });
}

/** A credit note of 23.80 against org-demo's post-payment invoice of `cycle`, by the credit route's code. */
async function seedCreditNote(ctx: Ctx, cycle: string, now: Date): Promise<void> {
  const of = (
    await ctx.q.query<{ id: string }>(
      "SELECT id FROM invoices WHERE org_id = 'org-demo' AND billing_cycle = $1 AND type = 'post_payment' AND is_current AND status IN ('published', 'paid')",
      [cycle],
    )
  ).rows[0];
  if (of) await creditBill(ctx.q, { orgId: 'org-demo', of: of.id, amountMinor: 2380, reason: 'Two days of outage', now });
}
