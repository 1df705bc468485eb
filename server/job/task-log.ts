/**
 * A job's provider log (SPEC.md section 7, Jobs: GET /rest/logs/provider/result/{id}): what the providers of a task
 * said while it ran, line by line. The job worker writes its claim, a takeover from a stopped instance, a wait and the
 * end; the network adapter's answers for the task's SIMs are written where they arrive (server/sim/activation.ts).
 * A line is a message key with values (server-only words "taskLog.*"), so each reader reads it in their language.
 * Its SQL is in ./task-log-repo.ts.
 */
import { translate } from '../../common/i18n.js';
import { notFound } from '../http/api-error.js';
import { defineRoutes } from '../http/route.js';
import { arrayOf, ID_PARAMS, NULLABLE_TEXT, subjectRoutes, typed } from '../http/shapes.js';
import { taskForLog, taskLogLines } from './task-log-repo.js';

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
      const task = await taskForLog(db, auth.orgId, auth.accountId, id, auth.ability.can('readAll', 'task'));
      if (!task) throw notFound('task', id);
      const lines = await taskLogLines(db, auth.orgId, id);
      return {
        taskId: id,
        status: task.status,
        error: task.error,
        lines: lines.map((l) => ({ ...l, text: translate(req.lang, `taskLog.${l.message}`, l.detail) })),
      };
    },
  }),
]);
