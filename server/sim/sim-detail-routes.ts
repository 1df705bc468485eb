/**
 * The tabs of a SIM's page (SPEC.md sections 2 and 7): connection, bundles, usage, events and status trace (with its
 * CSV), CDRs and SMS. Each reads one SIM of the caller's organisation, found by ICCID (another organisation's SIM
 * answers 404 like a missing one), through an index led by the organisation. Usage is read from the daily rollup cut
 * at 23:59 UTC (SPEC.md section 9), never from raw CDRs.
 */
import type { FastifyRequest } from 'fastify';
import { RESOURCES } from '../../common/resource-registry.js';
import { PAGING_PROPERTIES, type Language } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { notFound } from '../http/api-error.js';
import { sendAttachment } from '../http/attachment.js';
import { consoleLabel, fieldLabels } from '../http/labels.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { reverseGeocode } from '../geo/reverse-geocoder.js';
import { PAGE_NUMBERS, pageResponse } from '../http/page-response.js';
import { arrayOf, listOf, NO_FIELDS, NULLABLE_TEXT, outObj, typed } from '../http/shapes.js';
import {
  bundleOrdersOf,
  cdrPage,
  connectionOf,
  connectionStatusOf,
  eventPage,
  simByIccid,
  smsPage,
  statusTrace,
  usageBuckets,
  USAGE_CYCLES,
  type PageAsk,
  type SimKey,
  type UsageCycle,
} from './sim-detail-repo.js';

const sims = RESOURCES.sims;
const bundleOrders = RESOURCES.bundleOrders;
const ICCID = sims.properties.iccid;
/** Fields a SIM's tabs may leave empty: a time, a number, a text. */
export const TIME = { type: NULLABLE_TEXT, format: 'date-time' } as const;
export const NUM = { type: ['number', 'null'] } as const;
export const STR = { type: NULLABLE_TEXT } as const;
const AT = { type: 'string', format: 'date-time' } as const;

/** Field names in messages as the console labels them ("ICCID: …", "Cycle: …"). */
const LABELS: RouteDef['labels'] = Object.fromEntries(
  Object.entries(fieldLabels(sims)).map(([lang, labels]) => [lang, { ...labels, cycle: consoleLabel(lang as Language, 'simDetail.usage.cycle') ?? 'cycle' }]),
);

/** The query of a SIM tab: the ICCID and whatever else the tab takes; nothing unknown. */
export function simQuery(extra: Record<string, object> = {}): object {
  return { type: 'object', required: ['iccid'], additionalProperties: false, properties: { iccid: ICCID, ...extra } };
}

/** The schemas of a tab of one SIM by ?iccid=: it answers the SIM's ICCID and these fields (a type's name or a schema). */
export function simFields(fields: Parameters<typeof typed>[0]): RouteDef['schema'] {
  return { querystring: simQuery(), response: typed({ iccid: 'string', ...fields }) };
}

/** A page of rows with its total. */
const paged = (item: object) => pageResponse(item, PAGE_NUMBERS);

/** The SIM of the caller's organisation with the ICCID of the query (?iccid=) or path ({iccid} or {id}); 404 when there is none. */
export async function simOf(req: FastifyRequest, q: Queryable = req.server.db): Promise<SimKey> {
  const auth = req.requireAuth();
  const iccid = ((req.query as { iccid?: string }).iccid ??
    (req.params as { iccid?: string; id?: string }).iccid ??
    (req.params as { id?: string }).id) as string;
  const row = await simByIccid(q, auth.orgId, iccid);
  if (!row) throw notFound('sim', iccid);
  return row;
}

/** A read call of one SIM of the caller's organisation (the SIM page's calls): GET, the `read sim` right, the field labels. */
export function simRead(path: string, schema: RouteDef['schema'], handler: RouteDef['handler'], labels: RouteDef['labels'] = LABELS): RouteDef {
  return { service: 'main', method: 'GET', path, permission: { action: 'read', subject: 'sim' }, labels, schema, handler };
}

/** The page a paged tab asks for. */
const pageAsk = (req: FastifyRequest): PageAsk => {
  const { page = 1, pageSize = 20 } = req.query as { page?: number; pageSize?: number };
  return { page, pageSize };
};

const EVENT = typed({
  id: 'string',
  type: 'string',
  fromStatus: STR,
  toStatus: STR,
  source: 'string',
  accountName: STR,
  accountEmail: STR,
  detail: {},
  at: AT,
});

const usageTotals = typed({ uplinkKb: 'number', downlinkKb: 'number', volumeKb: 'number' }).properties;

