/**
 * A scheduled SMS's files through the task center (SPEC.md section 7): the MT report (every message its runs
 * sent, or one run's), the MO report (the devices' answers to those messages) and the list of its target SIMs
 * (/sms/sim/download/csv). The request checks and counts; a job of kind sms_report writes the file, so a large task
 * never holds a request open and the file is offered in the task center like every export.
 */
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import { LIMITS, type Language } from '../../common/limits.js';
import { newId } from '../db/ids.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, type RouteDef, type Service } from '../http/route.js';
import { publishLive } from '../live/hub.js';
import { csvWriter, xlsxWriter, type Cell } from '../job/table-writers.js';
import type { JobHandler } from '../job/worker.js';
import { scheduleText } from './messages.js';
import { taskReference } from '../job/task-reference.js';
import { insertTask } from '../job/task-repo.js';
import { readReportRows, reportRowCount, REPORTS, type Report } from './report-repo.js';
import { scheduleOf } from './schedule-repo.js';

const FORMATS = { csv: 'text/csv; charset=utf-8', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } as const;
type Format = keyof typeof FORMATS;

interface Payload {
  report: Report;
  scheduleId: string;
  runId: string | null;
  format: Format;
  lang: Language;
}

/** The route that asks for one of the reports: checks the schedule, counts, and queues the job. */
function reportRoute(report: Report, service: Service, method: 'GET' | 'POST', path: string): RouteDef {
  const fields = {
    id: { type: 'string', minLength: 1, maxLength: 40 },
    ...(report === 'sims' ? {} : { runId: { type: 'string', maxLength: 20, pattern: '^[0-9]{1,18}$' } }),
    format: { type: 'string', enum: Object.keys(FORMATS) },
  };
  const input = { type: 'object', additionalProperties: false, required: ['id'], properties: fields };
  return {
    service,
    method,
    path,
    permission: { action: 'read', subject: 'cube-schedule-sms' },
    schema: {
      ...(method === 'GET' ? { querystring: input } : { body: input }),
      response: { type: 'object', properties: { taskId: { type: 'string' }, referenceId: { type: 'string' }, quantity: { type: 'integer' } } },
    },
    handler: async (req: FastifyRequest) => {
      const auth = req.requireAuth();
      const b = (method === 'GET' ? req.query : req.body) as { id: string; runId?: string; format?: Format };
      const { db } = req.server;
      const s = await scheduleOf(db, auth.orgId, b.id);
      if (!s) throw notFound('scheduledSms', b.id);
      const payload: Payload = { report, scheduleId: b.id, runId: b.runId ?? null, format: b.format ?? 'csv', lang: req.lang };
      const quantity = await reportRowCount(db, report, auth.orgId, payload.scheduleId, payload.runId);
      if (quantity === 0) throw new ApiError(400, CODES.badRequest, {}, 'errors.exportNoData');
      if (quantity > LIMITS.exportMax) throw new ApiError(400, CODES.badRequest, { max: LIMITS.exportMax.toLocaleString(req.lang) }, 'errors.exportTooMany');
      const taskId = newId();
      const referenceId = taskReference('sms_report', new Date());
      await db.tx(async (q) => {
        await insertTask(q, {
          orgId: auth.orgId,
          id: taskId,
          accountId: auth.accountId,
          referenceId,
          kind: 'sms_report',
          quantity,
          remark: `${scheduleText(req.lang, `reports.names.${report}`)} · ${s.name}`.slice(0, 500),
          payload,
        });
        await audit(q, req, {
          action: 'export',
          entity: 'sms_schedule',
          entityId: b.id,
          after: { report, runId: payload.runId, format: payload.format, quantity },
        });
        await publishLive(q, { type: 'task', orgId: auth.orgId, accountId: auth.accountId, data: { id: taskId, status: 'processing', progress: 0 } });
      });
      return { taskId, referenceId, quantity };
    },
  };
}

export const taskReportRoutes = defineRoutes([
  reportRoute('mt', 'main', 'POST', '/sms/generateSMSMtTaskReport'),
  reportRoute('mo', 'main', 'POST', '/sms/generateSMSMoTaskReport'),
  reportRoute('sims', 'customer', 'GET', '/sms/sim/download/csv'),
]);

const cellOf = (v: unknown): Cell => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : typeof v === 'number' ? v : String(v));

/** The job: the report's rows through a cursor into the writer, labels in the requester's language. */
export const smsReportJob: JobHandler = async ({ store, db, task, progress }) => {
  const p = task.payload as unknown as Payload;
  const def = REPORTS[p.report];
  const stamp = new Date().toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  const name = `${scheduleText(p.lang, `reports.files.${p.report}`)}-${stamp}.${p.format}`;
  const folder = `${task.org_id}/exports/${task.id}`;
  await store.discardDrafts(folder);
  const key = `${folder}/${name}`;
  const writer = p.format === 'xlsx' ? xlsxWriter(store.draft(key)) : csvWriter(store.draft(key));
  await writer.header(def.columns.map((c) => scheduleText(p.lang, `reports.columns.${c}`)));
  let written = 0;
  await readReportRows(db, p.report, task.org_id, p.scheduleId, p.runId, async (rows) => {
    await writer.rows(rows.map((r) => def.columns.map((c) => cellOf(r[c]))));
    written += rows.length;
    await progress(task.quantity ? (written / task.quantity) * 100 : 50);
  });
  await writer.end();
  return { file: { key, name, contentType: FORMATS[p.format] }, result: { rows: written } };
};
