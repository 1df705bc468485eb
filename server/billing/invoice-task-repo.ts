/**
 * The SQL of the invoices' task-center work: the months an organisation may have its invoice made for, what
 * a run of a month would bill, and a large invoice's lines read through a cursor for its details file.
 */
import { readCursor, type Queryable } from '../db/db.js';

/** The first month (YYYY-MM, UTC) in which one of the organisation's bundles was in use, or null when none ever was. */
export async function firstUsageMonth(q: Queryable, orgId: string): Promise<string | null> {
  const row = (
    await q.query<{ month: string | null }>(
      `SELECT to_char(min(activated_at) AT TIME ZONE 'UTC', 'YYYY-MM') AS month FROM bundle_orders
        WHERE org_id = $1 AND type <> 'BEFORE_TEST' AND activated_at IS NOT NULL`,
      [orgId],
    )
  ).rows[0];
  return row?.month ?? null;
}

/** How many SIMs the month's invoice bills: those with a bundle in use during [start, end), as the job selects them. */
export async function simsToBill(q: Queryable, orgId: string, start: Date, end: Date): Promise<number> {
  return (
    await q.query<{ n: number }>(
      `SELECT count(DISTINCT sim_id)::int AS n FROM bundle_orders
        WHERE org_id = $1 AND type <> 'BEFORE_TEST' AND activated_at IS NOT NULL AND activated_at < $3::timestamptz AND (expired_at IS NULL OR expired_at > $2::timestamptz)`,
      [orgId, start.toISOString(), end.toISOString()],
    )
  ).rows[0].n;
}

/** The organisation's post-payment invoice of the month (version 1: the one the job makes), if made. */
export async function monthInvoice(q: Queryable, orgId: string, cycle: string): Promise<{ id: string; billId: string } | undefined> {
  return (
    await q.query<{ id: string; billId: string }>(
      `SELECT id, bill_id AS "billId" FROM invoices WHERE org_id = $1 AND billing_cycle = $2 AND type = 'post_payment' AND version = 1`,
      [orgId, cycle],
    )
  ).rows[0];
}

/** The task's quantity, known once the job has counted what it bills. */
export async function setTaskQuantity(q: Queryable, taskId: string, quantity: number): Promise<void> {
  await q.query('UPDATE tasks SET quantity = $2 WHERE id = $1', [taskId, quantity]);
}

/** The task's remark, said again once the job knows what it made. */
export async function setTaskRemark(q: Queryable, taskId: string, remark: string): Promise<void> {
  await q.query('UPDATE tasks SET remark = $2 WHERE id = $1', [taskId, remark.slice(0, 200)]);
}

/** How many lines the invoice has; undefined for another organisation's invoice. */
export async function detailLineCount(q: Queryable, orgId: string, id: string): Promise<{ billId: string; version: number; lines: number } | undefined> {
  return (
    await q.query<{ billId: string; version: number; lines: number }>(
      `SELECT i.bill_id AS "billId", i.version, (SELECT count(*) FROM invoice_lines l WHERE l.org_id = $1 AND l.invoice_id = $2)::int AS lines
         FROM invoices i WHERE i.org_id = $1 AND i.id = $2`,
      [orgId, id],
    )
  ).rows[0];
}

/**
 * The details file's columns, in this order: the line's fields as the API names them, and `pool` (a pool line's pool,
 * by name: its ICCID is empty) and the volumes in MB (usageMb, overageMb; docs/decisions.md "The invoice details file
 * names the pool and counts in MB").
 */
export const DETAIL_COLUMNS = ['iccid', 'pool', 'sku', 'bundleQuantity', 'bundlePrice', 'usageMb', 'overageMb', 'overageAmount', 'amount'] as const;

/**
 * The invoice's lines by ICCID (pool lines, of no ICCID, first), `batch` at a time through a cursor (a large invoice
 * never sits in memory whole). Money and volumes come as exact text; the writer keeps them so. A volume in MB is
 * rounded to four decimals: a KB is 0.0009765625 MB, so every KB stays apart and round(MB × 1024) is the KB again.
 */
export async function eachDetailBatch(
  q: Queryable,
  orgId: string,
  id: string,
  batch: number,
  onRows: (rows: Array<Record<(typeof DETAIL_COLUMNS)[number], string | null>>) => Promise<void>,
): Promise<void> {
  await readCursor(
    q,
    `SELECT nullif(l.iccid, '') AS "iccid", p.name AS "pool", l.sku AS "sku", l.bundle_quantity::text AS "bundleQuantity", l.bundle_price::text AS "bundlePrice",
            round(l.usage_kb / 1024.0, 4)::text AS "usageMb", round(l.overage_kb / 1024.0, 4)::text AS "overageMb", l.overage_amount::text AS "overageAmount", l.amount::text AS "amount"
       FROM invoice_lines l LEFT JOIN shared_pools p ON p.org_id = l.org_id AND p.id = l.pool_id
      WHERE l.org_id = $1 AND l.invoice_id = $2 ORDER BY l.iccid, l.id`,
    [orgId, id],
    batch,
    onRows,
  );
}
