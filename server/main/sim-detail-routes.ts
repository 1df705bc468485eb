/**
 * The tabs of a SIM's page (SPEC.md sections 2 and 7): connection, bundles, usage, events and status trace (with its
 * CSV), CDRs and SMS. Each reads one SIM of the caller's organisation, found by ICCID (another organisation's SIM
 * answers 404 like a missing one), through an index led by the organisation. Usage is read from the daily rollup cut
 * at 23:59 UTC (SPEC.md section 9), never from raw CDRs.
 */
import type { FastifyRequest } from 'fastify';
import { RESOURCES } from '../../common/resource-registry.js';
import { LIMITS, PAGING_PROPERTIES, type Language } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { columnOf } from '../db/resource-list.js';
import { notFound } from '../http/api-error.js';
import { consoleLabel, fieldLabels } from '../http/labels.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { reverseGeocode } from '../geo/reverse-geocoder.js';
import { PAGE_NUMBERS, pageResponse } from '../http/page-response.js';

const sims = RESOURCES.sims;
const bundleOrders = RESOURCES.bundleOrders;
const ICCID = sims.properties.iccid;
const TIME = { type: ['string', 'null'], format: 'date-time' } as const;
const NUM = { type: ['number', 'null'] } as const;
const STR = { type: ['string', 'null'] } as const;

/** Field names in messages as the console labels them ("ICCID: …", "Cycle: …"). */
const LABELS: RouteDef['labels'] = Object.fromEntries(
  Object.entries(fieldLabels(sims)).map(([lang, labels]) => [lang, { ...labels, cycle: consoleLabel(lang as Language, 'simDetail.usage.cycle') ?? 'cycle' }]),
);

/** The query of a SIM tab: the ICCID and whatever else the tab takes; nothing unknown. */
export function simQuery(extra: Record<string, object> = {}): object {
  return { type: 'object', required: ['iccid'], additionalProperties: false, properties: { iccid: ICCID, ...extra } };
}

/** A page of rows with its total. */
const paged = (item: object) => pageResponse(item, PAGE_NUMBERS);

export interface SimRow {
  id: string;
  iccid: string;
}

/** The SIM of the caller's organisation with this ICCID; 404 when there is none. */
export async function simOf(req: FastifyRequest, q: Queryable = req.server.db): Promise<SimRow & { orgId: string }> {
  const auth = req.requireAuth();
  const iccid = ((req.query as { iccid?: string }).iccid ?? (req.params as { iccid?: string }).iccid) as string;
  const row = (await q.query<SimRow>('SELECT id, iccid FROM sims WHERE org_id = $1 AND iccid = $2', [auth.orgId, iccid])).rows[0];
  if (!row) throw notFound('sim', iccid);
  return { ...row, orgId: auth.orgId };
}

