/**
 * The SQL of a SIM's page (SPEC.md sections 2, 4 and 7): its connection, bundles and their cycles, usage,
 * events, CDRs and SMS, and its lifecycle periods. Every query names the organisation first, so it reads through an
 * index led by the organisation and never reaches another organisation's rows.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import { LIMITS } from '../../common/limits.js';
import type { Queryable } from '../db/db.js';
import { columnOf } from '../schema/schema-repo.js';

/** A SIM as the detail calls find it. */
export interface SimKey {
  orgId: string;
  id: string;
  iccid: string;
}

/** The SIM of an organisation with this ICCID; undefined when it has none (another organisation's included). */
export async function simByIccid(q: Queryable, orgId: string, iccid: string): Promise<SimKey | undefined> {
  return (await q.query<SimKey>('SELECT org_id AS "orgId", id, iccid FROM sims WHERE org_id = $1 AND iccid = $2', [orgId, iccid])).rows[0];
}

/** Where a page starts and how long it is. */
export interface PageAsk {
  page: number;
  pageSize: number;
}

/** One page of a query ordered as given, and the count of all its rows. */
async function pageOf(q: Queryable, ask: PageAsk, from: string, where: string, params: unknown[], select: string, order: string) {
  const rows = await q.query(
    `SELECT ${select} FROM ${from} WHERE ${where} ORDER BY ${order} LIMIT ${ask.pageSize} OFFSET ${(ask.page - 1) * ask.pageSize}`,
    params,
  );
  const total = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${from} WHERE ${where}`, params);
  return { items: rows.rows, total: total.rows[0].n, page: ask.page, pageSize: ask.pageSize };
}

/** The connection tab: the last session within LIMITS.lastSessionMonths, the location within LIMITS.locationHours. */
export async function connectionOf(q: Queryable, sim: SimKey) {
  return (
    await q.query<{
      iccid: string;
      status: string;
      connectionStatus: string;
      apn: string | null;
      ip: string | null;
      network: string | null;
      sessionAt: Date | null;
      sessionKb: number | null;
      lat: number | null;
      lon: number | null;
      locationAt: Date | null;
      checkedAt: Date;
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
}

/** Only the connection status, for a refresh button: one indexed row. */
export async function connectionStatusOf(q: Queryable, sim: SimKey) {
  return (
    await q.query('SELECT iccid, connection_status AS "connectionStatus", now() AS "checkedAt" FROM sims WHERE org_id = $1 AND id = $2', [sim.orgId, sim.id])
  ).rows[0];
}

const bundleOrders = RESOURCES.bundleOrders;
const ORDER_SELECT = [
  ...Object.keys(bundleOrders.properties).map((f) => `${columnOf(bundleOrders, f)} AS "${f}"`),
  't.overage_threshold_kb::float8 AS "overageThresholdKb"',
].join(', ');

/** A SIM's bundle orders (a handful over its life), newest first. */
export async function bundleOrdersOf(q: Queryable, sim: SimKey) {
  return (
    await q.query(`SELECT ${ORDER_SELECT} FROM bundle_orders t WHERE t.org_id = $1 AND t.sim_id = $2 ORDER BY t.ordered_at DESC, t.id LIMIT 500`, [
      sim.orgId,
      sim.id,
    ])
  ).rows;
}

/** Usage buckets: the step of each cycle and how many of them (SPEC.md section 9: calendar day, month, year). */
export const USAGE_CYCLES = {
  day: { count: 30, step: '1 day', trunc: 'day', label: 'YYYY-MM-DD' },
  month: { count: 12, step: '1 month', trunc: 'month', label: 'YYYY-MM' },
  year: { count: 5, step: '1 year', trunc: 'year', label: 'YYYY' },
} as const;
export type UsageCycle = keyof typeof USAGE_CYCLES;

/** The last buckets up to today (UTC) of a cycle, each a sum of daily rollup rows (never raw CDRs). */
export async function usageBuckets(q: Queryable, sim: SimKey, cycle: UsageCycle) {
  const c = USAGE_CYCLES[cycle];
  return (
    await q.query<{ period: string; uplinkKb: number; downlinkKb: number; volumeKb: number }>(
      `WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS d),
            b AS (SELECT g::date AS start, (g + interval '${c.step}')::date AS stop
                    FROM today, generate_series(date_trunc('${c.trunc}', today.d::timestamp) - interval '${c.step}' * ${c.count - 1}, date_trunc('${c.trunc}', today.d::timestamp), interval '${c.step}') AS g)
       SELECT to_char(b.start, '${c.label}') AS period,
              coalesce(sum(u.uplink_kb), 0)::float8 AS "uplinkKb", coalesce(sum(u.downlink_kb), 0)::float8 AS "downlinkKb",
              coalesce(sum(u.volume_kb), 0)::float8 AS "volumeKb"
         FROM b LEFT JOIN usage_daily u ON u.org_id = $1 AND u.sim_id = $2 AND u.day >= b.start AND u.day < b.stop
        GROUP BY b.start ORDER BY b.start`,
      [sim.orgId, sim.id],
    )
  ).rows;
}

const EVENT_SELECT = `e.id::text AS id, e.type, e.from_status AS "fromStatus", e.to_status AS "toStatus", e.source,
  CASE WHEN a.id IS NULL THEN NULL ELSE a.first_name || ' ' || a.last_name END AS "accountName", a.email AS "accountEmail", e.detail, e.at`;
const EVENT_FROM = 'sim_events e LEFT JOIN accounts a ON a.id = e.account_id';
const STATUS_CHANGES = "AND e.type = 'status_change'";

/** A page of a SIM's events, newest first: all of them, or only its status changes. */
export function eventPage(q: Queryable, sim: SimKey, ask: PageAsk, statusChangesOnly: boolean) {
  return pageOf(
    q,
    ask,
    EVENT_FROM,
    `e.org_id = $1 AND e.sim_id = $2 ${statusChangesOnly ? STATUS_CHANGES : ''}`,
    [sim.orgId, sim.id],
    EVENT_SELECT,
    'e.at DESC, e.id DESC',
  );
}

/** A SIM's whole status trace (up to LIMITS.exportMax changes), newest first. */
export async function statusTrace(q: Queryable, sim: SimKey) {
  return (
    await q.query<{ at: Date; fromStatus: string | null; toStatus: string | null; source: string; accountEmail: string | null }>(
      `SELECT ${EVENT_SELECT} FROM ${EVENT_FROM} WHERE e.org_id = $1 AND e.sim_id = $2 ${STATUS_CHANGES} ORDER BY e.at DESC, e.id DESC LIMIT ${LIMITS.exportMax}`,
      [sim.orgId, sim.id],
    )
  ).rows;
}

/** A page of a SIM's CDRs of the last LIMITS.cdrSummaryDays (at most two monthly partitions), newest first. */
export function cdrPage(q: Queryable, sim: SimKey, ask: PageAsk) {
  return pageOf(
    q,
    ask,
    'cdrs c',
    `c.org_id = $1 AND c.iccid = $2 AND c.start_at >= now() - make_interval(days => $3)`,
    [sim.orgId, sim.iccid, LIMITS.cdrSummaryDays],
    `c.id::text AS id, c.network, c.country, c.plan_code AS "planCode", c.rat, c.direction, c.volume_kb::float8 AS "volumeKb",
     c.start_at AS "startAt", c.end_at AS "endAt", c.duration_s AS "durationS"`,
    'c.start_at DESC, c.id DESC',
  );
}

/** A page of a SIM's SMS, newest first. */
export function smsPage(q: Queryable, sim: SimKey, ask: PageAsk) {
  return pageOf(
    q,
    ask,
    'sms_records s',
    's.org_id = $1 AND s.iccid = $2',
    [sim.orgId, sim.iccid],
    `s.id, s.direction, s.status, s.sms_type AS "smsType", s.content, s.error, s.created_at AS "createdAt", s.sent_at AS "sentAt", s.delivered_at AS "deliveredAt"`,
    's.created_at DESC, s.id DESC',
  );
}

// What a SIM's bundles give it (the calls of sim-service-routes.ts).

const BUNDLE_SELECT = `b.id, b.name, b.sku, b.type, b.service_type AS "serviceType", b.status, b.payment_mode AS "paymentMode", b.quota_kb::float8 AS "quotaKb",
  b.used_kb::float8 AS "usedKb", b.reset_cycle AS "resetCycle", b.overage_policy AS "overagePolicy", b.throttle_kbps AS "throttleKbps", b.out_of_coverage AS "outOfCoverage",
  b.ordered_at AS "orderedAt", b.activated_at AS "activatedAt", b.expected_expire_at AS "expectedExpireAt", b.expired_at AS "expiredAt", b.status = 'CANCELLED' AS cancelled`;
/** The bundle whose cycle the SIM counts: the first in use by activation, the test bundle and SMS-only ones aside (026_bundle_engine.sql). */
const BASE_IN_USE = `b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' AND b.service_type <> 'sms'`;