/** A CSV cell (RFC 4180); a leading =, +, - or @ is quoted as text so a spreadsheet never runs it. */
const csvCell = (v: string | null) => {
  if (v === null) return '';
  const safe = /^[=+\-@]/.test(v) ? `'${v}` : v;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

/** A SIM's events, newest first and paged: all of them, or only its status changes. */
function eventList(path: string, statusChangesOnly: boolean): RouteDef {
  return simRead(path, { querystring: simQuery(PAGING_PROPERTIES), response: paged(EVENT) }, async (req) =>
    eventPage(req.server.db, await simOf(req), pageAsk(req), statusChangesOnly),
  );
}

export const simDetailRoutes = defineRoutes([
  // SPEC.md section 9: the last session is shown when it is within 3 months, the location within 48 hours.
  simRead(
    '/sim/connection',
    simFields({
      status: 'string',
      connectionStatus: 'string',
      apn: STR,
      ip: STR,
      network: STR,
      lastSession: { type: ['object', 'null'], properties: { at: AT, kb: NUM } },
      location: {
        type: ['object', 'null'],
        properties: {
          lat: { type: 'number' },
          lon: { type: 'number' },
          at: AT,
          place: { type: ['object', 'null'], properties: typed({ name: 'string', country: 'string', distanceKm: 'number' }).properties },
        },
      },
      checkedAt: AT,
    }),
    async (req) => {
      const sim = await simOf(req);
      const r = await connectionOf(req.server.db, sim);
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
  ),
  // Only the status, for a refresh button: no geocoding, one indexed row.
  simRead('/sim/connection/status', simFields({ connectionStatus: 'string', checkedAt: AT }), async (req) =>
    connectionStatusOf(req.server.db, await simOf(req)),
  ),
  // A SIM holds a handful of orders over its life: all of them, newest first.
  simRead(
    '/sim/bundle',
    {
      querystring: simQuery(),
      response: listOf(outObj({ ...bundleOrders.properties, overageThresholdKb: NUM })),
    },
    async (req) => ({ items: await bundleOrdersOf(req.server.db, await simOf(req)) }),
  ),
  // The last 30 UTC days, 12 calendar months or 5 years up to today (UTC), each bucket a sum of daily rollup rows.
  simRead(
    '/sim/usage',
    {
      querystring: simQuery({ cycle: { type: 'string', enum: Object.keys(USAGE_CYCLES), default: 'day' } }),
      response: typed({ cycle: 'string', buckets: arrayOf(typed({ period: 'string', ...usageTotals })), total: outObj(usageTotals) }),
    },
    async (req) => {
      const sim = await simOf(req);
      const cycle = ((req.query as { cycle?: UsageCycle }).cycle ?? 'day') as UsageCycle;
      const rows = await usageBuckets(req.server.db, sim, cycle);
      const sum = (k: 'uplinkKb' | 'downlinkKb' | 'volumeKb') => rows.reduce((a, row) => a + Number(row[k]), 0);
      return { cycle, buckets: rows, total: { uplinkKb: sum('uplinkKb'), downlinkKb: sum('downlinkKb'), volumeKb: sum('volumeKb') } };
    },
  ),
  eventList('/sim/event', false),
  eventList('/sim/statusTrace', true),
  // The whole trace as CSV (UTF-8 with a byte-order mark for spreadsheets), headed and worded in the caller's language.
  {
    ...simRead('/sim/statusTraceDownload', { querystring: simQuery(), response: NO_FIELDS }, async (req, reply) => {
      const sim = await simOf(req);
      const rows = await statusTrace(req.server.db, sim);
      const label = (key: string) => consoleLabel(req.lang, key) ?? key;
      const status = (s: string | null) => (s ? label(`sims.enum.status.${s}`) : null);
      const lines = [
        [
          label('simDetail.events.atUtc'),
          label('simDetail.events.from'),
          label('simDetail.events.to'),
          label('simDetail.events.source'),
          label('simDetail.events.account'),
        ],
        ...rows.map((e) => [
          new Date(e.at).toISOString(),
          status(e.fromStatus),
          status(e.toStatus),
          label(`simDetail.events.sources.${e.source}`),
          e.accountEmail,
        ]),
      ];
      const csv = `\uFEFF${lines.map((l) => l.map(csvCell).join(',')).join('\r\n')}\r\n`;
      return sendAttachment(reply, 'text/csv; charset=utf-8', `status-trace-${sim.iccid}.csv`, csv);
    }),
    raw: true,
  },
  // The last 31 days (SPEC.md section 5's CDR span), so at most two monthly partitions are read, newest first.
  simRead(
    '/sim/cdrs',
    {
      querystring: simQuery(PAGING_PROPERTIES),
      response: paged(
        typed({
          id: 'string',
          network: 'string',
          country: STR,
          planCode: STR,
          rat: 'string',
          direction: 'string',
          volumeKb: 'number',
          startAt: AT,
          endAt: AT,
          durationS: 'integer',
        }),
      ),
    },
    async (req) => cdrPage(req.server.db, await simOf(req), pageAsk(req)),
  ),
  simRead(
    '/sim/sms',
    {
      querystring: simQuery(PAGING_PROPERTIES),
      response: paged(
        typed({
          id: 'string',
          direction: 'string',
          status: 'string',
          smsType: 'string',
          content: 'string',
          error: STR,
          createdAt: AT,
          sentAt: TIME,
          deliveredAt: TIME,
        }),
      ),
    },
    async (req) => smsPage(req.server.db, await simOf(req), pageAsk(req)),
  ),
]);
