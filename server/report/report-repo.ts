/** The SQL of reports and their preference columns (SPEC.md section 7, Reports). Every query names the organisation first. */
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';

const PREFS = `SELECT column_key AS "columnKey", enabled, position, updated_at AS "updatedAt" FROM report_preferences WHERE org_id = $1 ORDER BY position, column_key`;

/** Whether the organisation has its report preference columns. */
export async function hasReportConfig(q: Queryable, orgId: string): Promise<boolean> {
  return (await q.query('SELECT 1 FROM report_preferences WHERE org_id = $1 LIMIT 1', [orgId])).rows.length > 0;
}

/** A report of the organisation with its stored file (null fields while it has none); undefined for no such report. */
export async function reportWithFile(q: Queryable, orgId: string, id: string) {
  return (
    await q.query<{ status: string; storage_key: string | null; name: string; content_type: string; size_bytes: string }>(
      `SELECT r.status, f.storage_key, f.name, f.content_type, f.size_bytes FROM reports r LEFT JOIN files f ON f.id = r.file_id WHERE r.org_id = $1 AND r.id = $2`,
      [orgId, id],
    )
  ).rows[0];
}

/** Mark a report (new or made before) pending to be made again; undefined when it is being made already. */
export async function claimReport(q: Queryable, orgId: string, report: string, period: string) {
  return (
    await q.query<{ id: string; status: string }>(
      `INSERT INTO reports (org_id, id, report, period, status) VALUES ($1, $2, $3, $4, 'pending')
       ON CONFLICT (org_id, report, period) DO UPDATE SET status = 'pending', updated_at = now() WHERE reports.status <> 'pending'
       RETURNING id, status`,
      [orgId, newId(), report, period],
    )
  ).rows[0];
}

/** The organisation's preference columns in order (locked for the transaction when `lock`). */
export async function reportPreferences(q: Queryable, orgId: string, lock = false) {
  return (await q.query<{ columnKey: string; enabled: boolean; position: number; updatedAt: Date }>(lock ? `${PREFS} FOR UPDATE` : PREFS, [orgId])).rows;
}

/** Enable or disable one preference column. */
export async function setReportColumn(q: Queryable, orgId: string, columnKey: string, enabled: boolean, accountId: string): Promise<void> {
  await q.query('UPDATE report_preferences SET enabled = $3, updated_by = $4, updated_at = now() WHERE org_id = $1 AND column_key = $2', [
    orgId,
    columnKey,
    enabled,
    accountId,
  ]);
}
