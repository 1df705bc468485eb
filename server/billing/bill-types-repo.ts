/**
 * The SQL of credit notes, deposit requests and settlement details (bill-types-routes.ts; docs/decisions.md
 * "Advance, credit and predeposit invoices, and the settlement details"). Money crosses this file as integer
 * minor units (bigint in SQL, a safe integer in TypeScript); the columns stay numeric with two decimals, the minor unit
 * exactly. Every query names the organisation first, so another organisation's invoice is never found.
 */
import { major } from '../../common/billing.js';
import type { Settlement } from '../../common/enterprise.js';
import type { Queryable } from '../db/db.js';

const DAY = 86_400_000;

/** The invoice types a credit note may be issued against. */
export const CREDITABLE_TYPES: readonly string[] = ['post_payment', 'advance'];

/**
 * What is left to credit on an invoice, in minor units: its total less the credit notes already issued against it
 * (whose amounts are negative). Null for an invoice of a type never credited, or of another organisation. The credit
 * route refuses more than this, and the invoice's settlement answer tells it to the credit dialog.
 */
export async function creditLeftMinor(q: Queryable, orgId: string, invoiceId: string): Promise<number | null> {
  const r = await q.query<{ left_minor: string | null }>(
    `SELECT CASE WHEN i.type = ANY($3::text[]) THEN
              ((i.amount_incl_tax + coalesce((SELECT sum(c.amount_incl_tax) FROM invoices c WHERE c.org_id = $1 AND c.credit_for = i.id AND c.type = 'credit'), 0)) * 100)::bigint::text
            END AS left_minor
       FROM invoices i WHERE i.org_id = $1 AND i.id = $2`,
    [orgId, invoiceId, CREDITABLE_TYPES],
  );
  const left = r.rows[0]?.left_minor;
  return left === null || left === undefined ? null : Number(left);
}

/** The next version (n-th invoice) of a type in an organisation's month: each credit note or deposit is one. */
export async function nextVersion(q: Queryable, orgId: string, cycle: string, type: 'credit' | 'predeposit'): Promise<number> {
  return (
    await q.query<{ n: number }>('SELECT coalesce(max(version), 0)::int + 1 AS n FROM invoices WHERE org_id = $1 AND billing_cycle = $2 AND type = $3', [
      orgId,
      cycle,
      type,
    ])
  ).rows[0].n;
}

/**
 * A credit note of `grossMinor` (tax included) against invoice `of`, issued at once: same month, currency, tax rate and
 * settlement party as the invoice, its amounts negative. The tax part is the gross times rate / (1 + rate), rounded once
 * to the minor unit, half away from zero; the net is the rest, so net plus tax is the gross exactly. One line, no SIM.
 * False when that key (organisation, month, credit, version) is taken.
 */
export async function insertCreditNote(
  q: Queryable,
  c: { orgId: string; of: string; id: string; billId: string; version: number; grossMinor: number; reason: string; now: Date; due: string },
): Promise<boolean> {
  const made = await q.query(
    `INSERT INTO invoices (org_id, id, bill_id, status, type, cycle_start, cycle_end, billing_cycle, billing_date, issued_at, due_date, currency,
                           amount_excl_tax, tax_rate, tax_amount, amount_incl_tax, settlement_customer, bank_details, credit_limit, sku, version, origin,
                           credit_for, correction_reason, created_at, updated_at)
     SELECT i.org_id, $3, $4, 'published', 'credit', i.cycle_start, i.cycle_end, i.billing_cycle, $5::date, $6::timestamptz, $7::date, i.currency,
            -(($8::bigint - x.tax) / 100.0), i.tax_rate, -(x.tax / 100.0), -($8::bigint / 100.0), i.settlement_customer, i.bank_details, i.credit_limit, 'CREDIT', $9, 'admin',
            i.id, $10, $6::timestamptz, $6::timestamptz
       FROM invoices i CROSS JOIN LATERAL (SELECT round($8::bigint * i.tax_rate / (1 + i.tax_rate))::bigint AS tax) x
      WHERE i.org_id = $1 AND i.id = $2
     ON CONFLICT (org_id, billing_cycle, type, version) DO NOTHING RETURNING id`,
    [c.orgId, c.of, c.id, c.billId, c.now.toISOString().slice(0, 10), c.now.toISOString(), c.due, c.grossMinor, c.version, c.reason],
  );
  if (!made.rowCount) return false;
  await oneLine(q, c.orgId, c.id, 'CREDIT');
  return true;
}

