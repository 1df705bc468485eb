/**
 * Invoices through the task center: the months an administrator may have the invoice job run for, the run
 * itself as a task, and an invoice's details download, direct up to DETAILS_DIRECT_MAX_LINES lines and a task (202)
 * above. The SQL is in invoice-task-repo.ts, the jobs in invoice-tasks.ts.
 */
import fs from 'node:fs';
import type { FastifyRequest } from 'fastify';
import { translate } from '../../common/i18n.js';
import { LANGUAGES } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { publishLive } from '../live/hub.js';
import { TABLE_FORMATS, type TableFormat } from '../job/table-writers.js';
import { insertTask } from '../job/task-repo.js';
import { nowOf } from '../http/clock.js';
import { BASE } from './bill-routes.js';
import { closedMonthOf } from './invoice-job.js';
import { detailLineCount, firstUsageMonth } from './invoice-task-repo.js';
import {
  checkDetailsSize,
  DETAILS_DIRECT_MAX_LINES,
  XLSX_MAX_DATA_LINES,
  detailsName,
  detailsNow,
  invoiceTaskReference,
  type DetailsPayload,
  type InvoiceRunPayload,
} from './invoice-tasks.js';

const MONTH = { type: 'string', minLength: 7, maxLength: 7, pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$' };
const TASK = { type: 'object', properties: { taskId: { type: 'string' }, referenceId: { type: 'string' }, quantity: { type: 'integer' } } };

/**
 * The months the job may run for: from the organisation's first month with a bundle in use to the last closed month
 * (UTC, as the job bills). An organisation that never used a bundle may run the last closed month only (nothing to bill).
 */
export async function runnableMonths(q: Queryable, orgId: string, now: Date): Promise<{ earliest: string; latest: string }> {
  const latest = closedMonthOf(now).cycle;
  const first = await firstUsageMonth(q, orgId);
  return { earliest: first && first < latest ? first : latest, latest };
}

/** Queue a task of the caller with its audit row and live notice, in one transaction. */
async function queue(
  req: FastifyRequest,
  t: {
    kind: 'invoice_run' | 'invoice_export';
    referenceId: string;
    quantity: number;
    remark: string;
    payload: object;
    audit: { action: string; entityId: string; after: object };
  },
) {
  const auth = req.requireAuth();
  const taskId = newId();
  await req.server.db.tx(async (tx) => {
    await insertTask(tx, {
      orgId: auth.orgId,
      id: taskId,
      accountId: auth.accountId,
      referenceId: t.referenceId,
      kind: t.kind,
      quantity: t.quantity,
      remark: t.remark,
      payload: t.payload,
    });
    await audit(tx, req, { action: t.audit.action, entity: 'invoice', entityId: t.audit.entityId, after: { taskId, ...t.audit.after } });
    await publishLive(tx, { type: 'task', orgId: auth.orgId, accountId: auth.accountId, data: { id: taskId, status: 'processing', progress: 0 } });
  });
  return { taskId, referenceId: t.referenceId, quantity: t.quantity };
}

export const invoiceTaskRoutes = defineRoutes([
  {
    service: 'customer',
    method: 'GET',
    path: `${BASE}/generate/months`,
    permission: { action: 'generate', subject: 'customer-bill-cube' },
    summary: 'The closed months the invoice job may be run for: from the first month with a bundle in use to last month.',
    schema: { response: { type: 'object', properties: { earliest: { type: 'string' }, latest: { type: 'string' } } } },
    handler: async (req) => runnableMonths(req.server.db, req.requireAuth().orgId, nowOf(req)),
  },
  {
    service: 'customer',
    method: 'POST',
    path: `${BASE}/generate`,
    permission: { action: 'generate', subject: 'customer-bill-cube' },
    summary: "Run the invoice job for one closed month of the caller's organisation, as a task; an invoice made already is left as it is.",
    schema: { body: { type: 'object', required: ['month'], additionalProperties: false, properties: { month: MONTH } }, response: TASK },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { month } = req.body as { month: string };
      const now = nowOf(req);
      const { earliest, latest } = await runnableMonths(req.server.db, auth.orgId, now);
      if (month > latest) throw invalid('month', 'maximum', { limit: latest });
      if (month < earliest) throw invalid('month', 'minimum', { limit: earliest });
      const payload: InvoiceRunPayload = { month, at: now.toISOString() };
      return queue(req, {
        kind: 'invoice_run',
        referenceId: invoiceTaskReference('RUN', now),
        quantity: 0,
        remark: month,
        payload,
        audit: { action: 'generate', entityId: month, after: { month } },
      });
    },
  },
  {
    service: 'customer',
    method: 'GET',
    path: `${BASE}/:id/details/download`,
    permission: { action: 'export', subject: 'customer-bill-cube' },
    raw: true,
    // Its refusals name the format as the page does ("Format: …").
    labels: Object.fromEntries(LANGUAGES.map((lang) => [lang, { format: translate(lang, 'fields.format') }])),
    summary: `The invoice's lines as CSV or XLSX, headed in the caller's language: the file itself up to ${DETAILS_DIRECT_MAX_LINES.toLocaleString('en-US')} lines; above, 202 and a task whose file the task center offers; XLSX refused above ${XLSX_MAX_DATA_LINES.toLocaleString('en-US')} lines (CSV offered).`,
    schema: {
      params: pathParams('id'),
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { format: { type: 'string', enum: Object.keys(TABLE_FORMATS), default: 'csv' } },
      },
      response: {},
    },
    handler: async (req, reply) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { format } = req.query as { format: TableFormat };
      const { db } = req.server;
      const inv = await detailLineCount(db, auth.orgId, id);
      if (!inv) throw notFound('invoice', id);
      checkDetailsSize(inv.lines, format, req.lang);
      if (inv.lines > DETAILS_DIRECT_MAX_LINES) {
        const payload: DetailsPayload = { invoiceId: id, billId: inv.billId, version: inv.version, format, lang: req.lang };
        const task = await queue(req, {
          kind: 'invoice_export',
          referenceId: invoiceTaskReference('EXP', nowOf(req)),
          quantity: inv.lines,
          remark: `${inv.billId} · ${format.toUpperCase()}`,
          payload,
          audit: { action: 'export', entityId: id, after: { format, quantity: inv.lines } },
        });
        return reply.code(202).header('cache-control', 'no-store').send(req.server.envelope(req, task));
      }
      const made = await detailsNow(db, auth.orgId, id, format, req.lang);
      const stream = fs.createReadStream(made.file).on('close', made.remove);
      return reply
        .type(TABLE_FORMATS[format])
        .header('content-disposition', `attachment; filename="${detailsName(inv, format)}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    },
  },
]);
