/**
 * The SQL of autoflow runs (the run history) and of the housekeeping of the engine's tables: runs are kept 30 days
 * (SPEC.md section 9), validated uploads a day unless a rule names them.
 */
import { LIMITS } from '../../common/limits.js';
import type { Db, Queryable } from '../db/db.js';

/** Hours an uploaded file that no rule names is kept (the person validates it, then saves the rule). */
export const UNUSED_UPLOAD_HOURS = 24;
const BATCH = 10_000;

/** Delete runs older than the history keeps and uploads no rule names; returns the rows deleted of each. */
export async function sweepAutoflow(db: Db, now: Date): Promise<{ runs: number; uploads: number }> {
  const cutoff = new Date(now.getTime() - LIMITS.autoflowHistoryDays * 86_400_000).toISOString();
  let runs = 0;
  for (;;) {
    // ctid = ANY(ARRAY(...)): a bounded batch on PGlite and PostgreSQL alike (DELETE has no LIMIT).
    const r = await db.query(`DELETE FROM autoflow_runs WHERE ctid = ANY(ARRAY(SELECT ctid FROM autoflow_runs WHERE at < $1 LIMIT ${BATCH}))`, [cutoff]);
    runs += r.rowCount;
    if (r.rowCount < BATCH) break;
  }
  const uploads = await db.query(
    `DELETE FROM autoflow_scope_files f
      WHERE f.created_at < $1::timestamptz - make_interval(hours => $2)
        AND NOT EXISTS (SELECT 1 FROM autoflow_rules r WHERE r.org_id = f.org_id AND r.status <> 'deleted'
                         AND (r.scope->>'fileToken' = f.token OR r.condition->>'imeiFileToken' = f.token))`,
    [now.toISOString(), UNUSED_UPLOAD_HOURS],
  );
  return { runs, uploads: uploads.rowCount };
}

export interface RunRecord {
  id: string;
  ruleId: string;
  iccid: string | null;
  trigger: string;
  status: string;
  detail: unknown;
  actions: unknown;
  at: string;
}

/** One rule's runs (of the organisation), newest first, filtered by outcome and ICCID. */
export async function listRuns(
  q: Queryable,
  orgId: string,
  ruleId: string,
  query: { page: number; pageSize: number; status?: string; iccid?: string },
): Promise<{ items: RunRecord[]; total: number; page: number; pageSize: number }> {
  const params: unknown[] = [orgId, ruleId, query.status ?? null, query.iccid ?? null];
  const where = 'org_id = $1 AND rule_id = $2 AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR iccid = $4)';
  const total = Number((await q.query<{ n: string }>(`SELECT count(*)::text AS n FROM autoflow_runs WHERE ${where}`, params)).rows[0].n);
  const rows = await q.query<{ id: string; rule_id: string; iccid: string | null; trigger: string; status: string; detail: unknown; actions: unknown; at: Date }>(
    `SELECT id::text AS id, rule_id, iccid, trigger, status, detail, actions, at FROM autoflow_runs WHERE ${where} ORDER BY at DESC, id DESC LIMIT $5 OFFSET $6`,
    [...params, query.pageSize, (query.page - 1) * query.pageSize],
  );
  return {
    items: rows.rows.map((r) => ({ id: r.id, ruleId: r.rule_id, iccid: r.iccid, trigger: r.trigger, status: r.status, detail: r.detail, actions: r.actions, at: new Date(r.at).toISOString() })),
    total,
    page: query.page,
    pageSize: query.pageSize,
  };
}
