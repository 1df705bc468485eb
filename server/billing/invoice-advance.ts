/**
 * Advance invoices (docs/decisions.md "Advance, credit and predeposit invoices, and the settlement details"): a prepaid
 * bundle is billed in advance. For each organisation that placed prepaid bundle orders in the closed month, the monthly
 * job makes one invoice of type `advance`, version 1, as a draft: a line per SIM with its prepaid orders of the month
 * (test and cancelled ones aside) at their price, each rounded once to the cent, half away from zero; the totals and
 * the tax as the post-payment invoice's (TOTALS_SQL). The post-payment invoice keeps pricing prepaid bundles 0, so a
 * bundle is charged on exactly one of the two. Under the unique key (organisation, month, advance, 1) with ON CONFLICT
 * DO NOTHING, in one transaction with its lines and its `invoice.created` event: a re-run or a second instance changes
 * nothing. A month's prepaid orders are few (one per SIM at most, usually far fewer), so the invoice is made in one
 * transaction, not in batches.
 */
import { dueDateOf } from '../../common/billing.js';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { appendEvents } from '../events/event-log.js';
import { monthOf, profileOf, TOTALS_SQL, type MadeInvoice } from './invoice-basics.js';

const DAY = 86_400_000;

/** A prepaid bundle order billed in a month: placed in it, not a test bundle, not cancelled. */
const PREPAID_IN_MONTH = `payment_mode = 'prepaid' AND type <> 'BEFORE_TEST' AND status <> 'CANCELLED' AND ordered_at >= $2::timestamptz AND ordered_at < $3::timestamptz`;

/** The bill id of an invoice of another type than post-payment: PREFIX-YYYYMM-<org code>[-n], at most 40 characters. */
export const typedBillId = (prefix: 'ADV' | 'CRN' | 'DEP', orgCode: string, cycle: string, n?: number) => {
  const tail = n === undefined ? '' : `-${n}`;
  return `${prefix}-${cycle.replace('-', '')}-${orgCode.toUpperCase()}`.slice(0, 40 - tail.length) + tail;
};

/** One organisation's advance invoice of a month, in q's transaction; undefined when made already or nothing to bill. */
export async function advanceInvoice(q: Queryable, orgId: string, cycle: string, now: Date): Promise<MadeInvoice | undefined> {
  const month = monthOf(cycle);
  const p = await profileOf(q, orgId);
  if (!p) return undefined;
  const id = newId();
  const billId = typedBillId('ADV', p.code, cycle);
  const inserted = await q.query(
    `INSERT INTO invoices (org_id, id, bill_id, status, type, cycle_start, cycle_end, billing_cycle, billing_date, due_date, currency,
                           amount_excl_tax, tax_rate, tax_amount, amount_incl_tax, settlement_customer, bank_details, credit_limit, sku, version, origin, created_at, updated_at)
     VALUES ($1, $2, $3, 'draft', 'advance', $4, $5, $6, $7, $8, $9, 0, $10, 0, 0, $11, $12, $13, 'PREPAID', 1, 'job', $14, $14)
     ON CONFLICT (org_id, billing_cycle, type, version) DO NOTHING RETURNING id`,
    [
      orgId,
      id,
      billId,
      month.start.toISOString().slice(0, 10),
      new Date(month.end.getTime() - DAY).toISOString().slice(0, 10),
      cycle,
      now.toISOString().slice(0, 10),
      dueDateOf(now),
      p.currency,
      p.taxRate,
      p.settlementCustomer,
      JSON.stringify(p.bankDetails),
      p.creditLimit,
      now.toISOString(),
    ],
  );
  if (!inserted.rowCount) return undefined;
  const lines = await q.query(
    `INSERT INTO invoice_lines (org_id, invoice_id, sim_id, iccid, sku, bundle_quantity, bundle_price, usage_kb, overage_kb, overage_amount, amount)
     SELECT $1, $4, sim_id, min(iccid), (array_agg(sku ORDER BY ordered_at, id))[1], count(*)::int, sum(round(coalesce(price, 0), 2)), 0, 0, 0, sum(round(coalesce(price, 0), 2))
       FROM bundle_orders WHERE org_id = $1 AND ${PREPAID_IN_MONTH} GROUP BY sim_id`,
    [orgId, month.start.toISOString(), month.end.toISOString(), id],
  );
  if (!lines.rowCount) {
    await q.query('DELETE FROM invoices WHERE org_id = $1 AND id = $2', [orgId, id]);
    return undefined;
  }
  const t = (await q.query<{ total: string; sims: number }>(TOTALS_SQL, [orgId, id])).rows[0];
  await appendEvents(q, [
    {
      orgId,
      type: 'invoice',
      subtype: 'created',
      subject: id,
      at: now,
      data: { billId, version: 1, type: 'advance', billingCycle: cycle, status: 'draft', amountInclTax: t.total, currency: p.currency, sims: t.sims },
    },
  ]);
  return { id, billId, version: 1, total: t.total, sims: t.sims };
}

/** The closed month's advance invoices: every organisation with prepaid orders of the month and no advance invoice yet. */
export async function advanceInvoices(db: Db, cycle: string, now: Date): Promise<MadeInvoice[]> {
  const month = monthOf(cycle);
  const orgs = (
    await db.query<{ org_id: string }>(
      `SELECT o.id AS org_id FROM organisations o
        WHERE EXISTS (SELECT 1 FROM bundle_orders WHERE org_id = o.id AND ${PREPAID_IN_MONTH})
          AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.org_id = o.id AND i.billing_cycle = $1 AND i.type = 'advance')
        ORDER BY o.id`,
      [cycle, month.start.toISOString(), month.end.toISOString()],
    )
  ).rows;
  const made: MadeInvoice[] = [];
  for (const { org_id } of orgs) {
    const one = await db.tx((q) => advanceInvoice(q, org_id, cycle, now));
    if (one) made.push(one);
  }
  return made;
}
