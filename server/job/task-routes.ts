/**
 * The task center's reading side (SPEC.md section 7, Jobs): my tasks in the current organisation, the last 7 days
 * (SPEC.md section 9), newest first. Running and finishing the jobs belongs to the job worker.
 */
import { LIMITS, PAGING_PROPERTIES } from '../../common/limits.js';
import { CODES } from '../../common/errors.js';
import { newSecret, sha256 } from '../db/ids.js';
import { ApiError, notFound } from '../http/api-error.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { neverCached, sendStored } from './storage.js';
import { pageResponse } from '../http/page-response.js';

/** How long a one-time download link works. */
const DOWNLOAD_MINUTES = 5;

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
      response: pageResponse(taskItem, { processing: { type: 'integer' } }),
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
    path: '/rest/job/my/oneTimeToken',
    permission: { action: 'read', subject: 'task' },
    schema: {
      querystring: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string', minLength: 1, maxLength: 40 } } },
      response: { type: 'object', properties: { token: { type: 'string' }, url: { type: 'string' } } },
    },
    // A link to my task's file that works once, for 5 minutes: a plain link the browser downloads without the bearer.
    handler: async (req, reply) => {
      neverCached(reply);
      const auth = req.requireAuth();
      const { id } = req.query as { id: string };
      const row = (
        await req.server.db.query<{ file_id: string | null; storage_key: string | null }>(
          'SELECT t.result_file_id AS file_id, f.storage_key FROM tasks t LEFT JOIN files f ON f.id = t.result_file_id WHERE t.org_id = $1 AND t.account_id = $2 AND t.id = $3',
          [auth.orgId, auth.accountId, id],
        )
      ).rows[0];
      if (!row) throw notFound('task', id);
      if (!row.file_id || !row.storage_key || !req.server.files.exists(row.storage_key)) throw new ApiError(410, CODES.notFound, {}, 'errors.fileGone');
      const token = newSecret();
      await req.server.db.query(
        `INSERT INTO download_tokens (token_hash, org_id, account_id, file_id, expires_at) VALUES ($1, $2, $3, $4, now() + interval '${DOWNLOAD_MINUTES} minutes')`,
        [sha256(token), auth.orgId, auth.accountId, row.file_id],
      );
      return { token, url: `/api/job/rest/job/download/${token}` };
    },
  },
  {
    service: 'job',
    method: 'GET',
    path: '/rest/job/download/:token',
    permission: 'public',
    raw: true,
    schema: { params: { type: 'object', required: ['token'], properties: { token: { type: 'string', minLength: 20, maxLength: 100 } } }, response: {} },
    // The public link per job: the token is the permission, used once.
    handler: async (req, reply) => {
      neverCached(reply);
      const { token } = req.params as { token: string };
      const file = (
        await req.server.db.query<{ storage_key: string; name: string; content_type: string; size_bytes: string }>(
          `UPDATE download_tokens d SET used_at = now() FROM files f
            WHERE d.token_hash = $1 AND d.used_at IS NULL AND d.expires_at > now() AND f.id = d.file_id
            RETURNING f.storage_key, f.name, f.content_type, f.size_bytes`,
          [sha256(token)],
        )
      ).rows[0];
      if (!file || !req.server.files.exists(file.storage_key)) throw new ApiError(410, CODES.notFound, {}, 'errors.downloadGone');
      return sendStored(reply, req.server.files, file);
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
      const { id } = req.params as { id: string };
      const r = await req.server.db.query<TaskRow>(`${SELECT} WHERE org_id = $1 AND account_id = $2 AND id = $3`, [auth.orgId, auth.accountId, id]);
      if (!r.rows[0]) throw notFound('task', id);
      return shape(r.rows[0]);
    },
  },
]);
