/**
 * What the monthly invoice job and the invoices made in advance share (./invoice-job.ts, ./invoice-advance.ts): a
 * month's bounds, an organisation's billing profile with its defaults, and the statement that sums an invoice's lines
 * into its figures.
 */
import type { Queryable } from '../db/db.js';

/** Defaults for an organisation without a billing profile (050_invoice_job.sql). */
const DEFAULT_PROFILE = { currency: 'EUR', taxRate: '0.19', overageMinorPerMb: 2 };

/** A month (YYYY-MM) and its UTC bounds [start, end). */
export function monthOf(cycle: string): { cycle: string; start: Date; end: Date } {
  const [y, m] = cycle.split('-').map(Number);
  return { cycle, start: new Date(Date.UTC(y, m - 1, 1)), end: new Date(Date.UTC(y, m, 1)) };
}

/** The invoice's figures summed from its lines; the tax rounded once on the net. */
export const TOTALS_SQL = `
  UPDATE invoices i SET amount_excl_tax = s.net, tax_amount = round(s.net * i.tax_rate, 2), amount_incl_tax = s.net + round(s.net * i.tax_rate, 2),
         bundle_quantity = s.qty, bundle_price = s.bundles, overage_quantity_kb = s.over_kb, overage_price = s.over, usage_kb = s.usage, sim_count = s.sims
    FROM (SELECT coalesce(sum(amount), 0) AS net, coalesce(sum(bundle_quantity), 0)::int AS qty, coalesce(sum(amount - overage_amount), 0) AS bundles,
                 coalesce(sum(overage_kb), 0)::bigint AS over_kb, coalesce(sum(overage_amount), 0) AS over, coalesce(sum(usage_kb) FILTER (WHERE sim_id IS NOT NULL), 0)::bigint AS usage, count(sim_id)::int AS sims
            FROM invoice_lines WHERE org_id = $1 AND invoice_id = $2) s
   WHERE i.org_id = $1 AND i.id = $2
  RETURNING i.amount_incl_tax::text AS total, i.sim_count AS sims`;

export interface MadeInvoice {
  id: string;
  billId: string;
  version: number;
  total: string;
  sims: number;
}

export interface Profile {
  code: string;
  currency: string;
  taxRate: string;
  perMb: number;
  settlementCustomer: string | null;
  bankDetails: unknown;
  creditLimit: string | null;
}

export async function profileOf(q: Queryable, orgId: string): Promise<Profile | undefined> {
  const org = (
    await q.query<{
      code: string;
      currency: string | null;
      tax_rate: string | null;
      per_mb: number | null;
      settlement_customer: string | null;
      bank_details: unknown;
      credit_limit: string | null;
    }>(
      `SELECT o.code, p.currency, p.tax_rate::text, p.overage_minor_per_mb AS per_mb, p.settlement_customer, p.bank_details, p.credit_limit::text
         FROM organisations o LEFT JOIN billing_profiles p ON p.org_id = o.id WHERE o.id = $1`,
      [orgId],
    )
  ).rows[0];
  if (!org) return undefined;
  return {
    code: org.code,
    currency: org.currency ?? DEFAULT_PROFILE.currency,
    taxRate: org.tax_rate ?? DEFAULT_PROFILE.taxRate,
    perMb: org.per_mb ?? DEFAULT_PROFILE.overageMinorPerMb,
    settlementCustomer: org.settlement_customer,
    bankDetails: org.bank_details ?? {},
    creditLimit: org.credit_limit,
  };
}
