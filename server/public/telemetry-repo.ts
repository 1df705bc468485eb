/** The SQL of page views and console error reports (SPEC.md sections 1 and 8), and of who reports them. */
import type { Queryable } from '../db/db.js';

/**
 * The organisation a live session's active account reports under: the one partnerCode names if the account is an
 * active member there, else its default; undefined when the account or the session is not live.
 */
export async function reportingOrg(q: Queryable, accountId: string, sessionId: string, partnerCode: string | null) {
  return (
    await q.query<{ org_id: string | null; code: string | null }>(
      `SELECT m.org_id, m.code
         FROM accounts a
         JOIN sessions s ON s.id = $2 AND s.account_id = a.id AND s.revoked_at IS NULL
         LEFT JOIN LATERAL (
           SELECT m.org_id, o.code FROM memberships m JOIN organisations o ON o.id = m.org_id
            WHERE m.account_id = a.id AND m.status = 'active'
            ORDER BY (o.code = $3::text) DESC NULLS LAST, m.is_default DESC, o.level, o.code
            LIMIT 1
         ) m ON true
        WHERE a.id = $1 AND a.status = 'active'`,
      [accountId, sessionId, partnerCode],
    )
  ).rows[0];
}

/** Who filed a report: an account and its organisation, or no one. */
export interface ReporterIds {
  accountId: string | null;
  orgId: string | null;
}

/** Store a page view. */
export async function insertPageView(q: Queryable, who: ReporterIds, v: { path: string; language: string; referrer: string | null }): Promise<void> {
  await q.query('INSERT INTO page_views (account_id, org_id, path, language, referrer) VALUES ($1, $2, $3, $4, $5)', [
    who.accountId,
    who.orgId,
    v.path,
    v.language,
    v.referrer,
  ]);
}

/** Store a console error report. */
export async function insertErrorReport(
  q: Queryable,
  who: ReporterIds,
  e: { message: string; url: string | null; status: number | null; detail: object | null },
): Promise<void> {
  await q.query('INSERT INTO error_reports (account_id, org_id, message, url, status, detail) VALUES ($1, $2, $3, $4, $5, $6)', [
    who.accountId,
    who.orgId,
    e.message,
    e.url,
    e.status,
    e.detail ? JSON.stringify(e.detail) : null,
  ]);
}