/** One page of a query ordered newest first, and the count of all its rows. */
async function page(req: FastifyRequest, from: string, where: string, params: unknown[], select: string, order: string) {
  const { page: n = 1, pageSize = 20 } = req.query as { page?: number; pageSize?: number };
  const { db } = req.server;
  const rows = await db.query(`SELECT ${select} FROM ${from} WHERE ${where} ORDER BY ${order} LIMIT ${pageSize} OFFSET ${(n - 1) * pageSize}`, params);
  const total = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${from} WHERE ${where}`, params);
  return { items: rows.rows, total: total.rows[0].n, page: n, pageSize };
}

const EVENT = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    fromStatus: STR,
    toStatus: STR,
    source: { type: 'string' },
    accountName: STR,
    accountEmail: STR,
    detail: {},
    at: { type: 'string', format: 'date-time' },
  },
};
const EVENT_SELECT = `e.id::text AS id, e.type, e.from_status AS "fromStatus", e.to_status AS "toStatus", e.source,
  CASE WHEN a.id IS NULL THEN NULL ELSE a.first_name || ' ' || a.last_name END AS "accountName", a.email AS "accountEmail", e.detail, e.at`;
const EVENT_FROM = 'sim_events e LEFT JOIN accounts a ON a.id = e.account_id';

/** Usage buckets: the step of each cycle and how many of them (SPEC.md section 9: calendar day, month, year). */
const CYCLES = {
  day: { count: 30, step: '1 day', trunc: 'day', label: 'YYYY-MM-DD' },
  month: { count: 12, step: '1 month', trunc: 'month', label: 'YYYY-MM' },
  year: { count: 5, step: '1 year', trunc: 'year', label: 'YYYY' },
} as const;
type Cycle = keyof typeof CYCLES;

const usageTotals = { uplinkKb: { type: 'number' }, downlinkKb: { type: 'number' }, volumeKb: { type: 'number' } };

const BUNDLE_FIELDS = Object.keys(bundleOrders.properties);
const BUNDLE_SELECT = [...BUNDLE_FIELDS.map((f) => `${columnOf(bundleOrders, f)} AS "${f}"`), 't.overage_threshold_kb::float8 AS "overageThresholdKb"'].join(', ');

/** A CSV cell (RFC 4180); a leading =, +, - or @ is quoted as text so a spreadsheet never runs it. */
const csvCell = (v: string | null) => {
  if (v === null) return '';
  const safe = /^[=+\-@]/.test(v) ? `'${v}` : v;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/** A SIM's events, newest first and paged: all of them, or those `only` (an SQL condition on e) keeps. */
function eventList(path: string, only: string): RouteDef {
  return {
    service: 'main',
    method: 'GET',
    path,
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: { querystring: simQuery(PAGING_PROPERTIES), response: paged(EVENT) },
    handler: async (req) => {
      const sim = await simOf(req);
      return page(req, EVENT_FROM, `e.org_id = $1 AND e.sim_id = $2 ${only}`, [sim.orgId, sim.id], EVENT_SELECT, 'e.at DESC, e.id DESC');
    },
  };
}

export const simDetailRoutes = defineRoutes([
  {
    service: 'main',
    method: 'GET',
    path: '/sim/connection',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      querystring: simQuery(),
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' },
          status: { type: 'string' },
          connectionStatus: { type: 'string' },
          apn: STR,
          ip: STR,
          network: STR,
          lastSession: { type: ['object', 'null'], properties: { at: { type: 'string', format: 'date-time' }, kb: NUM } },
          location: {
            type: ['object', 'null'],
            properties: {
              lat: { type: 'number' },
              lon: { type: 'number' },
              at: { type: 'string', format: 'date-time' },
              place: { type: ['object', 'null'], properties: { name: { type: 'string' }, country: { type: 'string' }, distanceKm: { type: 'number' } } },
            },
          },
          checkedAt: { type: 'string', format: 'date-time' },
        },
      },
    },
    // SPEC.md section 9: the last session is shown when it is within 3 months, the location within 48 hours.
    handler: async (req) => {
      const sim = await simOf(req);
      const r = (
        await req.server.db.query<{
          iccid: string; status: string; connectionStatus: string; apn: string | null; ip: string | null; network: string | null;
          sessionAt: Date | null; sessionKb: number | null; lat: number | null; lon: number | null; locationAt: Date | null; checkedAt: Date;
        }>(
          `SELECT iccid, status, connection_status AS "connectionStatus", apn, ip, network,
                  CASE WHEN last_session_at >= now() - make_interval(months => $3) THEN last_session_at END AS "sessionAt",
                  CASE WHEN last_session_at >= now() - make_interval(months => $3) THEN last_session_kb::float8 END AS "sessionKb",
                  CASE WHEN location_at >= now() - make_interval(hours => $4) THEN lat END AS lat,
                  CASE WHEN location_at >= now() - make_interval(hours => $4) THEN lon END AS lon,
                  CASE WHEN location_at >= now() - make_interval(hours => $4) THEN location_at END AS "locationAt",
                  now() AS "checkedAt"
             FROM sims WHERE org_id = $1 AND id = $2`,
          [sim.orgId, sim.id, LIMITS.lastSessionMonths, LIMITS.locationHours],
        )
      ).rows[0];
      const located = r.lat !== null && r.lon !== null && r.locationAt !== null;
      return {
        iccid: r.iccid,
        status: r.status,
        connectionStatus: r.connectionStatus,
        apn: r.apn,
        ip: r.ip,
        network: r.network,
        lastSession: r.sessionAt ? { at: r.sessionAt, kb: r.sessionKb } : null,
        location: located ? { lat: r.lat, lon: r.lon, at: r.locationAt, place: await reverseGeocode(r.lat!, r.lon!) } : null,
        checkedAt: r.checkedAt,
      };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/sim/connection/status',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      querystring: simQuery(),
      response: { type: 'object', properties: { iccid: { type: 'string' }, connectionStatus: { type: 'string' }, checkedAt: { type: 'string', format: 'date-time' } } },
    },
    // Only the status, for a refresh button: no geocoding, one indexed row.
    handler: async (req) => {
      const sim = await simOf(req);
      return (
        await req.server.db.query('SELECT iccid, connection_status AS "connectionStatus", now() AS "checkedAt" FROM sims WHERE org_id = $1 AND id = $2', [sim.orgId, sim.id])
      ).rows[0];
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/sim/bundle',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      querystring: simQuery(),
      response: {
        type: 'object',
        properties: { items: { type: 'array', items: { type: 'object', properties: { ...bundleOrders.properties, overageThresholdKb: NUM } } } },
      },
    },
    // A SIM holds a handful of orders over its life: all of them, newest first.
    handler: async (req) => {
      const sim = await simOf(req);
      const r = await req.server.db.query(`SELECT ${BUNDLE_SELECT} FROM bundle_orders t WHERE t.org_id = $1 AND t.sim_id = $2 ORDER BY t.ordered_at DESC, t.id LIMIT 500`, [sim.orgId, sim.id]);
      return { items: r.rows };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/sim/usage',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      querystring: simQuery({ cycle: { type: 'string', enum: Object.keys(CYCLES), default: 'day' } }),
      response: {
        type: 'object',
        properties: {
          cycle: { type: 'string' },
          buckets: { type: 'array', items: { type: 'object', properties: { period: { type: 'string' }, ...usageTotals } } },
          total: { type: 'object', properties: usageTotals },
        },
      },
    },
    // The last 30 UTC days, 12 calendar months or 5 years up to today (UTC), each bucket a sum of daily rollup rows.
    handler: async (req) => {
      const sim = await simOf(req);
      const cycle = ((req.query as { cycle?: Cycle }).cycle ?? 'day') as Cycle;
      const c = CYCLES[cycle];
      const r = await req.server.db.query<{ period: string; uplinkKb: number; downlinkKb: number; volumeKb: number }>(
        `WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS d),
              b AS (SELECT g::date AS start, (g + interval '${c.step}')::date AS stop
                      FROM today, generate_series(date_trunc('${c.trunc}', today.d::timestamp) - interval '${c.step}' * ${c.count - 1}, date_trunc('${c.trunc}', today.d::timestamp), interval '${c.step}') AS g)
         SELECT to_char(b.start, '${c.label}') AS period,
                coalesce(sum(u.uplink_kb), 0)::float8 AS "uplinkKb", coalesce(sum(u.downlink_kb), 0)::float8 AS "downlinkKb",
                coalesce(sum(u.volume_kb), 0)::float8 AS "volumeKb"
           FROM b LEFT JOIN usage_daily u ON u.org_id = $1 AND u.sim_id = $2 AND u.day >= b.start AND u.day < b.stop
          GROUP BY b.start ORDER BY b.start`,
        [sim.orgId, sim.id],
      );
      const sum = (k: 'uplinkKb' | 'downlinkKb' | 'volumeKb') => r.rows.reduce((a, row) => a + Number(row[k]), 0);
      return { cycle, buckets: r.rows, total: { uplinkKb: sum('uplinkKb'), downlinkKb: sum('downlinkKb'), volumeKb: sum('volumeKb') } };
    },
  },
  eventList('/sim/event', ''),
  eventList('/sim/statusTrace', "AND e.type = 'status_change'"),
  {
    service: 'main',
    method: 'GET',
    path: '/sim/statusTraceDownload',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    raw: true,
    schema: { querystring: simQuery(), response: {} },
    // The whole trace as CSV (UTF-8 with a byte-order mark for spreadsheets), headed and worded in the caller's language.
    handler: async (req, reply) => {
      const sim = await simOf(req);
      const rows = await req.server.db.query<{ at: Date; fromStatus: string | null; toStatus: string | null; source: string; accountEmail: string | null }>(
        `SELECT ${EVENT_SELECT} FROM ${EVENT_FROM} WHERE e.org_id = $1 AND e.sim_id = $2 AND e.type = 'status_change' ORDER BY e.at DESC, e.id DESC LIMIT ${LIMITS.exportMax}`,
        [sim.orgId, sim.id],
      );
      const label = (key: string) => consoleLabel(req.lang, key) ?? key;
      const status = (s: string | null) => (s ? label(`sims.enum.status.${s}`) : null);
      const lines = [
        [label('simDetail.events.atUtc'), label('simDetail.events.from'), label('simDetail.events.to'), label('simDetail.events.source'), label('simDetail.events.account')],
        ...rows.rows.map((e) => [new Date(e.at).toISOString(), status(e.fromStatus), status(e.toStatus), label(`simDetail.events.sources.${e.source}`), e.accountEmail]),
      ];
      const csv = `\uFEFF${lines.map((l) => l.map(csvCell).join(',')).join('\r\n')}\r\n`;
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="status-trace-${sim.iccid}.csv"`)
        .header('cache-control', 'no-store')
        .send(csv);
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/sim/cdrs',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      querystring: simQuery(PAGING_PROPERTIES),
      response: paged({
        type: 'object',
        properties: {
          id: { type: 'string' }, network: { type: 'string' }, country: STR, planCode: STR, rat: { type: 'string' }, direction: { type: 'string' },
          volumeKb: { type: 'number' }, startAt: { type: 'string', format: 'date-time' }, endAt: { type: 'string', format: 'date-time' }, durationS: { type: 'integer' },
        },
      }),
    },
    // The last 31 days (SPEC.md section 5's CDR span), so at most two monthly partitions are read, newest first.
    handler: async (req) => {
      const sim = await simOf(req);
      return page(
        req,
        'cdrs c',
        `c.org_id = $1 AND c.iccid = $2 AND c.start_at >= now() - make_interval(days => $3)`,
        [sim.orgId, sim.iccid, LIMITS.cdrSummaryDays],
        `c.id::text AS id, c.network, c.country, c.plan_code AS "planCode", c.rat, c.direction, c.volume_kb::float8 AS "volumeKb",
         c.start_at AS "startAt", c.end_at AS "endAt", c.duration_s AS "durationS"`,
        'c.start_at DESC, c.id DESC',
      );
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/sim/sms',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      querystring: simQuery(PAGING_PROPERTIES),
      response: paged({
        type: 'object',
        properties: {
          id: { type: 'string' }, direction: { type: 'string' }, status: { type: 'string' }, smsType: { type: 'string' }, content: { type: 'string' },
          error: STR, createdAt: { type: 'string', format: 'date-time' }, sentAt: TIME, deliveredAt: TIME,
        },
      }),
    },
    handler: async (req) => {
      const sim = await simOf(req);
      return page(
        req,
        'sms_records s',
        's.org_id = $1 AND s.iccid = $2',
        [sim.orgId, sim.iccid],
        `s.id, s.direction, s.status, s.sms_type AS "smsType", s.content, s.error, s.created_at AS "createdAt", s.sent_at AS "sentAt", s.delivered_at AS "deliveredAt"`,
        's.created_at DESC, s.id DESC',
      );
    },
  },
]);

