/**
 * The task center's reading side (SPEC.md section 7, Jobs): my tasks in the current organisation, the last 7 days
 * (SPEC.md section 9), newest first. Running and finishing the jobs belongs to the job worker.
 */
import { CODES } from '../../common/errors.js';
import { newSecret, sha256 } from '../db/ids.js';
import { ApiError, notFound } from '../http/api-error.js';
import { defineRoutes } from '../http/route.js';
import { ID_PARAMS, idsIn, NULLABLE_TEXT, pagedQuery, subjectRoutes, typed } from '../http/shapes.js';
import { neverCached, sendStored } from './storage.js';
import { pageResponse } from '../http/page-response.js';
import { insertDownloadToken, myTask, myTaskFile, myTasks, orgTasks, useDownloadToken, type TaskRow } from './task-repo.js';

/** How long a one-time download link works. */
const DOWNLOAD_MINUTES = 5;

export const TASK_STATUSES = ['processing', 'done', 'issues'] as const;

const taskStatus = { type: 'string', enum: [...TASK_STATUSES] };
const taskItem = typed({
  id: 'string',
  referenceId: 'string',
  task: 'string',
  quantity: 'integer',
  remark: NULLABLE_TEXT,
  status: taskStatus,
  progress: 'integer',
  startedAt: NULLABLE_TEXT,
  endedAt: NULLABLE_TEXT,
  elapsedMs: ['integer', 'null'],
  hasReport: 'boolean',
  createdAt: 'string',
});
/** An organisation's task: whose it is (their name), and whether it is the caller's. */
const orgTaskItem = typed({ ...taskItem.properties, startedBy: 'string', mine: 'boolean' });
/** The service and subject of every task route but the public download. */
const taskRoute = subjectRoutes('job', 'task');

const shape = (r: TaskRow) => ({ ...r, elapsedMs: r.elapsedMs === null ? null : Number(r.elapsedMs) });

export const taskRoutes = defineRoutes([
  taskRoute('GET', '/rest/job/my', 'read', {
    schema: { querystring: pagedQuery({ status: taskStatus }), response: pageResponse(taskItem, { processing: { type: 'integer' } }) },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { page, pageSize, status } = req.query as { page: number; pageSize: number; status?: string };
      const r = await myTasks(req.server.db, auth.orgId, auth.accountId, { page, pageSize, status });
      return { ...r, items: r.items.map(shape) };
    },
  }),
  taskRoute('GET', '/rest/job/all', 'readAll', {
    summary: "The organisation's tasks, whoever started them",
    schema: { querystring: pagedQuery({ status: taskStatus }), response: pageResponse(orgTaskItem, { processing: { type: 'integer' } }) },
    // An administrator's task center: every member's tasks of the window, each saying who started it.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { page, pageSize, status } = req.query as { page: number; pageSize: number; status?: string };
      const r = await orgTasks(req.server.db, auth.orgId, auth.accountId, { page, pageSize, status });
      return { ...r, items: r.items.map(shape) };
    },
  }),
  taskRoute('GET', '/rest/job/my/oneTimeToken', 'read', {
    schema: { querystring: idsIn('id'), response: typed({ token: 'string', url: 'string' }) },
    // A link to my task's file that works once, for 5 minutes: a plain link the browser downloads without the bearer.
    handler: async (req, reply) => {
      neverCached(reply);
      const auth = req.requireAuth();
      const { id } = req.query as { id: string };
      // Someone else's task is missing to all but those who see the organisation's tasks (administrators).
      const row = await myTaskFile(req.server.db, auth.orgId, auth.accountId, id, auth.ability.can('readAll', 'task'));
      if (!row) throw notFound('task', id);
      if (!row.file_id || !row.storage_key || !req.server.files.exists(row.storage_key)) throw new ApiError(410, CODES.notFound, {}, 'errors.fileGone');
      const token = newSecret();
      await insertDownloadToken(req.server.db, {
        tokenHash: sha256(token),
        orgId: auth.orgId,
        accountId: auth.accountId,
        fileId: row.file_id,
        minutes: DOWNLOAD_MINUTES,
      });
      return { token, url: `/api/job/rest/job/download/${token}` };
    },
  }),
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
      const file = await useDownloadToken(req.server.db, sha256(token));
      if (!file || !req.server.files.exists(file.storage_key)) throw new ApiError(410, CODES.notFound, {}, 'errors.downloadGone');
      return sendStored(reply, req.server.files, file);
    },
  },
  taskRoute('GET', '/rest/job/my/:id', 'read', {
    schema: { params: ID_PARAMS, response: taskItem },
    // Someone else's task, or one of another organisation, answers 404 like one that does not exist.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const task = await myTask(req.server.db, auth.orgId, auth.accountId, id);
      if (!task) throw notFound('task', id);
      return shape(task);
    },
  }),
]);
