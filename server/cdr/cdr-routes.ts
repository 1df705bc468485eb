/**
 * Call and data records (SPEC.md section 7, CDR service). The list reads the partitioned cdrs table inside a time
 * window of at most 31 days, so only one or two monthly partitions are touched; the volume summary reads the rollups
 * (never raw CDRs) over at most 31 natural days (SPEC.md section 5), days cut at 23:59 UTC.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { LIMITS } from '../../common/limits.js';
import { listRoute } from '../db/resource-list.js';
import { invalid, notFound } from '../http/api-error.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { dailyTotals, networksSeen } from './cdr-repo.js';

const DAY = { type: 'string', format: 'date' } as const;
const totals = { uplinkKb: { type: 'number' }, downlinkKb: { type: 'number' }, volumeKb: { type: 'number' }, cdrCount: { type: 'integer' } };

export const cdrRoutes = defineRoutes([
  listRoute(RESOURCES.cdrs, 'cdr', '/distributor/:id/stdcdrs'),
  // The networks to filter CDRs by: those the organisation's SIMs were last seen on (one pass over its SIMs, not its CDRs).
  {
    service: 'cdr',
    method: 'GET',
    path: '/info_mnos/distinct',
    permission: { action: 'read', subject: 'cdr' },
    schema: { response: { type: 'array', items: { type: 'string' } } },
    handler: async (req) => {
      const auth = req.requireAuth();
      return networksSeen(req.server.db, auth.orgId);
    },
  },
  {
    service: 'cdr',
    method: 'POST',
    path: '/sum/distributor/:id/stdcdrs',
    permission: { action: 'read', subject: 'cdr' },
    schema: {
      params: pathParams('id'),
      body: {
        type: 'object',
        required: ['from', 'to'],
        additionalProperties: false,
        // iccid: a whole ICCID or its trailing digits (at least 2), found as the list's search finds them.
        properties: { from: DAY, to: DAY, iccid: { type: 'string', pattern: '^[0-9]{2,20}$' } },
      },
      response: {
        type: 'object',
        properties: {
          days: { type: 'array', items: { type: 'object', properties: { day: { type: 'string' }, ...totals } } },
          total: { type: 'object', properties: totals },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      if (id !== auth.orgCode && id !== auth.orgId) throw notFound('organisation', id);
      const { from, to, iccid } = req.body as { from: string; to: string; iccid?: string };
      const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
      if (days < 1) throw invalid('to', 'notBefore');
      if (days > LIMITS.cdrSummaryDays) throw invalid('to', 'maxSpanDays', { days: LIMITS.cdrSummaryDays });
      const rows = await dailyTotals(req.server.db, auth.orgId, from, to, iccid);
      const sum = (k: 'uplinkKb' | 'downlinkKb' | 'volumeKb' | 'cdrCount') => rows.reduce((a, r) => a + Number(r[k]), 0);
      return { days: rows, total: { uplinkKb: sum('uplinkKb'), downlinkKb: sum('downlinkKb'), volumeKb: sum('volumeKb'), cdrCount: sum('cdrCount') } };
    },
  },
]);
