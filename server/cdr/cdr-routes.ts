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
      const r = await req.server.db.query<{ network: string }>(
        'SELECT network FROM sims WHERE org_id = $1 AND network IS NOT NULL GROUP BY network ORDER BY network LIMIT 500',
        [auth.orgId],
      );
      return r.rows.map((row) => row.network);
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
      // The organisation's hourly rollup answers 31 days in 744 rows; the SIMs an ICCID or its trailing digits name are
      // found through the reversed-ICCID index (as the list's suffix search), their daily rollups by key.
      const rows = await req.server.db.query<{ day: string; uplinkKb: number; downlinkKb: number; volumeKb: number; cdrCount: number }>(
        iccid
          ? `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
                    coalesce(sum(u.uplink_kb), 0)::float8 AS "uplinkKb", coalesce(sum(u.downlink_kb), 0)::float8 AS "downlinkKb",
                    coalesce(sum(u.volume_kb), 0)::float8 AS "volumeKb", coalesce(sum(u.cdr_count), 0)::int AS "cdrCount"
               FROM generate_series($2::date, $3::date, interval '1 day') AS d(day)
               LEFT JOIN usage_daily u ON u.org_id = $1 AND u.day = d.day::date
                    AND u.sim_id IN (SELECT id FROM sims WHERE org_id = $1 AND reverse(iccid) LIKE reverse($4) || '%')
              GROUP BY d.day ORDER BY d.day`
          : `SELECT to_char(d.day, 'YYYY-MM-DD') AS day,
                    coalesce(sum(h.uplink_kb), 0)::float8 AS "uplinkKb", coalesce(sum(h.downlink_kb), 0)::float8 AS "downlinkKb",
                    coalesce(sum(h.volume_kb), 0)::float8 AS "volumeKb", coalesce(sum(h.cdr_count), 0)::int AS "cdrCount"
               FROM generate_series($2::date, $3::date, interval '1 day') AS d(day)
               LEFT JOIN usage_hourly h ON h.org_id = $1 AND h.hour >= d.day AT TIME ZONE 'UTC' AND h.hour < (d.day + interval '1 day') AT TIME ZONE 'UTC'
              GROUP BY d.day ORDER BY d.day`,
        iccid ? [auth.orgId, from, to, iccid] : [auth.orgId, from, to],
      );
      const sum = (k: 'uplinkKb' | 'downlinkKb' | 'volumeKb' | 'cdrCount') => rows.rows.reduce((a, r) => a + Number(r[k]), 0);
      return { days: rows.rows, total: { uplinkKb: sum('uplinkKb'), downlinkKb: sum('downlinkKb'), volumeKb: sum('volumeKb'), cdrCount: sum('cdrCount') } };
    },
  },
]);
