/**
 * The SQL of a job's provider log (server/job/task-log.ts declares its call): lines appended in the transaction of
 * what they tell, and read back for the task's owner or those who see the organisation's tasks.
 */
import type { Queryable } from '../db/db.js';

export interface TaskLogLine {
  orgId: string;
  taskId: string;
  provider: 'worker' | 'network';
  level?: 'info' | 'warn' | 'error';
  /** A key under taskLog in common/locales. */
  message: string;
  detail?: Record<string, unknown>;
  /**
   * Not written when the task's last line is a wait: a task waiting on the network is claimed and given back every
   * few seconds, and its log says it waits once, not at every look.
   */
  quietAfterWait?: boolean;
}

/** Lines a log keeps at most per task: a takeover loop or a chatty network cannot grow it without bound. */
export const TASK_LOG_MAX = 1000;

/** Append lines in q's transaction (a line of a task that no longer exists is dropped, not an error). */
export async function appendTaskLog(q: Queryable, lines: TaskLogLine[]): Promise<void> {
  if (!lines.length) return;
  await q.query(
    `INSERT INTO task_logs (org_id, task_id, provider, level, message, detail)
     SELECT x.o, x.t, x.p, x.l, x.m, x.d::jsonb FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[]) WITH ORDINALITY AS x(o, t, p, l, m, d, q, n)
      WHERE EXISTS (SELECT 1 FROM tasks k WHERE k.id = x.t AND k.org_id = x.o)
        AND (SELECT count(*) FROM task_logs g WHERE g.org_id = x.o AND g.task_id = x.t) < ${TASK_LOG_MAX}
        AND NOT (x.q AND coalesce((SELECT g.message FROM task_logs g WHERE g.org_id = x.o AND g.task_id = x.t ORDER BY g.id DESC LIMIT 1) = 'waits', false))
      ORDER BY x.n`,
    [
      lines.map((l) => l.orgId),
      lines.map((l) => l.taskId),
      lines.map((l) => l.provider),
      lines.map((l) => l.level ?? 'info'),
      lines.map((l) => l.message),
      lines.map((l) => JSON.stringify(l.detail ?? {})),
      lines.map((l) => l.quietAfterWait ?? false),
    ],
  );
}

/** The task as its log's reader may see it: their own, or any of the organisation's with `readAll`; null otherwise. */
export async function taskForLog(q: Queryable, orgId: string, accountId: string, taskId: string, readAll: boolean) {
  return (
    (
      await q.query<{ status: string; error: string | null }>('SELECT status, error FROM tasks WHERE org_id = $1 AND (account_id = $2 OR $4) AND id = $3', [
        orgId,
        accountId,
        taskId,
        readAll,
      ])
    ).rows[0] ?? null
  );
}

/** A task's log lines, oldest first (at most TASK_LOG_MAX). */
export async function taskLogLines(q: Queryable, orgId: string, taskId: string) {
  return (
    await q.query<{ at: Date; provider: string; level: string; message: string; detail: Record<string, unknown> }>(
      `SELECT at, provider, level, message, detail FROM task_logs WHERE org_id = $1 AND task_id = $2 ORDER BY at, id LIMIT ${TASK_LOG_MAX}`,
      [orgId, taskId],
    )
  ).rows;
}
