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

/** One rule's runs (of the organisation), newest first, filtered by outcome, ICCID and one action's type and outcome. */
export async function listRuns(
  q: Queryable,
  orgId: string,
  ruleId: string,
  query: { page: number; pageSize: number; status?: string; iccid?: string; actionType?: string; actionOutcome?: string },
): Promise<{ items: RunRecord[]; total: number; page: number; pageSize: number }> {
  const params: unknown[] = [orgId, ruleId, query.status ?? null, query.iccid ?? null, query.actionType ?? null, query.actionOutcome ?? null];
  // An action filter: some action of the run has that type and/or that outcome (containment on the actions array).
  const where = `org_id = $1 AND rule_id = $2 AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR iccid = $4)
    AND (($5::text IS NULL AND $6::text IS NULL) OR actions @> jsonb_build_array(jsonb_strip_nulls(jsonb_build_object('type', $5::text, 'outcome', $6::text))))`;
  const total = Number((await q.query<{ n: string }>(`SELECT count(*)::text AS n FROM autoflow_runs WHERE ${where}`, params)).rows[0].n);
  const rows = await q.query<{
    id: string;
    rule_id: string;
    iccid: string | null;
    trigger: string;
    status: string;
    detail: unknown;
    actions: unknown;
    at: Date;
  }>(
    `SELECT id::text AS id, rule_id, iccid, trigger, status, detail, actions, at FROM autoflow_runs WHERE ${where} ORDER BY at DESC, id DESC LIMIT $7 OFFSET $8`,
    [...params, query.pageSize, (query.page - 1) * query.pageSize],
  );
  return {
    items: rows.rows.map((r) => ({
      id: r.id,
      ruleId: r.rule_id,
      iccid: r.iccid,
      trigger: r.trigger,
      status: r.status,
      detail: r.detail,
      actions: r.actions,
      at: new Date(r.at).toISOString(),
    })),
    total,
    page: query.page,
    pageSize: query.pageSize,
  };
}

/** One action of a rule with how its runs went: the outcomes of the runs kept (30 days), by outcome. */
export interface TriggerAction {
  index: number;
  type: string;
  params: Record<string, unknown>;
  outcomes: Record<string, number>;
  lastAt: string | null;
}

/**
 * GET /rules/{id}/trigger_actions: the rule's trigger and, in order, its actions, each with the count of every outcome
 * it had in the runs kept (done, failed, retrying, pending...), and the runs by status; with a runId, that run's
 * actions as it recorded them (docs/decisions.md "GET /rules/{id}/trigger_actions").
 */
export async function triggerActions(
  q: Queryable,
  orgId: string,
  rule: { id: string; trigger: Record<string, unknown>; actions: Array<Record<string, unknown>> },
  runId?: string,
): Promise<{
  ruleId: string;
  trigger: Record<string, unknown>;
  actions: TriggerAction[];
  runs: Record<string, number>;
  run: { id: string; iccid: string | null; status: string; at: string; actions: unknown } | null;
}> {
  const counts = await q.query<{ ord: string; outcome: string; n: string; last: Date | null }>(
    `SELECT a.ord::text, coalesce(a.value->>'outcome', 'pending') AS outcome, count(*)::text AS n, max(r.at) AS last
       FROM autoflow_runs r, jsonb_array_elements(r.actions) WITH ORDINALITY AS a(value, ord)
      WHERE r.org_id = $1 AND r.rule_id = $2 GROUP BY 1, 2`,
    [orgId, rule.id],
  );
  const byStatus = await q.query<{ status: string; n: string }>(
    'SELECT status, count(*)::text AS n FROM autoflow_runs WHERE org_id = $1 AND rule_id = $2 GROUP BY status',
    [orgId, rule.id],
  );
  const actions: TriggerAction[] = rule.actions.map((a, i) => {
    const { type, ...params } = a;
    return { index: i, type: String(type), params, outcomes: {}, lastAt: null };
  });
  for (const c of counts.rows) {
    const a = actions[Number(c.ord) - 1];
    // A run written before the rule was edited may have more actions than the rule has now: counted where they fit.
    if (!a) continue;
    a.outcomes[c.outcome] = Number(c.n);
    const last = c.last ? new Date(c.last).toISOString() : null;
    if (last && (!a.lastAt || last > a.lastAt)) a.lastAt = last;
  }
  let run = null;
  if (runId) {
    const r = (
      await q.query<{ id: string; iccid: string | null; status: string; at: Date; actions: unknown }>(
        'SELECT id::text, iccid, status, at, actions FROM autoflow_runs WHERE org_id = $1 AND rule_id = $2 AND id = $3::bigint',
        [orgId, rule.id, runId],
      )
    ).rows[0];
    run = r ? { id: r.id, iccid: r.iccid, status: r.status, at: new Date(r.at).toISOString(), actions: r.actions } : null;
  }
  return {
    ruleId: rule.id,
    trigger: rule.trigger,
    actions,
    runs: Object.fromEntries(['pending', 'success', 'failed', 'skipped'].map((s) => [s, Number(byStatus.rows.find((r) => r.status === s)?.n ?? 0)])),
    run,
  };
}
