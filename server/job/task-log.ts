/**
 * A job's provider log (SPEC.md section 7, Jobs: GET /rest/logs/provider/result/{id}): what the providers of a task
 * said while it ran, line by line. The job worker writes its claim, a takeover from a stopped instance, a wait and the
 * end; the network adapter's answers for the task's SIMs are written where they arrive (server/network/activation.ts).
 * A line is a message key with values (server-only words "taskLog.*"), so each reader reads it in their language.
 */
import { translate } from '../../common/i18n.js';
import type { Queryable } from '../db/db.js';
import { notFound } from '../http/api-error.js';
import { defineRoutes } from '../http/route.js';
import { arrayOf, ID_PARAMS, NULLABLE_TEXT, subjectRoutes, typed } from '../http/shapes.js';

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
      lines.map((l) => l.orgId), lines.map((l) => l.taskId), lines.map((l) => l.provider), lines.map((l) => l.level ?? 'info'),
      lines.map((l) => l.message), lines.map((l) => JSON.stringify(l.detail ?? {})),
      lines.map((l) => l.quietAfterWait ?? false),
    ],
  );
}

const LINE = typed({
  at: { type: 'string', format: 'date-time' },
  provider: { type: 'string', enum: ['worker', 'network'] },
  level: { type: 'string', enum: ['info', 'warn', 'error'] },
  message: 'string',
  text: 'string',
  detail: { type: 'object', additionalProperties: true },
});

export const taskLogRoutes = defineRoutes([
  subjectRoutes('job', 'task')('GET', '/rest/logs/provider/result/:id', 'read', {
    summary: "A job's provider log",
    schema: { params: ID_PARAMS, response: typed({ taskId: 'string', status: 'string', error: NULLABLE_TEXT, lines: arrayOf(LINE) }) },
    // My task in the current organisation only: anyone else's reads as missing, like GET /rest/job/my/{id}, except to
    // those who see the organisation's tasks (administrators, GET /rest/job/all).
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { db } = req.server;
      const task = (await db.query<{ status: string; error: string | null }>('SELECT status, error FROM tasks WHERE org_id = $1 AND (account_id = $2 OR $4) AND id = $3', [auth.orgId, auth.accountId, id, auth.ability.can('readAll', 'task')])).rows[0];
      if (!task) throw notFound('task', id);
      const lines = await db.query<{ at: Date; provider: string; level: string; message: string; detail: Record<string, unknown> }>(
        `SELECT at, provider, level, message, detail FROM task_logs WHERE org_id = $1 AND task_id = $2 ORDER BY at, id LIMIT ${TASK_LOG_MAX}`,
        [auth.orgId, id],
      );
      return {
        taskId: id,
        status: task.status,
        error: task.error,
        lines: lines.rows.map((l) => ({ ...l, text: translate(req.lang, `taskLog.${l.message}`, l.detail) })),
      };
    },
  }),
]);