/** The service now: what the bundles in use give, how many wait, the next one, and the cycle the SIM counts. */
export async function serviceOf(q: Queryable, sim: SimKey) {
  return (
    await q.query<{
      iccid: string;
      status: string;
      subStatus: string;
      data: boolean;
      sms: boolean;
      inUse: number;
      pending: number;
      nextId: string | null;
      nextName: string | null;
      baseId: string | null;
      baseName: string | null;
      resetCycle: string | null;
      number: number | null;
      start: Date | null;
      end: Date | null;
      usageKb: number;
      limitKb: number | null;
      control: string;
      expiresAt: Date | null;
    }>(
      `SELECT s.iccid, s.status, s.sub_status AS "subStatus", s.flow_control_policy AS control, s.expires_at AS "expiresAt",
              coalesce(bool_or(b.service_type IN ('data', 'data_sms')) FILTER (WHERE b.status = 'IN_USE'), false) AS data,
              coalesce(bool_or(b.service_type IN ('sms', 'data_sms')) FILTER (WHERE b.status = 'IN_USE'), false) AS sms,
              count(b.id) FILTER (WHERE b.status = 'IN_USE')::int AS "inUse", count(b.id) FILTER (WHERE b.status = 'PENDING')::int AS pending,
              n.id AS "nextId", n.name AS "nextName", base.id AS "baseId", base.name AS "baseName", s.cycle_reset AS "resetCycle",
              CASE WHEN s.cycle_started_at IS NOT NULL THEN cycle_number(s.cycle_reset, s.cycle_anchor, s.cycle_started_at) END AS number,
              s.cycle_started_at AS start, s.cycle_ends_at AS "end", s.cycle_usage_kb::float8 AS "usageKb", s.cycle_limit_kb::float8 AS "limitKb"
         FROM sims s
         LEFT JOIN bundle_orders b ON b.org_id = s.org_id AND b.sim_id = s.id
         LEFT JOIN LATERAL (SELECT id, name FROM bundle_orders p WHERE p.org_id = s.org_id AND p.sim_id = s.id AND p.status = 'PENDING' ORDER BY p.ordered_at, p.id LIMIT 1) n ON true
         LEFT JOIN LATERAL (SELECT id, name FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND ${BASE_IN_USE} ORDER BY b.activated_at, b.id LIMIT 1) base ON true
        WHERE s.org_id = $1 AND s.id = $2
        GROUP BY s.org_id, s.id, n.id, n.name, base.id, base.name`,
      [sim.orgId, sim.id],
    )
  ).rows[0];
}

