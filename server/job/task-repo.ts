/**
 * The SQL of the task center (SPEC.md section 7, Jobs): queuing a task, my tasks of the last LIMITS.taskListDays days,
 * and the one-time download links of their files. Every query names the organisation first.
 */
import { LIMITS } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';

/** A task to queue for the job worker. */
export interface NewTask {
  orgId: string;
  id: string;
  /** Who asked; null for a task the product starts itself (a scheduled report). */
  accountId: string | null;
  referenceId: string | null;
  kind: string;
  quantity: number;
  remark: string | null;
  payload: unknown;
}

/** Queue a task (processing, progress 0) for the job worker. */
export async function insertTask(q: Queryable, t: NewTask): Promise<void> {
  await q.query(`INSERT INTO tasks (org_id, id, account_id, reference_id, kind, quantity, remark, payload) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
    t.orgId,
    t.id,
    t.accountId,
    t.referenceId,
    t.kind,
    t.quantity,
    t.remark,
    JSON.stringify(t.payload),
  ]);
}

const SELECT = `SELECT id, reference_id AS "referenceId", kind AS task, quantity, remark, status, progress,
         started_at AS "startedAt", ended_at AS "endedAt",
         (extract(epoch FROM (coalesce(ended_at, now()) - coalesce(started_at, created_at))) * 1000)::bigint AS "elapsedMs",
         result_file_id IS NOT NULL AS "hasReport", created_at AS "createdAt"
    FROM tasks`;
const MINE = `org_id = $1 AND account_id = $2 AND created_at > now() - interval '${LIMITS.taskListDays} days'`;
/** The organisation's tasks of the window, whoever started them ($2 is the caller, to mark their own). */
const ORGS = `org_id = $1 AND created_at > now() - interval '${LIMITS.taskListDays} days'`;

/** A task as the task center lists it. */
export type TaskRow = Record<string, unknown> & { elapsedMs: string | number | null };

/** A page of my tasks (of one status, when given), newest first, with the total and how many are processing. */
export async function myTasks(q: Queryable, orgId: string, accountId: string, ask: { page: number; pageSize: number; status?: string }) {
  const filter = ask.status ? `${MINE} AND status = $3` : MINE;
  const params = ask.status ? [orgId, accountId, ask.status] : [orgId, accountId];
  const [items, counts] = await Promise.all([
    q.query<TaskRow>(`${SELECT} WHERE ${filter} ORDER BY created_at DESC, id LIMIT ${ask.pageSize} OFFSET ${(ask.page - 1) * ask.pageSize}`, params),
    q.query<{ total: number; processing: number }>(
      `SELECT count(*) FILTER (WHERE ${ask.status ? 'status = $3' : 'true'})::int AS total, count(*) FILTER (WHERE status = 'processing')::int AS processing
         FROM tasks WHERE ${MINE}`,
      params,
    ),
  ]);
  return { items: items.rows, ...counts.rows[0] };
}

/**
 * A page of the organisation's tasks (an administrator's task center), newest first, each with who started it and
 * whether it is the caller's; the processing count is the caller's own, as the header's shortcut shows.
 */
export async function orgTasks(q: Queryable, orgId: string, accountId: string, ask: { page: number; pageSize: number; status?: string }) {
  const filter = ask.status ? `${ORGS} AND status = $3` : ORGS;
  const params = ask.status ? [orgId, accountId, ask.status] : [orgId, accountId];
  const [items, counts] = await Promise.all([
    q.query<TaskRow>(
      `SELECT t.*, t."accountId" = $2 AS mine, coalesce(nullif(trim(a.first_name || ' ' || a.last_name), ''), a.email, '') AS "startedBy"
         FROM (${SELECT.replace('SELECT id,', 'SELECT id, account_id AS "accountId",')} WHERE ${filter}) t LEFT JOIN accounts a ON a.id = t."accountId"
        ORDER BY t."createdAt" DESC, t.id LIMIT ${ask.pageSize} OFFSET ${(ask.page - 1) * ask.pageSize}`,
      params,
    ),
    q.query<{ total: number; processing: number }>(
      `SELECT count(*) FILTER (WHERE ${ask.status ? 'status = $3' : 'true'})::int AS total, count(*) FILTER (WHERE status = 'processing' AND account_id = $2)::int AS processing
         FROM tasks WHERE ${ORGS}`,
      params,
    ),
  ]);
  return { items: items.rows, ...counts.rows[0] };
}

/** One of my tasks; undefined for someone else's or another organisation's. */
export async function myTask(q: Queryable, orgId: string, accountId: string, id: string): Promise<TaskRow | undefined> {
  return (await q.query<TaskRow>(`${SELECT} WHERE org_id = $1 AND account_id = $2 AND id = $3`, [orgId, accountId, id])).rows[0];
}

/**
 * The file of one of my tasks (null ids while it has none); undefined for someone else's task, unless `anyone` (an
 * administrator, who sees the organisation's tasks) when it is the organisation's.
 */
export async function myTaskFile(q: Queryable, orgId: string, accountId: string, id: string, anyone = false) {
  return (
    await q.query<{ file_id: string | null; storage_key: string | null }>(
      `SELECT t.result_file_id AS file_id, f.storage_key FROM tasks t LEFT JOIN files f ON f.id = t.result_file_id
        WHERE t.org_id = $1 AND (t.account_id = $2 OR $4) AND t.id = $3`,
      [orgId, accountId, id, anyone],
    )
  ).rows[0];
}

/** A one-time download link's token (stored as its hash) for a file, working for `minutes`. */
export async function insertDownloadToken(
  q: Queryable,
  t: { tokenHash: string; orgId: string; accountId: string; fileId: string; minutes: number },
): Promise<void> {
  await q.query(
    `INSERT INTO download_tokens (token_hash, org_id, account_id, file_id, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(mins => $5))`,
    [t.tokenHash, t.orgId, t.accountId, t.fileId, t.minutes],
  );
}

/** Use a download token once: the file it opens, or undefined when it is unknown, used or expired. */
export async function useDownloadToken(q: Queryable, tokenHash: string) {
  return (
    await q.query<{ storage_key: string; name: string; content_type: string; size_bytes: string }>(
      `UPDATE download_tokens d SET used_at = now() FROM files f
        WHERE d.token_hash = $1 AND d.used_at IS NULL AND d.expires_at > now() AND f.id = d.file_id
        RETURNING f.storage_key, f.name, f.content_type, f.size_bytes`,
      [tokenHash],
    )
  ).rows[0];
}
