/** Generator: invoices of the closed months, their lines and payments. */
import { dueDateOf } from '../../../common/billing.js';
import { DEMO_POOL_ID, FLEETS, fixedId, fleetOf } from './fixtures.js';
import { type Ctx, DAY, type Row, dateOnly, insertRows, monthStart, perDayKb, round2 } from './rows.js';

export async function seedInvoices(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  const months: Record<string, number> = size === 'small' ? { 'org-demo': 2, 'org-other': 1 } : { 'org-demo': 6, 'org-demo-north': 3, 'org-demo-south': 3, 'org-other': 3 };
  const invoices: Row[] = [];
  const lines: Row[] = [];
  for (const [org, count] of Object.entries(months)) {
    const f = fleetOf(org);
    const billed = ctx.sims.filter((s) => s.org === org && s.activatedAt && s.status !== 'terminated');
    for (let k = 1; k <= count; k++) {
      const cycleStart = monthStart(now, -k);
      const cycleEnd = new Date(monthStart(now, -k + 1).getTime() - DAY);
      const billingDate = new Date(monthStart(now, -k + 1).getTime() + 2 * DAY);
      const due = new Date(`${dueDateOf(billingDate)}T00:00:00Z`);
      const cycle = cycleStart.toISOString().slice(0, 7);
      const id = fixedId(`invoice:${org}:${k}`);
      let cents = 0;
      let usage = 0;
      let overageKb = 0;
      let overageCents = 0;
      const inCycle = billed.filter((s) => s.activatedAt!.getTime() < cycleEnd.getTime());
      for (const s of inCycle) {
        const plan = s.plan;
        const used = Math.round(s.dailyKb * 30 * (0.6 + rng.next() * 0.8));
        const over = s.poolId ? 0 : Math.max(0, used - Math.round(perDayKb(plan) * 30));
        const overAmount = Math.round((over / 1024) * 2); // 0.02 per MB, in cents
        const lineCents = Math.round(plan.price * 100) + overAmount;
        cents += lineCents;
        usage += used;
        overageKb += over;
        overageCents += overAmount;
        lines.push({ org_id: org, invoice_id: id, sim_id: s.id, iccid: s.iccid, sku: plan.sku, bundle_quantity: 1, bundle_price: plan.price, usage_kb: used, overage_kb: over, overage_amount: overAmount / 100, amount: lineCents / 100 });
      }
      const taxCents = Math.round(cents * f.taxRate);
      const status = k === 1 ? 'published' : k === count && count > 2 ? 'obsolete' : 'paid';
      invoices.push({
        org_id: org, id, bill_id: `INV-${f.country}-${cycle.replace('-', '')}-${rng.digits(4)}`, status, type: 'post_payment',
        cycle_start: dateOnly(cycleStart), cycle_end: dateOnly(cycleEnd), billing_cycle: cycle, billing_date: dateOnly(billingDate), issued_at: billingDate,
        due_date: dateOnly(due), paid_at: status === 'paid' ? new Date(due.getTime() - 2 * DAY) : null, currency: f.currency,
        amount_excl_tax: cents / 100, tax_rate: f.taxRate, tax_amount: taxCents / 100, amount_incl_tax: (cents + taxCents) / 100, unit_price: null,
        settlement_customer: org === 'org-other' ? 'Other Customer Ltd' : 'Demo Logistics GmbH',
        bank_details: { bank: 'Demo Bank AG', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' }, credit_limit: 5000, sku: 'POSTPAID-STD', version: 1,
        bundle_quantity: inCycle.length, bundle_price: round2((cents - overageCents) / 100), overage_quantity_kb: overageKb, overage_price: overageCents / 100,
        pool_info: org === 'org-demo' ? { poolId: DEMO_POOL_ID, name: 'EU Fleet Pool' } : null, usage_kb: usage, sim_count: inCycle.length,
        created_at: billingDate, updated_at: billingDate,
      });
    }
  }
  if (size === 'demo') {
    // A prepaid top-up and this month's draft, so every type and status shows.
    const f = FLEETS[0];
    invoices.push({
      org_id: 'org-demo', id: fixedId('invoice:org-demo:predeposit'), bill_id: `PRE-DE-${rng.digits(6)}`, status: 'paid', type: 'predeposit',
      cycle_start: dateOnly(monthStart(now, -2)), cycle_end: dateOnly(monthStart(now, -2)), billing_cycle: monthStart(now, -2).toISOString().slice(0, 7),
      billing_date: dateOnly(monthStart(now, -2)), issued_at: monthStart(now, -2), due_date: dueDateOf(monthStart(now, -2)),
      paid_at: new Date(monthStart(now, -2).getTime() + 3 * DAY), currency: f.currency, amount_excl_tax: 1000, tax_rate: f.taxRate, tax_amount: 190, amount_incl_tax: 1190,
      settlement_customer: 'Demo Logistics GmbH', version: 1, created_at: monthStart(now, -2), updated_at: monthStart(now, -2),
    });
    invoices.push({
      org_id: 'org-demo', id: fixedId('invoice:org-demo:draft'), bill_id: `INV-DE-${monthStart(now).toISOString().slice(0, 7).replace('-', '')}-DRAFT`, status: 'draft', type: 'advance',
      cycle_start: dateOnly(monthStart(now)), cycle_end: dateOnly(new Date(monthStart(now, 1).getTime() - DAY)), billing_cycle: monthStart(now).toISOString().slice(0, 7),
      billing_date: dateOnly(now), issued_at: null, due_date: dueDateOf(now), paid_at: null,
      currency: f.currency, amount_excl_tax: 250, tax_rate: f.taxRate, tax_amount: 47.5, amount_incl_tax: 297.5, settlement_customer: 'Demo Logistics GmbH', version: 1,
      created_at: now, updated_at: now,
    });
    invoices.push({
      org_id: 'org-demo', id: fixedId('invoice:org-demo:credit'), bill_id: `CRN-DE-${rng.digits(6)}`, status: 'published', type: 'credit',
      cycle_start: dateOnly(monthStart(now, -1)), cycle_end: dateOnly(new Date(monthStart(now).getTime() - DAY)), billing_cycle: monthStart(now, -1).toISOString().slice(0, 7),
      billing_date: dateOnly(new Date(monthStart(now).getTime() + 4 * DAY)), issued_at: new Date(monthStart(now).getTime() + 4 * DAY),
      due_date: dueDateOf(new Date(monthStart(now).getTime() + 4 * DAY)), paid_at: null, currency: f.currency, amount_excl_tax: -20, tax_rate: f.taxRate, tax_amount: -3.8,
      amount_incl_tax: -23.8, settlement_customer: 'Demo Logistics GmbH', version: 1, created_at: monthStart(now), updated_at: monthStart(now),
    });
  }
  await insertRows(ctx.q, 'invoices', invoices);
  await insertRows(ctx.q, 'invoice_lines', lines);
  // A paid invoice was paid by one payment (a settle) on the day it was paid; each organisation's billing profile
  // (the monthly invoice job's currency, tax rate and bank, server/billing/invoice-job.ts).
  await insertRows(ctx.q, 'invoice_settles', invoices.filter((i) => i.status === 'paid').map((i) => ({
    org_id: i.org_id, invoice_id: i.id, amount: i.amount_incl_tax, currency: i.currency, paid_on: dateOnly(i.paid_at as Date), reference: `SEPA-${rng.digits(8)}`, recorded_at: i.paid_at,
  })));
  for (const f of FLEETS) {
    await ctx.q.query(
      `INSERT INTO billing_profiles (org_id, currency, tax_rate, overage_minor_per_mb, settlement_customer, bank_details, credit_limit) VALUES ($1, $2, $3, 2, $4, $5, 5000)
       ON CONFLICT (org_id) DO UPDATE SET currency = EXCLUDED.currency, tax_rate = EXCLUDED.tax_rate, settlement_customer = EXCLUDED.settlement_customer, bank_details = EXCLUDED.bank_details, credit_limit = EXCLUDED.credit_limit`,
      [f.org, f.currency, f.taxRate, f.org === 'org-other' ? 'Other Customer Ltd' : 'Demo Logistics GmbH', JSON.stringify({ bank: 'Demo Bank AG', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' })],
    );
  }
}
