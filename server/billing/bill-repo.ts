/**
 * The SQL of the invoice routes (bill-routes.ts; no route file contains SQL): an invoice locked for a
 * transition, its PDF and CSV rows, its payments, versions, extract and pools. Every query names the organisation
 * first, so another organisation's invoice is never found.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import type { Queryable } from '../db/db.js';
import { selectOf, tableOf } from '../schema/schema-repo.js';
import type { InvoiceForPdf } from './invoice-pdf.js';

/** The SIM lines of an invoice (the SIM list's condition on invoice_lines aliased t): a pool's line charges a pool, not a SIM. */
export const SIM_LINES = 't.pool_id IS NULL';

/** What a transition (publish, settle, correct) reads of an invoice. */
export interface InvoiceState {
  id: string;
  billId: string;
  status: 'draft' | 'published' | 'obsolete' | 'paid';
  type: string;
  version: number;
  billingCycle: string;
  currency: string;
  total: string;
  isCurrent: boolean;
}

/** The invoice of this organisation, locked for a transition in q's transaction; undefined for any other. */
export async function lockedInvoice(q: Queryable, orgId: string, id: string): Promise<InvoiceState | undefined> {
  return (
    await q.query<InvoiceState>(
      `SELECT id, bill_id AS "billId", status, type, version, billing_cycle AS "billingCycle", currency, amount_incl_tax::text AS total, is_current AS "isCurrent"
         FROM invoices WHERE org_id = $1 AND id = $2 FOR UPDATE`,
      [orgId, id],
    )
  ).rows[0];
}

/**
 * The invoice's fields plus its bank details and the organisation's name. selectOf ends in the quoted table name
 * (`FROM "invoices" t`): the join is added by cutting at that clause, and a SELECT it no longer matches fails here at
 * load, not by printing a PDF without its bank details (as it once did, silently).
 */
const INVOICE_SELECT = selectOf(RESOURCES.invoices);
const INVOICE_FROM = ` FROM ${tableOf(RESOURCES.invoices)} t`;
if (!INVOICE_SELECT.endsWith(INVOICE_FROM)) throw new Error(`the invoice SELECT no longer ends in "${INVOICE_FROM}"`);
const PDF_SELECT = `${INVOICE_SELECT.slice(0, -INVOICE_FROM.length)}, t.bank_details AS "bankDetails", o.name AS "orgName"${INVOICE_FROM} JOIN organisations o ON o.id = t.org_id`;

/** The invoice as its PDF prints it, its lines not yet read (pdfLines); undefined for another organisation's. */
export async function invoiceForPdf(q: Queryable, orgId: string, id: string): Promise<InvoiceForPdf | undefined> {
  return (await q.query<Omit<InvoiceForPdf, 'lines' | 'poolLines' | 'orgName'>>(`${PDF_SELECT} WHERE t.org_id = $1 AND t.id = $2`, [orgId, id])).rows[0] as
    InvoiceForPdf | undefined;
}

/** The invoice's lines as its PDF lists them: the SIMs' by ICCID, and apart from them the pools' by pool name. */
export async function pdfLines(q: Queryable, orgId: string, id: string): Promise<Pick<InvoiceForPdf, 'lines' | 'poolLines'>> {
  const lines = (
    await q.query<InvoiceForPdf['lines'][number]>(
      `SELECT iccid, sku, usage_kb::float8 AS "usageKb", amount::float8 AS amount FROM invoice_lines t WHERE org_id = $1 AND invoice_id = $2 AND ${SIM_LINES} ORDER BY iccid`,
      [orgId, id],
    )
  ).rows;
  const poolLines = (
    await q.query<InvoiceForPdf['poolLines'][number]>(
      `SELECT t.pool_id AS "poolId", p.name AS "poolName", t.sku, t.usage_kb::float8 AS "usageKb", t.amount::float8 AS amount
         FROM invoice_lines t LEFT JOIN shared_pools p ON p.org_id = t.org_id AND p.id = t.pool_id
        WHERE t.org_id = $1 AND t.invoice_id = $2 AND NOT (${SIM_LINES}) ORDER BY p.name, t.pool_id`,
      [orgId, id],
    )
  ).rows;
  return { lines, poolLines };
}

