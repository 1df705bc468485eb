/**
 * Reports (SPEC.md section 7, Reports): the organisation's monthly reports and its preference columns, each enabled
 * or disabled. Columns and labels come from schemas/reports.json and report-columns.json. Reports are made by the
 * `report` job (server/report/report-jobs.ts); GET /report/{org}/{report id}/download hands out the file.
 */
import { CODES } from '../../common/errors.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { listRoute } from '../schema/resource-routes.js';
import { neverCached, sendStored } from '../job/storage.js';
import { ApiError, invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { queueReportTask, type ReportKind } from './report-jobs.js';
import { pageResponse } from '../http/page-response.js';
import { claimReport, hasReportConfig, reportPreferences, reportWithFile, setReportColumn } from './report-repo.js';

const columns = RESOURCES.reportColumns;
const columnItem = {
  type: 'object',
  properties: { columnKey: { type: 'string' }, enabled: { type: 'boolean' }, position: { type: 'integer' }, updatedAt: { type: 'string' } },
};

export const reportRoutes = defineRoutes([
  // Whether the organisation has report preferences (SPEC.md: status.success and a boolean).
  {
    service: 'main',
    method: 'GET',
    path: '/report/config/hasReportConfig/:id',
    permission: { action: 'read', subject: 'sim-report-cube' },
    schema: { params: pathParams('id'), response: { type: 'boolean' } },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      if (id !== auth.orgCode && id !== auth.orgId) throw notFound('organisation', id);
      return hasReportConfig(req.server.db, auth.orgId);
    },
  },
  // The organisation's reports, newest first.
  listRoute(RESOURCES.reports, 'main', '/report/reports/:id'),
  // A report's file. a: the organisation (code or id, the current one only), b: the report's id.
  {
    service: 'main',
    method: 'GET',
    path: '/report/:org/:id/download',
    permission: { action: 'read', subject: 'sim-report-cube' },
    schema: { params: pathParams('org', 'id'), response: {} },
    raw: true,
    handler: async (req, reply) => {
      neverCached(reply);
      const auth = req.requireAuth();
      const { org, id } = req.params as { org: string; id: string };
      if (org !== auth.orgCode && org !== auth.orgId) throw notFound('organisation', org);
      const r = await reportWithFile(req.server.db, auth.orgId, id);
      if (!r) throw notFound('report', id);
      if (r.status === 'pending') throw new ApiError(409, CODES.conflict, {}, 'errors.reportBusy');
      if (r.status === 'failed') throw new ApiError(409, CODES.conflict, {}, 'errors.reportFailed');
      if (!r.storage_key || !req.server.files.exists(r.storage_key)) throw new ApiError(410, CODES.notFound, {}, 'errors.fileGone');
      return sendStored(reply, req.server.files, { storage_key: r.storage_key, name: r.name, content_type: r.content_type, size_bytes: r.size_bytes });
    },
  },
  // Make a report (again) now, with headers in the requester's language: creates the row if the month has none.
  {
    service: 'main',
    method: 'POST',
    path: '/report/:org/generate',
    permission: { action: 'create', subject: 'sim-report-cube' },
    schema: {
      params: pathParams('org'),
      body: {
        type: 'object',
        required: ['report', 'period'],
        additionalProperties: false,
        properties: { report: RESOURCES.reports.properties.report, period: RESOURCES.reports.properties.period },
      },
      response: { type: 'object', properties: { id: { type: 'string' }, taskId: { type: 'string' } } },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { org } = req.params as { org: string };
      if (org !== auth.orgCode && org !== auth.orgId) throw notFound('organisation', org);
      const { report, period } = req.body as { report: ReportKind; period: string };
      return req.server.db.tx(async (q) => {
        // A report being made is not started twice; otherwise the row goes back to pending until its task ends.
        const row = await claimReport(q, auth.orgId, report, period);
        if (!row) throw new ApiError(409, CODES.conflict, {}, 'errors.reportBusy');
        const taskId = await queueReportTask(q, { orgId: auth.orgId, reportId: row.id, report, period, accountId: auth.accountId, lang: req.lang });
        await audit(q, req, { action: 'create', entity: 'reports', entityId: row.id, after: { report, period } });
        return { id: row.id, taskId };
      });
    },
  },
  // The preference columns in their order.
  {
    service: 'main',
    method: 'POST',
    path: '/report/config/list',
    permission: { action: 'read', subject: 'sim-report-cube' },
    schema: { response: pageResponse(columnItem) },
    handler: async (req) => {
      const auth = req.requireAuth();
      const items = await reportPreferences(req.server.db, auth.orgId);
      return { items, total: items.length };
    },
  },
  // Enable or disable columns; at least one stays enabled, and only the organisation's own columns change.
  {
    service: 'main',
    method: 'POST',
    path: '/report/config/cube',
    permission: { action: 'update', subject: 'sim-report-cube' },
    schema: {
      body: {
        type: 'object',
        required: ['columns'],
        additionalProperties: false,
        properties: {
          columns: {
            type: 'array',
            minItems: 1,
            maxItems: columns.properties.columnKey.enum!.length,
            uniqueItems: true,
            items: {
              type: 'object',
              required: ['columnKey', 'enabled'],
              additionalProperties: false,
              properties: { columnKey: columns.properties.columnKey, enabled: { type: 'boolean' } },
            },
          },
        },
      },
      response: pageResponse(columnItem),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const changes = (req.body as { columns: Array<{ columnKey: string; enabled: boolean }> }).columns;
      return req.server.db.tx(async (q) => {
        const before = await reportPreferences(q, auth.orgId, true);
        const known = new Set(before.map((c) => c.columnKey));
        const unknown = changes.find((c) => !known.has(c.columnKey));
        if (unknown) throw invalid('columns', 'enum', { values: [...known].join(', ') });
        const after = new Map(before.map((c) => [c.columnKey, c.enabled]));
        for (const c of changes) after.set(c.columnKey, c.enabled);
        if (![...after.values()].some(Boolean)) throw invalid('columns', 'oneEnabled');
        for (const c of changes) {
          await setReportColumn(q, auth.orgId, c.columnKey, c.enabled, auth.accountId);
        }
        await audit(q, req, {
          action: 'update',
          entity: 'report_preferences',
          entityId: auth.orgId,
          before: Object.fromEntries(before.map((c) => [c.columnKey, c.enabled])),
          after: Object.fromEntries(after),
        });
        const items = await reportPreferences(q, auth.orgId);
        return { items, total: items.length };
      });
    },
  },
]);
