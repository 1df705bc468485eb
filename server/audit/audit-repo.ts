/** The SQL of reading the audit trail (the rows themselves are written by server/http/audit.ts). */
import type { Queryable } from '../db/db.js';

/** What an audit page asks for: the entity and the time range are optional. */
export interface AuditAsk {
  page: number;
  pageSize: number;
  entity?: string;
  from?: string;
  to?: string;
}

/** A page of an organisation's audit rows, newest first, with who did each, and the count of all that match. */
export async function auditPage(q: Queryable, orgId: string, ask: AuditAsk) {
  const params = [orgId, ask.entity ?? null, ask.from ?? null, ask.to ?? null];
  const where =
    'WHERE l.org_id = $1 AND ($2::text IS NULL OR l.entity = $2) AND ($3::timestamptz IS NULL OR l.at >= $3) AND ($4::timestamptz IS NULL OR l.at < $4)';
  const total = (await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log l ${where}`, params)).rows[0].n;
  const items = (
    await q.query(
      `SELECT l.id::text AS id, l.at, l.account_id AS "accountId", a.email, l.action, l.entity, l.entity_id AS "entityId", l.before, l.after, l.request_id AS "requestId"
         FROM audit_log l LEFT JOIN accounts a ON a.id = l.account_id ${where} ORDER BY l.at DESC, l.id DESC LIMIT $5 OFFSET $6`,
      [...params, ask.pageSize, (ask.page - 1) * ask.pageSize],
    )
  ).rows;
  return { items, total };
}