/** The single line of a credit note or deposit: no SIM, the invoice's net. */
async function oneLine(q: Queryable, orgId: string, id: string, sku: string): Promise<void> {
  await q.query(
    `INSERT INTO invoice_lines (org_id, invoice_id, sim_id, iccid, sku, bundle_quantity, bundle_price, usage_kb, overage_kb, overage_amount, amount)
     SELECT org_id, id, NULL, '', $3, 0, 0, 0, 0, 0, amount_excl_tax FROM invoices WHERE org_id = $1 AND id = $2`,
    [orgId, id, sku],
  );
}

/**
 * A deposit request of `minor` in the organisation's currency, issued at once for the month of `now`, without tax (a
 * deposit is paid ahead of the invoices that tax what it pays for). False when that key is taken.
 */
export async function insertDeposit(
  q: Queryable,
  d: { orgId: string; id: string; billId: string; version: number; minor: number; reason: string | null; now: Date; due: string; cycle: string },
): Promise<boolean> {
  const [y, m] = d.cycle.split('-').map(Number);
  const start = new Date(Date.UTC(y, m - 1, 1));
  const end = new Date(Date.UTC(y, m, 1) - DAY);
  const made = await q.query(
    `INSERT INTO invoices (org_id, id, bill_id, status, type, cycle_start, cycle_end, billing_cycle, billing_date, issued_at, due_date, currency,
                           amount_excl_tax, tax_rate, tax_amount, amount_incl_tax, settlement_customer, bank_details, credit_limit, sku, version, origin,
                           correction_reason, created_at, updated_at)
     SELECT o.id, $2, $3, 'published', 'predeposit', $4::date, $5::date, $6, $7::date, $8::timestamptz, $9::date, coalesce(p.currency, 'EUR'),
            $10::bigint / 100.0, 0, 0, $10::bigint / 100.0, p.settlement_customer, coalesce(p.bank_details, '{}'::jsonb), p.credit_limit, 'DEPOSIT', $11, 'admin',
            $12, $8::timestamptz, $8::timestamptz
       FROM organisations o LEFT JOIN billing_profiles p ON p.org_id = o.id
      WHERE o.id = $1
     ON CONFLICT (org_id, billing_cycle, type, version) DO NOTHING RETURNING id`,
    [
      d.orgId,
      d.id,
      d.billId,
      start.toISOString().slice(0, 10),
      end.toISOString().slice(0, 10),
      d.cycle,
      d.now.toISOString().slice(0, 10),
      d.now.toISOString(),
      d.due,
      d.minor,
      d.version,
      d.reason,
    ],
  );
  if (!made.rowCount) return false;
  await oneLine(q, d.orgId, d.id, 'DEPOSIT');
  return true;
}

/**
 * The organisation's deposit in one currency, in minor units: what its paid deposit invoices paid, what its issued ones
 * still ask, what its invoices drew on it (their deposit settles; an obsolete version's is given back) and what is
 * left, never below 0. A deposit paid in another currency is not counted (nor drawn on).
 */
export async function depositOf(
  q: Queryable,
  orgId: string,
  currency: string,
): Promise<{ paidMinor: number; requestedMinor: number; appliedMinor: number; leftMinor: number }> {
  const r = await q.query<{ paid: string; requested: string; applied: string }>(
    `SELECT (coalesce(sum(amount_incl_tax) FILTER (WHERE status = 'paid'), 0) * 100)::bigint::text AS paid,
            (coalesce(sum(amount_incl_tax) FILTER (WHERE status = 'published'), 0) * 100)::bigint::text AS requested,
            (SELECT (coalesce(sum(s.amount), 0) * 100)::bigint::text FROM invoice_settles s JOIN invoices i ON i.org_id = s.org_id AND i.id = s.invoice_id
              WHERE s.org_id = $1 AND s.kind = 'deposit' AND s.currency = $2 AND i.status <> 'obsolete') AS applied
       FROM invoices WHERE org_id = $1 AND type = 'predeposit' AND is_current AND currency = $2`,
    [orgId, currency],
  );
  const paidMinor = Number(r.rows[0].paid);
  const appliedMinor = Number(r.rows[0].applied);
  return { paidMinor, requestedMinor: Number(r.rows[0].requested), appliedMinor, leftMinor: Math.max(0, paidMinor - appliedMinor) };
}

const SETTLEMENT_COLUMNS = `settlement_customer AS "settlementCustomer", bank_details->>'bank' AS "bankName", bank_details->>'iban' AS iban, bank_details->>'bic' AS bic,
  (credit_limit * 100)::bigint::text AS "creditLimitMinor", currency, round(tax_rate * 10000)::int AS "taxRateBp"`;