/** What the PDF prints of the invoice's payments and versions: amounts as exact decimal text (never a float). */
export async function pdfHistory(q: Queryable, orgId: string, id: string): Promise<Pick<InvoiceForPdf, 'settles' | 'paid' | 'outstanding' | 'versions'>> {
  const settles = (
    await q.query<InvoiceForPdf['settles'][number]>(
      'SELECT paid_on::text AS "paidOn", reference, amount::text AS amount, kind FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2 ORDER BY recorded_at, id',
      [orgId, id],
    )
  ).rows;
  const sums = (
    await q.query<{ paid: string; outstanding: string }>(
      `SELECT s.paid::text AS paid, greatest(i.amount_incl_tax - s.paid, 0)::text AS outstanding
         FROM invoices i CROSS JOIN LATERAL (SELECT coalesce(sum(amount), 0)::numeric(14, 2) AS paid FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2) s
        WHERE i.org_id = $1 AND i.id = $2`,
      [orgId, id],
    )
  ).rows[0];
  const versions = (await q.query<InvoiceForPdf['versions'][number]>(`${VERSIONS_SQL} ORDER BY v.version DESC`, [orgId, id])).rows;
  return { settles, paid: sums?.paid ?? '0', outstanding: sums?.outstanding ?? '0', versions };
}

/** The payments recorded for the invoice, oldest first, with what they sum to and what is still due (never below 0). */
export async function settlesOf(q: Queryable, orgId: string, id: string) {
  const items = (
    await q.query<{ amount: number }>(
      `SELECT s.id::int AS id, s.amount::float8 AS amount, s.currency, s.paid_on::text AS "paidOn", s.reference, s.kind, a.email AS "recordedBy", s.recorded_at AS "recordedAt"
         FROM invoice_settles s LEFT JOIN accounts a ON a.id = s.recorded_by WHERE s.org_id = $1 AND s.invoice_id = $2 ORDER BY s.recorded_at, s.id`,
      [orgId, id],
    )
  ).rows;
  const sums = (
    await q.query<{ paid: number; due: number }>(
      `SELECT coalesce((SELECT sum(amount) FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2), 0)::float8 AS paid,
              (i.amount_incl_tax - coalesce((SELECT sum(amount) FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2), 0))::float8 AS due
         FROM invoices i WHERE i.org_id = $1 AND i.id = $2`,
      [orgId, id],
    )
  ).rows[0];
  return { items, paid: sums.paid, outstanding: Math.max(0, sums.due) };
}

/**
 * Whether a payment (not a deposit application) is recorded for the invoice: a paid-into invoice is not corrected, one
 * drawn on the deposit may be (its application is given back when the version is made obsolete).
 */
export async function hasPayments(q: Queryable, orgId: string, id: string): Promise<boolean> {
  return (await q.query("SELECT 1 FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2 AND kind = 'payment' LIMIT 1", [orgId, id])).rows.length > 0;
}

/** What the invoice's settles sum to, in minor units. */
export async function settledMinor(q: Queryable, orgId: string, id: string): Promise<number> {
  return Number(
    (
      await q.query<{ minor: string }>(
        'SELECT (coalesce(sum(amount), 0) * 100)::bigint::text AS minor FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2',
        [orgId, id],
      )
    ).rows[0].minor,
  );
}

/** What the invoice drew on the deposit, in minor units (0 when nothing). */
export async function depositAppliedMinor(q: Queryable, orgId: string, id: string): Promise<number> {
  return Number(
    (
      await q.query<{ minor: string }>(
        "SELECT (coalesce(sum(amount), 0) * 100)::bigint::text AS minor FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2 AND kind = 'deposit'",
        [orgId, id],
      )
    ).rows[0].minor,
  );
}

/** A draft issued: published on `day`, due on `due`. */
export async function publishInvoice(q: Queryable, orgId: string, id: string, now: Date, day: string, due: string): Promise<void> {
  await q.query(`UPDATE invoices SET status = 'published', issued_at = $3, billing_date = $4, due_date = $5, updated_at = $3 WHERE org_id = $1 AND id = $2`, [
    orgId,
    id,
    now.toISOString(),
    day,
    due,
  ]);
}

/**
 * A payment recorded, its amount in cents (stored as a numeric of the currency); kind 'deposit' is the invoice's draw
 * on the deposit, at most one per invoice and occasion (057_deposit_reach_back.sql): one when it is published
 * (depositId null) and one for each deposit whose payment came later (depositId that deposit invoice). False when
 * that draw exists already.
 */
