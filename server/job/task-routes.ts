/**
 * The task center's reading side (SPEC.md section 7, Jobs): my tasks in the current organisation, the last 7 days
 * (SPEC.md section 9), newest first. Running and finishing the jobs belongs to the job worker.
 */
import { LIMITS, PAGING_PROPERTIES } from '../../common/limits.js';
import { notFound } from '../http/api-error.js';
import { defineRoutes, pathParams } from '../http/route.js';

export const TASK_STATUSES = ['processing', 'done', 'issues'] as const;

const taskItem = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    referenceId: { type: 'string' },
    task: { type: 'string' },
    quantity: { type: 'integer' },
    remark: { type: ['string', 'null'] },
    status: { type: 'string', enum: [...TASK_STATUSES] },
    progress: { type: 'integer' },
    startedAt: { type: ['string', 'null'] },
    endedAt: { type: ['string', 'null'] },
    elapsedMs: { type: ['integer', 'null'] },
    hasReport: { type: 'boolean' },
    createdAt: { type: 'string' },
  },
} as const;

const SELECT = `SELECT id, reference_id AS "referenceId", kind AS task, quantity, remark, status, progress,
         started_at AS "startedAt", ended_at AS "endedAt",
         (extract(epoch FROM (coalesce(ended_at, now()) - coalesce(started_at, created_at))) * 1000)::bigint AS "elapsedMs",
         result_file_id IS NOT NULL AS "hasReport", created_at AS "createdAt"
    FROM tasks`;
const MINE = `org_id = $1 AND account_id = $2 AND created_at > now() - interval '${LIMITS.taskListDays} days'`;

type TaskRow = Record<string, unknown> & { elapsedMs: string | number | null };
const shape = (r: TaskRow) => ({ ...r, elapsedMs: r.elapsedMs === null ? null : Number(r.elapsedMs) });

export const taskRoutes = defineRoutes([
  {
    service: 'job',
    method: 'GET',
    path: '/rest/job/my',
    permission: { action: 'read', subject: 'task' },
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          ...PAGING_PROPERTIES,
          status: { type: 'string', enum: [...TASK_STATUSES] },
        },
      },
      response: { type: 'object', properties: { items: { type: 'array', items: taskItem }, total: { type: 'integer' }, processing: { type: 'integer' } } },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { page, pageSize, status } = req.query as { page: number; pageSize: number; status?: string };
      const { db } = req.server;
      const filter = status ? `${MINE} AND status = $3` : MINE;
      const params = status ? [auth.orgId, auth.accountId, status] : [auth.orgId, auth.accountId];
      const [items, counts] = await Promise.all([
        db.query<TaskRow>(`${SELECT} WHERE ${filter} ORDER BY created_at DESC, id LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`, params),
        db.query<{ total: number; processing: number }>(
          `SELECT count(*) FILTER (WHERE ${status ? 'status = $3' : 'true'})::int AS total, count(*) FILTER (WHERE status = 'processing')::int AS processing
             FROM tasks WHERE ${MINE}`,
          params,
        ),
      ]);
      return { items: items.rows.map(shape), ...counts.rows[0] };
    },
  },
  {
    service: 'job',
    method: 'GET',
    path: '/rest/job/my/:id',
    permission: { action: 'read', subject: 'task' },
    schema: { params: pathParams('id'), response: taskItem },
    // Someone else's task, or one of another organisation, answers 404 like one that does not exist.
    handler: async (req) => {
      const auth = req.requireAuth();
      const r = await req.server.db.query<TaskRow>(`${SELECT} WHERE org_id = $1 AND account_id = $2 AND id = $3`, [auth.orgId, auth.accountId, (req.params as { id: string }).id]);
      if (!r.rows[0]) throw notFound();
      return shape(r.rows[0]);
    },
  },
]);
