/**
 * Call and data records (SPEC.md section 7, CDR service). The list reads the partitioned cdrs table inside a time
 * window of at most 31 days, so only one or two monthly partitions are touched; the volume summary reads the rollups
 * (never raw CDRs) over at most 31 natural days (SPEC.md section 5), days cut at 23:59 UTC.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { LIMITS } from '../../common/limits.js';
import { listRoute } from '../schema/resource-routes.js';
import { invalid } from '../http/api-error.js';
import { ownOrg } from '../http/own-org.js';
import { defineRoutes, pathParams } from '../http/route.js';
import { arrayOf, obj, outObj, subjectRoutes, typed } from '../http/shapes.js';
import { dailyTotals, networksSeen } from './cdr-repo.js';

/** The routes of the CDR service, under the `cdr` subject. */
export const cdrRoute = subjectRoutes('cdr', 'cdr');

export const DAY = { type: 'string', format: 'date' } as const;
/** The volumes and the count of CDRs a summary adds up. */
export const TOTALS = typed({ uplinkKb: 'number', downlinkKb: 'number', volumeKb: 'number', cdrCount: 'integer' }).properties;
type Totals = Record<'uplinkKb' | 'downlinkKb' | 'volumeKb' | 'cdrCount', unknown>;
/** A summary's days (UTC natural days) and their total. */
export const DAILY_TOTALS = { days: arrayOf(outObj({ day: { type: 'string' }, ...TOTALS })), total: outObj(TOTALS) };

/** A summary's window, `from` to `to` inclusive: at least one natural day, at most LIMITS.cdrSummaryDays; else 400 naming `to`. */
export function checkDays(from: string, to: string): void {
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  if (days < 1) throw invalid('to', 'notBefore');
  if (days > LIMITS.cdrSummaryDays) throw invalid('to', 'maxSpanDays', { days: LIMITS.cdrSummaryDays });
}

/** The total of daily rows. */
export function totalOf(rows: Totals[]) {
  const sum = (k: keyof Totals) => rows.reduce((a, r) => a + Number(r[k]), 0);
  return { uplinkKb: sum('uplinkKb'), downlinkKb: sum('downlinkKb'), volumeKb: sum('volumeKb'), cdrCount: sum('cdrCount') };
}

export const cdrRoutes = defineRoutes([
  listRoute(RESOURCES.cdrs, 'cdr', '/distributor/:id/stdcdrs'),
  // The networks to filter CDRs by: those the organisation's SIMs were last seen on (one pass over its SIMs, not its CDRs).
  cdrRoute('GET', '/info_mnos/distinct', 'read', {
    schema: { response: arrayOf({ type: 'string' }) },
    handler: async (req) => networksSeen(req.server.db, req.requireAuth().orgId),
  }),
  cdrRoute('POST', '/sum/distributor/:id/stdcdrs', 'read', {
    schema: {
      params: pathParams('id'),
      // iccid: a whole ICCID or its trailing digits (at least 2), found as the list's search finds them.
      body: obj({ from: DAY, to: DAY, iccid: { type: 'string', pattern: '^[0-9]{2,20}$' } }, ['from', 'to']),
      response: outObj(DAILY_TOTALS),
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      ownOrg(req, (req.params as { id: string }).id);
      const { from, to, iccid } = req.body as { from: string; to: string; iccid?: string };
      checkDays(from, to);
      const rows = await dailyTotals(req.server.db, auth.orgId, from, to, iccid);
      return { days: rows, total: totalOf(rows) };
    },
  }),
]);