export async function addSettle(
  q: Queryable,
  s: {
    orgId: string;
    invoiceId: string;
    cents: number;
    currency: string;
    paidOn: string;
    reference: string;
    recordedBy: string | null;
    at: Date;
    kind?: 'payment' | 'deposit';
    depositId?: string | null;
  },
): Promise<boolean> {
  const r = await q.query(
    `INSERT INTO invoice_settles (org_id, invoice_id, amount, currency, paid_on, reference, recorded_by, recorded_at, kind, deposit_id)
     VALUES ($1, $2, $3::numeric / 100, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (org_id, invoice_id, (coalesce(deposit_id, ''))) WHERE kind = 'deposit' DO NOTHING RETURNING id`,
    [s.orgId, s.invoiceId, s.cents, s.currency, s.paidOn, s.reference, s.recordedBy, s.at.toISOString(), s.kind ?? 'payment', s.depositId ?? null],
  );
  return (r.rowCount ?? 0) > 0;
}

/**
 * The organisation's issued post-payment invoices in `currency` that may still ask for money (published, current),
 * oldest due first: those a deposit paid later draws on, in that order. Not locked: the caller locks each and looks
 * at its state again.
 */
export async function openPostPaymentIds(q: Queryable, orgId: string, currency: string): Promise<string[]> {
  const r = await q.query<{ id: string }>(
    `SELECT id FROM invoices WHERE org_id = $1 AND type = 'post_payment' AND status = 'published' AND is_current AND currency = $2
      ORDER BY due_date, issued_at, id`,
    [orgId, currency],
  );
  return r.rows.map((x) => x.id);
}

/** The invoice paid in full. */
export async function markPaid(q: Queryable, orgId: string, id: string, now: Date): Promise<void> {
  await q.query(`UPDATE invoices SET status = 'paid', paid_at = $3, updated_at = $3 WHERE org_id = $1 AND id = $2`, [orgId, id, now.toISOString()]);
}

const VERSIONS_SQL = `SELECT v.id, v.bill_id AS "billId", v.version, v.status, v.is_current AS "isCurrent", v.amount_incl_tax::float8 AS "amountInclTax", v.currency,
                             v.billing_date::text AS "billingDate", v.correction_reason AS "correctionReason", v.created_at AS "createdAt"
                        FROM invoices v JOIN invoices i ON i.org_id = v.org_id AND i.bill_id = v.bill_id
                       WHERE i.org_id = $1 AND i.id = $2`;

/** The current version of the invoice's bill; undefined for another organisation's invoice. */
export async function currentVersion(q: Queryable, orgId: string, id: string): Promise<Record<string, unknown> | undefined> {
  return (await q.query(`${VERSIONS_SQL} AND v.is_current`, [orgId, id])).rows[0];
}

/** Every version of the invoice's bill, newest first; none for another organisation's invoice. */
export async function versionsOf(q: Queryable, orgId: string, id: string): Promise<Array<Record<string, unknown>>> {
  return (await q.query(`${VERSIONS_SQL} ORDER BY v.version DESC`, [orgId, id])).rows;
}

/** Lines grouped by SKU: the invoice's extract. A pool line adds its overage to its SKU; its usage is its SIMs' (counted already). */
export async function extractOf(q: Queryable, orgId: string, id: string): Promise<Array<Record<string, unknown>>> {
  return (
    await q.query(
      `SELECT coalesce(sku, '') AS sku, count(sim_id)::int AS sims, sum(bundle_quantity)::int AS "bundleQuantity", sum(amount - overage_amount)::float8 AS "bundleAmount",
              coalesce(sum(usage_kb) FILTER (WHERE pool_id IS NULL), 0)::float8 AS "usageKb", sum(overage_kb)::float8 AS "overageKb", sum(overage_amount)::float8 AS "overageAmount", sum(amount)::float8 AS amount
         FROM invoice_lines WHERE org_id = $1 AND invoice_id = $2 GROUP BY 1 ORDER BY 1`,
      [orgId, id],
    )
  ).rows;
}

/** The invoice's pool details as a list (one pool stored as an object, none as anything else); undefined for another organisation's invoice. */
export async function poolDetailsOf(q: Queryable, orgId: string, id: string): Promise<unknown[] | undefined> {
  return (
    await q.query<{ items: unknown[] }>(
      `SELECT CASE jsonb_typeof(pool_info) WHEN 'array' THEN pool_info WHEN 'object' THEN jsonb_build_array(pool_info) ELSE '[]'::jsonb END AS items FROM invoices WHERE org_id = $1 AND id = $2`,
      [orgId, id],
    )
  ).rows[0]?.items;
}
