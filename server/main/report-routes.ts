/**
 * Reports (SPEC.md section 7, Reports): the organisation's monthly reports and its preference columns, each enabled
 * or disabled. Columns and labels come from schemas/reports.json and report-columns.json.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { listRoute } from '../db/resource-list.js';
import { invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams } from '../http/route.js';

const columns = RESOURCES.reportColumns;
const columnItem = { type: 'object', properties: { columnKey: { type: 'string' }, enabled: { type: 'boolean' }, position: { type: 'integer' }, updatedAt: { type: 'string' } } };
const PREFS = `SELECT column_key AS "columnKey", enabled, position, updated_at AS "updatedAt" FROM report_preferences WHERE org_id = $1 ORDER BY position, column_key`;

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
      if (id !== auth.orgCode && id !== auth.orgId) throw notFound();
      return (await req.server.db.query('SELECT 1 FROM report_preferences WHERE org_id = $1 LIMIT 1', [auth.orgId])).rows.length > 0;
    },
  },
  // The organisation's reports, newest first.
  listRoute(RESOURCES.reports, 'main', '/report/reports/:id'),
  // The preference columns in their order.
  {
    service: 'main',
    method: 'POST',
    path: '/report/config/list',
    permission: { action: 'read', subject: 'sim-report-cube' },
    schema: { response: { type: 'object', properties: { items: { type: 'array', items: columnItem }, total: { type: 'integer' } } } },
    handler: async (req) => {
      const auth = req.requireAuth();
      const items = (await req.server.db.query(PREFS, [auth.orgId])).rows;
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
            items: { type: 'object', required: ['columnKey', 'enabled'], additionalProperties: false, properties: { columnKey: columns.properties.columnKey, enabled: { type: 'boolean' } } },
          },
        },
      },
      response: { type: 'object', properties: { items: { type: 'array', items: columnItem }, total: { type: 'integer' } } },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const changes = (req.body as { columns: Array<{ columnKey: string; enabled: boolean }> }).columns;
      return req.server.db.tx(async (q) => {
        const before = (await q.query<{ columnKey: string; enabled: boolean }>(`${PREFS} FOR UPDATE`, [auth.orgId])).rows;
        const known = new Set(before.map((c) => c.columnKey));
        const unknown = changes.find((c) => !known.has(c.columnKey));
        if (unknown) throw invalid('columns', 'enum', { values: [...known].join(', ') });
        const after = new Map(before.map((c) => [c.columnKey, c.enabled]));
        for (const c of changes) after.set(c.columnKey, c.enabled);
        if (![...after.values()].some(Boolean)) throw invalid('columns', 'oneEnabled');
        for (const c of changes) {
          await q.query('UPDATE report_preferences SET enabled = $3, updated_by = $4, updated_at = now() WHERE org_id = $1 AND column_key = $2', [auth.orgId, c.columnKey, c.enabled, auth.accountId]);
        }
        await audit(q, req, { action: 'update', entity: 'report_preferences', entityId: auth.orgId, before: Object.fromEntries(before.map((c) => [c.columnKey, c.enabled])), after: Object.fromEntries(after) });
        const items = (await q.query(PREFS, [auth.orgId])).rows;
        return { items, total: items.length };
      });
    },
  },
]);
