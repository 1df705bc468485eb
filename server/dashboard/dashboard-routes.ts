/**
 * The dashboard (SPEC.md sections 2, 7 and 9): GET /dashboard/card, /dashboard/statistics, /dashboard/rank,
 * /dashboard/lifecycleCount and /sms/usage, each for the current organisation and a view of 24h, week or 6 months.
 * The dashboard's day ends at 23:59 UTC+8: a week is the last 7 such days, today included; 6 months are the last six
 * calendar months in UTC+8, this one included; 24h are the last 24 UTC hours, this one included. Every figure is read
 * from the rollups of 007_dashboard.sql (and usage_hourly), which the CDR writer keeps as usage arrives.
 */
import type { FastifyRequest } from 'fastify';
import { DASHBOARD_OFFSET_MS, DASHBOARD_VIEWS, DEFAULT_DASHBOARD_VIEW, expiringSoonWindow, type DashboardView } from '../../common/dashboard.js';
import { LIMITS } from '../../common/limits.js';
import { SIM_STATUSES } from '../domain/lifecycle.js';
import type { Queryable } from '../db/db.js';
import { deviceNames, expiringSimCount, onlineSimCount, simTotals, statusCounts, topTenUsers, usageBetween, usagePerSpan } from './dashboard-repo.js';
import { nowOf } from '../http/clock.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { arrayOf, listOf, NULLABLE_TEXT, obj, outObj, typed } from '../http/shapes.js';
import type { SnapshotKind } from './dashboard-snapshots.js';

export const VIEWS = DASHBOARD_VIEWS;
export type View = DashboardView;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const OFFSET = DASHBOARD_OFFSET_MS;

export interface Bucket {
  start: Date;
  end: Date;
  /** The bucket's name on the dashboard's clock: an hour (UTC), a UTC+8 day or a UTC+8 month. */
  label: string;
}

/** The buckets of a view at `now`: 24 hours, 7 dashboard days or 6 dashboard months, oldest first. */
export function bucketsOf(view: View, now: Date): Bucket[] {
  const t = now.getTime();
  if (view === '24h') {
    const hour = Math.floor(t / HOUR) * HOUR;
    return Array.from({ length: 24 }, (_, i) => {
      const start = hour - (23 - i) * HOUR;
      return { start: new Date(start), end: new Date(start + HOUR), label: new Date(start).toISOString().slice(0, 13) + ':00Z' };
    });
  }
  const local = new Date(t + OFFSET);
  if (view === 'week') {
    const today = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate());
    return Array.from({ length: 7 }, (_, i) => {
      const day = today - (6 - i) * DAY;
      return { start: new Date(day - OFFSET), end: new Date(day + DAY - OFFSET), label: new Date(day).toISOString().slice(0, 10) };
    });
  }
  return Array.from({ length: 6 }, (_, i) => {
    const m = Date.UTC(local.getUTCFullYear(), local.getUTCMonth() - (5 - i), 1);
    const next = Date.UTC(local.getUTCFullYear(), local.getUTCMonth() - (5 - i) + 1, 1);
    return { start: new Date(m - OFFSET), end: new Date(next - OFFSET), label: new Date(m).toISOString().slice(0, 7) };
  });
}

/** The same length of time just before the view: for the cards' comparison. */
function previousOf(view: View, buckets: Bucket[]): { start: Date; end: Date } {
  const start = buckets[0].start;
  if (view === '6months') {
    const local = new Date(start.getTime() + OFFSET);
    return { start: new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth() - 6, 1) - OFFSET), end: start };
  }
  return { start: new Date(start.getTime() - (buckets.at(-1)!.end.getTime() - start.getTime())), end: start };
}

export const viewQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { view: { type: 'string', enum: [...VIEWS], default: DEFAULT_DASHBOARD_VIEW } },
} as const;

/** The organisation's usage per bucket, summed from its UTC hours. */
async function usageSeries(q: Queryable, orgId: string, buckets: Bucket[]) {
  return (await usagePerSpan(q, orgId, buckets)).map((row, i) => ({
    label: buckets[i].label,
    start: buckets[i].start.toISOString(),
    uplinkKb: Number(row.up),
    downlinkKb: Number(row.down),
    volumeKb: Number(row.vol),
    smsMo: Number(row.mo),
    smsMt: Number(row.mt),
  }));
}

/** The UTC+8 months of a half year's buckets, as their first days. */
export const monthsOf = (buckets: Bucket[]) => ({ firstMonth: `${buckets[0].label}-01`, lastMonth: `${buckets.at(-1)!.label}-01` });
/** From the first bucket's start to the last one's end. */
export const spanOf = (buckets: Bucket[]) => ({ start: buckets[0].start, end: buckets.at(-1)!.end });

/** The 10 SIMs that used most in the view: hours for the day and the week, UTC+8 months for the half year. */
async function topTen(q: Queryable, orgId: string, view: View, now: Date): Promise<Array<{ simId: string; iccid: string; volumeKb: number }>> {
  const buckets = bucketsOf(view, now);
  return topTenUsers(q, orgId, view === '6months' ? monthsOf(buckets) : spanOf(buckets));
}