/** The lifecycle periods (SPEC.md section 4): test data (with the test bundle's use), pre-activated, deactivated, with their ends. */
export async function periodsOf(q: Queryable, sim: SimKey) {
  return (
    await q.query<Record<string, unknown> & { sub_status: string }>(
      `SELECT s.iccid, s.status, s.sub_status, s.activated_at, s.expires_at, s.test_data_status, s.test_data_kb::float8 AS test_data_kb, s.test_period_days, s.test_started_at,
              -- A test period that is over ended by time or at the activation its used-up allowance brought, whichever came first.
              CASE WHEN s.test_data_status IN ('ended', 'exhausted') AND s.activated_at IS NOT NULL
                   THEN least(s.test_started_at + make_interval(days => s.test_period_days), s.activated_at)
                   ELSE s.test_started_at + make_interval(days => s.test_period_days) END AS test_ends_at, tb.used_kb::float8 AS test_used_kb, tb.quota_kb::float8 AS test_quota_kb,
              s.pre_activated_at, s.pre_activated_period_days, s.pre_activated_at + make_interval(days => s.pre_activated_period_days) AS pre_ends_at,
              s.deactivated_at, s.deactivated_period_days, s.deactivated_at + make_interval(days => s.deactivated_period_days) AS retained_until
         FROM sims s
         LEFT JOIN LATERAL (SELECT used_kb, quota_kb FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.type = 'BEFORE_TEST'
                             ORDER BY (b.status = 'IN_USE') DESC, b.ordered_at DESC LIMIT 1) tb ON true
        WHERE s.org_id = $1 AND s.id = $2`,
      [sim.orgId, sim.id],
    )
  ).rows[0];
}