/** What an invoice's settlement answer adds: its state, and for a credit note the invoice it credits. */
interface InvoiceSide {
  status: string;
  isCurrent: boolean;
  creditFor: string | null;
  creditForBillId: string | null;
}
type SettlementRow = Omit<Settlement, 'creditLimitMinor'> & InvoiceSide & { creditLimitMinor: string | null };

/** An invoice's settlement details, its status, whether it is current, what it credits; undefined for another organisation's. */
export async function invoiceSettlement(q: Queryable, orgId: string, id: string, lock = false): Promise<(Settlement & InvoiceSide) | undefined> {
  const row = (
    await q.query<SettlementRow>(
      `SELECT ${SETTLEMENT_COLUMNS}, status, is_current AS "isCurrent", credit_for AS "creditFor",
              (SELECT c.bill_id FROM invoices c WHERE c.org_id = $1 AND c.id = invoices.credit_for) AS "creditForBillId"
         FROM invoices WHERE org_id = $1 AND id = $2${lock ? ' FOR UPDATE OF invoices' : ''}`,
      [orgId, id],
    )
  ).rows[0];
  return row && { ...row, creditLimitMinor: row.creditLimitMinor === null ? null : Number(row.creditLimitMinor) };
}

const bankJson = (s: Settlement) =>
  JSON.stringify(Object.fromEntries(Object.entries({ bank: s.bankName, iban: s.iban, bic: s.bic }).filter(([, v]) => v !== null)));

/**
 * New settlement details on a draft: its party, bank, credit limit, currency and tax rate, the tax and the total again
 * from its net (rounded once, as the job does); and the same on the organisation's billing profile for the invoices
 * to come, and on its enterprise details when saved (PUT /enterprises shows the same bank, currency and credit limit).
 */
export async function saveSettlement(q: Queryable, orgId: string, id: string, s: Settlement, now: Date): Promise<void> {
  const rate = (s.taxRateBp / 10000).toFixed(4);
  const limit = s.creditLimitMinor === null ? null : major(s.creditLimitMinor);
  await q.query(
    `UPDATE invoices SET settlement_customer = $3, bank_details = $4::jsonb, credit_limit = $5::numeric, currency = $6, tax_rate = $7::numeric,
            tax_amount = round(amount_excl_tax * $7::numeric, 2), amount_incl_tax = amount_excl_tax + round(amount_excl_tax * $7::numeric, 2), updated_at = $8
      WHERE org_id = $1 AND id = $2`,
    [orgId, id, s.settlementCustomer, bankJson(s), limit, s.currency, rate, now.toISOString()],
  );
  await q.query(
    `INSERT INTO billing_profiles (org_id, currency, tax_rate, settlement_customer, bank_details, credit_limit) VALUES ($1, $2, $3::numeric, $4, $5::jsonb, $6::numeric)
     ON CONFLICT (org_id) DO UPDATE SET currency = EXCLUDED.currency, tax_rate = EXCLUDED.tax_rate, settlement_customer = EXCLUDED.settlement_customer,
       bank_details = EXCLUDED.bank_details, credit_limit = EXCLUDED.credit_limit`,
    [orgId, s.currency, rate, s.settlementCustomer, bankJson(s), limit],
  );
  await q.query(`UPDATE enterprises SET currency = $2, credit_limit_minor = $3, bank_name = $4, iban = $5, bic = $6, updated_at = $7 WHERE org_id = $1`, [
    orgId,
    s.currency,
    s.creditLimitMinor,
    s.bankName,
    s.iban,
    s.bic,
    now.toISOString(),
  ]);
}

/**
 * Enterprise details saved (PUT /enterprises): the invoices to come name its legal name, bank, currency and credit
 * limit; the tax rate and overage price of the billing profile stay.
 */
export async function profileFromEnterprise(
  q: Queryable,
  orgId: string,
  e: { legalName: string; bankName: unknown; iban: unknown; bic: unknown; creditLimitMinor: unknown; currency: unknown },
): Promise<void> {
  const s = { bankName: (e.bankName as string | null) ?? null, iban: (e.iban as string | null) ?? null, bic: (e.bic as string | null) ?? null } as Settlement;
  const limit = typeof e.creditLimitMinor === 'number' ? major(e.creditLimitMinor) : null;
  await q.query(
    `INSERT INTO billing_profiles (org_id, currency, settlement_customer, bank_details, credit_limit) VALUES ($1, $2, $3, $4::jsonb, $5::numeric)
     ON CONFLICT (org_id) DO UPDATE SET currency = EXCLUDED.currency, settlement_customer = EXCLUDED.settlement_customer, bank_details = EXCLUDED.bank_details, credit_limit = EXCLUDED.credit_limit`,
    [orgId, e.currency, e.legalName, bankJson(s), limit],
  );
}