const num = { type: 'number' } as const;
const seriesItem = {
  type: 'object',
  properties: { label: { type: 'string' }, start: { type: 'string' }, uplinkKb: num, downlinkKb: num, volumeKb: num, smsMo: num, smsMt: num },
} as const;

/**
 * A figure of the dashboard (GET on the main service, the `read sim` right): the view's query unless another is given,
 * this response; its answer gets the request, the current organisation and the view asked for.
 */
export function dashboardRoute(
  path: string,
  response: object,
  answer: (req: FastifyRequest, orgId: string, view: View) => Promise<unknown>,
  querystring: object = viewQuery,
): RouteDef {
  return {
    service: 'main',
    method: 'GET',
    path,
    permission: { action: 'read', subject: 'sim' },
    schema: { querystring, response },
    handler: async (req) => answer(req, req.requireAuth().orgId, (req.query as { view: View }).view),
  };
}

/** The fields of a figure kept as a snapshot (dashboard-snapshots.ts): the view, when it was counted, whether live. */
export const SNAPSHOT_PROPERTIES = typed({ view: 'string', asOf: 'string', live: 'boolean' }).properties;

/** A figure of the view through the organisation's snapshots: its head (SNAPSHOT_PROPERTIES) and its body. */
export async function snapshotOf<T>(req: FastifyRequest, orgId: string, kind: SnapshotKind, view: View, count: (now: Date) => Promise<T>) {
  const figures = await req.server.dashboardSnapshots.figures(orgId, kind, view, nowOf(req), count);
  return { head: { view, asOf: figures.asOf.toISOString(), live: figures.live }, body: figures.body };
}

const routes: RouteDef[] = [
  dashboardRoute(
    '/dashboard/card',
    outObj({
      view: { type: 'string' },
      totalSims: num,
      activeSims: num,
      onlineSims: num,
      expiringSoon: num,
      usageKb: num,
      previousUsageKb: num,
      sms: num,
      previousSms: num,
      expiringSoonDays: num,
    }),
    async (req, orgId, view) => {
      const now = nowOf(req);
      const buckets = bucketsOf(view, now);
      const db = req.server.db;
      const counts = await simTotals(db, orgId);
      const online = await onlineSimCount(db, orgId);
      // Expiring soon (SPEC.md section 9): the expiry falls on a dashboard day from today to today + 45, inclusive.
      const soon = expiringSoonWindow(now);
      const expiring = await expiringSimCount(db, orgId, soon.from, soon.to);
      const current = await usageBetween(db, orgId, buckets[0].start, buckets.at(-1)!.end);
      const prev = previousOf(view, buckets);
      const previous = await usageBetween(db, orgId, prev.start, prev.end);
      return {
        view,
        totalSims: counts.total,
        activeSims: counts.active,
        onlineSims: online,
        expiringSoon: expiring,
        expiringSoonDays: LIMITS.expiringSoonDays,
        usageKb: current.volumeKb,
        previousUsageKb: previous.volumeKb,
        sms: current.sms,
        previousSms: previous.sms,
      };
    },
  ),
  dashboardRoute('/dashboard/statistics', outObj({ view: { type: 'string' }, series: arrayOf(seriesItem) }), async (req, orgId, view) => ({
    view,
    series: await usageSeries(req.server.db, orgId, bucketsOf(view, nowOf(req))),
  })),
  dashboardRoute(
    '/dashboard/rank',
    outObj({ ...SNAPSHOT_PROPERTIES, items: arrayOf(typed({ iccid: 'string', deviceName: NULLABLE_TEXT, volumeKb: 'number' })) }),
    async (req, orgId, view) => {
      const db = req.server.db;
      const { head, body } = await snapshotOf(req, orgId, 'rank', view, (now) => topTen(db, orgId, view, now));
      // The device name as the SIM has it now (a snapshot keeps the SIMs, not their names), for SIMs still here.
      const byId = await deviceNames(
        db,
        orgId,
        body.map((r) => r.simId),
      );
      return { ...head, items: body.map((r) => ({ iccid: r.iccid, deviceName: byId.get(r.simId) ?? null, volumeKb: r.volumeKb })) };
    },
  ),
  dashboardRoute(
    '/dashboard/lifecycleCount',
    listOf(typed({ status: 'string', count: 'number' })),
    async (req, orgId) => {
      const by = await statusCounts(req.server.db, orgId);
      return { items: SIM_STATUSES.map((status) => ({ status, count: by.get(status) ?? 0 })) };
    },
    obj({}),
  ),
  dashboardRoute('/sms/usage', outObj({ view: { type: 'string' }, mo: num, mt: num, series: arrayOf(seriesItem) }), async (req, orgId, view) => {
    const series = await usageSeries(req.server.db, orgId, bucketsOf(view, nowOf(req)));
    return { view, mo: series.reduce((a, s) => a + s.smsMo, 0), mt: series.reduce((a, s) => a + s.smsMt, 0), series };
  }),
];

export const dashboardRoutes = defineRoutes(routes);