/** The card: identities, technology, batch and shipment, and the facts the activate action is decided on. */
export async function cardOf(q: Queryable, sim: SimKey) {
  return (
    await q.query<Record<string, unknown> & { iccid: string }>(
      `SELECT s.iccid, s.imsi, s.msisdn, s.imei, s.technology, s.product_type, s.batch_no, s.delivery_note, to_char(s.shipment_date, 'YYYY-MM-DD') AS shipment_date, s.status, s.sub_status,
              s.operation, s.test_data_status = 'in_test' AS in_test,
              EXISTS (SELECT 1 FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status IN ('PENDING', 'IN_USE')) AS has_bundle
         FROM sims s WHERE s.org_id = $1 AND s.id = $2`,
      [sim.orgId, sim.id],
    )
  ).rows[0];
}

/** Every bundle of a SIM: in use first (by activation), then pending (by order time), then the rest. */
export async function bundleQueueOf(q: Queryable, sim: SimKey) {
  return (
    await q.query<
      Record<string, unknown> & {
        status: string;
        type: string;
        serviceType: string;
        expectedExpireAt: Date | null;
        activatedAt: Date | null;
        expiredAt: Date | null;
        id: string;
      }
    >(
      `SELECT ${BUNDLE_SELECT} FROM bundle_orders b WHERE b.org_id = $1 AND b.sim_id = $2
        ORDER BY CASE b.status WHEN 'IN_USE' THEN 0 WHEN 'PENDING' THEN 1 ELSE 2 END, b.activated_at NULLS LAST, b.ordered_at, b.id LIMIT 500`,
      [sim.orgId, sim.id],
    )
  ).rows;
}

/** One bundle of a SIM, with how many cycles it has begun (none while pending); undefined for another SIM's. */
export async function bundleOfSim(q: Queryable, sim: SimKey, bundleId: string) {
  return (
    await q.query<Record<string, unknown> & { cycles: number | null; activatedAt: Date | null }>(
      `SELECT ${BUNDLE_SELECT}, b.coverage_countries AS "coverageCountries", b.overage_threshold_kb::float8 AS "overageThresholdKb",
              CASE WHEN b.activated_at IS NOT NULL THEN cycle_number(b.reset_cycle, b.activated_at, greatest(b.activated_at, least(now(), coalesce(b.expired_at, now())) - interval '1 microsecond')) END AS cycles
         FROM bundle_orders b WHERE b.org_id = $1 AND b.sim_id = $2 AND b.id = $3`,
      [sim.orgId, sim.id, bundleId],
    )
  ).rows[0];
}

/** One cycle of a bundle (numbered from 1): bounds, usage from the SIM's CDRs that started in it, limit, by radio. */
export async function bundleCycle(q: Queryable, sim: SimKey, bundleId: string, cycle: number) {
  return (
    await q.query<{
      start: Date;
      end: Date;
      current: boolean;
      usageKb: number;
      uplinkKb: number;
      downlinkKb: number;
      cdrs: number;
      limitKb: number | null;
      byRat: Array<{ rat: string; volumeKb: number }>;
    }>(
      `WITH c AS (SELECT cycle_nth_start(b.reset_cycle, b.activated_at, $4) AS start, cycle_nth_start(b.reset_cycle, b.activated_at, $4 + 1) AS "end", b.quota_kb, b.status,
                         s.cycle_started_at, s.cycle_limit_kb
                    FROM bundle_orders b JOIN sims s ON s.org_id = b.org_id AND s.id = b.sim_id WHERE b.org_id = $1 AND b.sim_id = $2 AND b.id = $3),
            u AS (SELECT x.rat, sum(x.volume_kb) AS kb, sum(x.volume_kb) FILTER (WHERE x.direction = 'uplink') AS up, count(*) AS n
                    FROM c, cdrs x WHERE x.org_id = $1 AND x.sim_id = $2 AND x.start_at >= c.start AND x.start_at < c."end" GROUP BY x.rat)
       SELECT c.start, c."end", (c.status = 'IN_USE' AND now() >= c.start AND now() < c."end") AS current,
              coalesce((SELECT sum(kb) FROM u), 0)::float8 AS "usageKb", coalesce((SELECT sum(up) FROM u), 0)::float8 AS "uplinkKb",
              coalesce((SELECT sum(kb) - sum(coalesce(up, 0)) FROM u), 0)::float8 AS "downlinkKb", coalesce((SELECT sum(n) FROM u), 0)::int AS cdrs,
              (CASE WHEN c.cycle_started_at = c.start THEN c.cycle_limit_kb ELSE c.quota_kb END)::float8 AS "limitKb",
              coalesce((SELECT json_agg(json_build_object('rat', rat, 'volumeKb', kb::float8) ORDER BY kb DESC, rat) FROM u), '[]'::json) AS "byRat"
         FROM c`,
      [sim.orgId, sim.id, bundleId, cycle],
    )
  ).rows[0];
}
