/**
 * What a SIM's bundles give it, read from the database (issue 19; docs/decisions.md "The last bundle calls (issue 19)").
 * Every call reads one SIM of the caller's organisation by ICCID; another organisation's answers 404 like a missing one.
 *
 * - GET /sim/service?iccid=: the service now: the data and SMS services its bundles in use give, the bundle whose cycle
 *   the SIM counts (its number, bounds, usage, limit, what is left), the data policy in force, the queue.
 * - GET /sim/details?iccid=: the lifecycle periods (SPEC.md section 4): test data, pre-activated and deactivated
 *   periods with when each ends by time (and the test allowance by use), activation and expiry.
 * - GET /sim/spec/{iccid}: the card: technology, chip grade, batch, delivery note, shipment, identities, and whether
 *   the activate action would take it (with the reason it would not).
 * - GET /sim/getAllPackageService/{iccid}: every bundle of the SIM in queue order: in use, then pending in the order
 *   they take over (with when each would start if nothing changes), then the ended ones, newest end first.
 * - GET /sim/bundle/detail/{iccid}/{bundleId}/{cycle}: one bundle and one of its cycles (numbered from 1, the cycle its
 *   activation falls in): bounds, usage (the sum of the SIM's CDRs that started in it), limit, overage, by radio.
 */
import type { FastifyRequest } from 'fastify';
import { RESOURCES } from '../../common/resource-registry.js';
import { decide, type SimFacts } from '../domain/lifecycle.js';
import { invalid, notFound } from '../http/api-error.js';
import { fieldLabels } from '../http/labels.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { simQuery } from './sim-detail-routes.js';

const sims = RESOURCES.sims;
const ICCID = sims.properties.iccid;
const TIME = { type: ['string', 'null'], format: 'date-time' } as const;
const NUM = { type: ['number', 'null'] } as const;
const STR = { type: ['string', 'null'] } as const;
const INT = { type: ['integer', 'null'] } as const;
const BUNDLE_ID = { type: 'string', pattern: '^[A-Za-z0-9]{18,22}$', maxLength: 22 };
/** The path's id is the ICCID, and messages call it so. */
const LABELS: RouteDef['labels'] = Object.fromEntries(Object.entries(fieldLabels(sims)).map(([lang, l]) => [lang, { ...l, id: l.iccid ?? 'ICCID' }]));
const byIccid = { type: 'object', required: ['id'], additionalProperties: false, properties: { id: ICCID } };

interface Sim {
  org_id: string;
  id: string;
  iccid: string;
}

/** The caller's SIM by ICCID (query ?iccid= or path {id}); 404 for a missing one or another organisation's. */
async function simOf(req: FastifyRequest, select = ''): Promise<Sim & Record<string, unknown>> {
  const auth = req.requireAuth();
  const iccid = ((req.query as { iccid?: string }).iccid ?? (req.params as { id?: string }).id) as string;
  const row = (await req.server.db.query<Sim & Record<string, unknown>>(`SELECT s.org_id, s.id, s.iccid${select} FROM sims s WHERE s.org_id = $1 AND s.iccid = $2`, [auth.orgId, iccid])).rows[0];
  if (!row) throw notFound('sim', iccid);
  return row;
}

/** A bundle as the queue and the detail show it. */
const BUNDLE = {
  type: 'object',
  properties: {
    id: { type: 'string' }, name: { type: 'string' }, sku: { type: 'string' }, type: { type: 'string' }, serviceType: { type: 'string' }, status: { type: 'string' },
    paymentMode: { type: 'string' }, quotaKb: NUM, usedKb: { type: 'number' }, resetCycle: { type: 'string' }, overagePolicy: { type: 'string' }, throttleKbps: INT,
    outOfCoverage: { type: 'string' }, orderedAt: { type: 'string', format: 'date-time' }, activatedAt: TIME, expectedExpireAt: TIME, expiredAt: TIME,
    cancelled: { type: 'boolean' },
  },
};
const BUNDLE_SELECT = `b.id, b.name, b.sku, b.type, b.service_type AS "serviceType", b.status, b.payment_mode AS "paymentMode", b.quota_kb::float8 AS "quotaKb",
  b.used_kb::float8 AS "usedKb", b.reset_cycle AS "resetCycle", b.overage_policy AS "overagePolicy", b.throttle_kbps AS "throttleKbps", b.out_of_coverage AS "outOfCoverage",
  b.ordered_at AS "orderedAt", b.activated_at AS "activatedAt", b.expected_expire_at AS "expectedExpireAt", b.expired_at AS "expiredAt", b.status = 'CANCELLED' AS cancelled`;
/** The bundle whose cycle the SIM counts: the first in use by activation, the test bundle and SMS-only ones aside (026_bundle_engine.sql). */
const BASE_IN_USE = `b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' AND b.service_type <> 'sms'`;

export const simServiceRoutes: RouteDef[] = defineRoutes([
  {
    service: 'main',
    method: 'GET',
    path: '/sim/service',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      querystring: simQuery(),
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' },
          status: { type: 'string' },
          subStatus: { type: 'string' },
          data: { type: 'boolean' },
          sms: { type: 'boolean' },
          inUse: { type: 'integer' },
          pending: { type: 'integer' },
          next: { type: ['object', 'null'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
          cycle: {
            type: ['object', 'null'],
            properties: {
              bundleId: { type: 'string' }, bundleName: { type: 'string' }, resetCycle: { type: 'string' }, number: { type: 'integer' },
              start: { type: 'string', format: 'date-time' }, end: { type: 'string', format: 'date-time' }, usageKb: { type: 'number' }, limitKb: NUM, remainingKb: NUM, overageKb: NUM,
            },
          },
          control: { type: 'string' },
          expiresAt: TIME,
        },
      },
    },
    handler: async (req) => {
      const sim = await simOf(req);
      const r = (
        await req.server.db.query<{
          iccid: string; status: string; subStatus: string; data: boolean; sms: boolean; inUse: number; pending: number; nextId: string | null; nextName: string | null;
          baseId: string | null; baseName: string | null; resetCycle: string | null; number: number | null; start: Date | null; end: Date | null; usageKb: number; limitKb: number | null;
          control: string; expiresAt: Date | null;
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
          [sim.org_id, sim.id],
        )
      ).rows[0];
      const cycle =
        r.start && r.baseId
          ? {
              bundleId: r.baseId, bundleName: r.baseName, resetCycle: r.resetCycle, number: r.number, start: r.start, end: r.end, usageKb: r.usageKb, limitKb: r.limitKb,
              remainingKb: r.limitKb === null ? null : Math.max(0, r.limitKb - r.usageKb), overageKb: r.limitKb === null ? null : Math.max(0, r.usageKb - r.limitKb),
            }
          : null;
      return {
        iccid: r.iccid, status: r.status, subStatus: r.subStatus, data: r.data, sms: r.sms, inUse: r.inUse, pending: r.pending,
        next: r.nextId ? { id: r.nextId, name: r.nextName } : null, cycle, control: r.control, expiresAt: r.expiresAt,
      };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/sim/details',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      querystring: simQuery(),
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' },
          status: { type: 'string' },
          subStatus: { type: 'string' },
          activatedAt: TIME,
          expiresAt: TIME,
          test: {
            type: 'object',
            properties: { status: { type: 'string' }, allowanceKb: NUM, usedKb: NUM, periodDays: INT, startedAt: TIME, endsAt: TIME, running: { type: 'boolean' } },
          },
          preActivated: { type: 'object', properties: { at: TIME, periodDays: INT, endsAt: TIME, running: { type: 'boolean' } } },
          deactivated: { type: 'object', properties: { at: TIME, periodDays: INT, retainedUntil: TIME } },
        },
      },
    },
    // A running period ends by time (and the test period also when its allowance is used up): the bundle job then
    // makes the SIM active (server/network/bundle-engine.ts endPeriods).
    handler: async (req) => {
      const sim = await simOf(req);
      const r = (
        await req.server.db.query<Record<string, unknown> & { sub_status: string }>(
          `SELECT s.iccid, s.status, s.sub_status, s.activated_at, s.expires_at, s.test_data_status, s.test_data_kb::float8 AS test_data_kb, s.test_period_days, s.test_started_at,
                  s.test_started_at + make_interval(days => s.test_period_days) AS test_ends_at, tb.used_kb::float8 AS test_used_kb, tb.quota_kb::float8 AS test_quota_kb,
                  s.pre_activated_at, s.pre_activated_period_days, s.pre_activated_at + make_interval(days => s.pre_activated_period_days) AS pre_ends_at,
                  s.deactivated_at, s.deactivated_period_days, s.deactivated_at + make_interval(days => s.deactivated_period_days) AS retained_until
             FROM sims s
             LEFT JOIN LATERAL (SELECT used_kb, quota_kb FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.type = 'BEFORE_TEST'
                                 ORDER BY (b.status = 'IN_USE') DESC, b.ordered_at DESC LIMIT 1) tb ON true
            WHERE s.org_id = $1 AND s.id = $2`,
          [sim.org_id, sim.id],
        )
      ).rows[0];
      const inTest = r.sub_status === 'test' || r.sub_status === 'active_test';
      return {
        iccid: r.iccid, status: r.status, subStatus: r.sub_status, activatedAt: r.activated_at, expiresAt: r.expires_at,
        test: {
          status: r.test_data_status, allowanceKb: r.test_quota_kb ?? r.test_data_kb, usedKb: r.test_used_kb ?? null, periodDays: r.test_period_days,
          startedAt: r.test_started_at, endsAt: r.test_ends_at, running: inTest,
        },
        preActivated: { at: r.pre_activated_at, periodDays: r.pre_activated_period_days, endsAt: r.pre_ends_at, running: r.sub_status === 'quiet' },
        deactivated: { at: r.deactivated_at, periodDays: r.deactivated_period_days, retainedUntil: r.retained_until },
      };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/sim/spec/:id',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      params: byIccid,
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' }, imsi: STR, msisdn: STR, imei: STR, technology: { type: 'string' }, productType: { type: 'string' }, batchNo: STR, deliveryNote: STR,
          shipmentDate: STR, ota: { type: 'boolean' }, multiImsi: { type: 'boolean' }, activatable: { type: 'boolean' }, activateRefusal: STR,
        },
      },
    },
    handler: async (req) => {
      const sim = await simOf(
        req,
        `, s.imsi, s.msisdn, s.imei, s.technology, s.product_type, s.batch_no, s.delivery_note, to_char(s.shipment_date, 'YYYY-MM-DD') AS shipment_date, s.status, s.sub_status,
           s.operation, s.test_data_status = 'in_test' AS in_test,
           EXISTS (SELECT 1 FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status IN ('PENDING', 'IN_USE')) AS has_bundle`,
      );
      const facts = {
        status: sim.status, subStatus: sim.sub_status, technology: sim.technology, operation: sim.operation, inTestPeriod: sim.in_test, hasAvailableBundle: sim.has_bundle,
      } as SimFacts;
      const d = decide(facts, 'activate');
      const tech = String(sim.technology);
      return {
        iccid: sim.iccid, imsi: sim.imsi, msisdn: sim.msisdn, imei: sim.imei, technology: tech, productType: sim.product_type, batchNo: sim.batch_no,
        deliveryNote: sim.delivery_note, shipmentDate: sim.shipment_date, ota: tech === 'OTA' || tech === 'OTA_BIP', multiImsi: tech === 'MULTI_IMSI',
        activatable: d.ok, activateRefusal: d.ok ? null : d.refusal,
      };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/sim/getAllPackageService/:id',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      params: byIccid,
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' },
          inUse: { type: 'array', items: { ...BUNDLE, properties: { ...BUNDLE.properties, base: { type: 'boolean' } } } },
          pending: { type: 'array', items: { ...BUNDLE, properties: { ...BUNDLE.properties, position: { type: 'integer' }, startsAt: TIME } } },
          ended: { type: 'array', items: BUNDLE },
        },
      },
    },
    // The data queue (what takes over when the base bundle ends) is that of the bundle job (advanceBundles): pending
    // data bundles by order time, each starting when the one before it is expected to end. An SMS-only or test
    // bundle waits outside that queue, so it has no expected start.
    handler: async (req) => {
      const sim = await simOf(req);
      const rows = (
        await req.server.db.query<Record<string, unknown> & { status: string; type: string; serviceType: string; expectedExpireAt: Date | null; activatedAt: Date | null; id: string }>(
          `SELECT ${BUNDLE_SELECT} FROM bundle_orders b WHERE b.org_id = $1 AND b.sim_id = $2
            ORDER BY CASE b.status WHEN 'IN_USE' THEN 0 WHEN 'PENDING' THEN 1 ELSE 2 END, b.activated_at NULLS LAST, b.ordered_at, b.id LIMIT 500`,
          [sim.org_id, sim.id],
        )
      ).rows;
      const inUse = rows.filter((b) => b.status === 'IN_USE');
      const dataQueue = (b: { type: string; serviceType: string }) => b.type !== 'BEFORE_TEST' && b.serviceType !== 'sms';
      const base = inUse.find(dataQueue);
      let at: Date | null = base ? base.expectedExpireAt : null;
      let position = 0;
      const pending = rows
        .filter((b) => b.status === 'PENDING')
        .map((b) => {
          if (!dataQueue(b)) return { ...b, position: 0, startsAt: null };
          position += 1;
          const startsAt = position === 1 && !base ? null : at;
          // An order with its own expected end keeps it; otherwise a year from its start (advanceBundles).
          if (startsAt) at = new Date(startsAt.getTime() + 365 * 86_400_000);
          else at = null;
          return { ...b, position, startsAt };
        });
      const ended = rows.filter((b) => b.status === 'EXPIRED' || b.status === 'CANCELLED').sort((a, b) => +(b.expiredAt ?? 0) - +(a.expiredAt ?? 0));
      return { iccid: sim.iccid, inUse: inUse.map((b) => ({ ...b, base: b === base })), pending, ended };
    },
  },
  {
    service: 'main',
    method: 'GET',
    path: '/sim/bundle/detail/:iccid/:bundleId/:cycle',
    permission: { action: 'read', subject: 'sim' },
    labels: LABELS,
    schema: {
      params: {
        type: 'object', required: ['iccid', 'bundleId', 'cycle'], additionalProperties: false,
        properties: { iccid: ICCID, bundleId: BUNDLE_ID, cycle: { type: 'integer', minimum: 1, maximum: 100_000 } },
      },
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' },
          bundle: { ...BUNDLE, properties: { ...BUNDLE.properties, coverageCountries: { type: 'array', items: { type: 'string' } }, overageThresholdKb: NUM, cycles: { type: 'integer' } } },
          cycle: {
            type: 'object',
            properties: {
              number: { type: 'integer' }, start: { type: 'string', format: 'date-time' }, end: { type: 'string', format: 'date-time' }, current: { type: 'boolean' },
              usageKb: { type: 'number' }, uplinkKb: { type: 'number' }, downlinkKb: { type: 'number' }, cdrs: { type: 'integer' }, limitKb: NUM, overageKb: NUM,
              byRat: { type: 'array', items: { type: 'object', properties: { rat: { type: 'string' }, volumeKb: { type: 'number' } } } },
            },
          },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { iccid, bundleId, cycle } = req.params as { iccid: string; bundleId: string; cycle: number };
      const { db } = req.server;
      const sim = (await db.query<Sim>('SELECT org_id, id, iccid FROM sims WHERE org_id = $1 AND iccid = $2', [auth.orgId, iccid])).rows[0];
      if (!sim) throw notFound('sim', iccid);
      const b = (
        await db.query<Record<string, unknown> & { cycles: number | null; activatedAt: Date | null }>(
          `SELECT ${BUNDLE_SELECT}, b.coverage_countries AS "coverageCountries", b.overage_threshold_kb::float8 AS "overageThresholdKb",
                  CASE WHEN b.activated_at IS NOT NULL THEN cycle_number(b.reset_cycle, b.activated_at, greatest(b.activated_at, least(now(), coalesce(b.expired_at, now())) - interval '1 microsecond')) END AS cycles
             FROM bundle_orders b WHERE b.org_id = $1 AND b.sim_id = $2 AND b.id = $3`,
          [sim.org_id, sim.id, bundleId],
        )
      ).rows[0];
      // Another SIM's bundle is as missing as one that does not exist.
      if (!b) throw notFound('record', bundleId);
      const cycles = b.cycles ?? 0;
      // A pending bundle has no cycle yet; past the last one is refused naming the bound.
      if (cycle > cycles) throw invalid('cycle', 'maximum', { limit: cycles });
      const c = (
        await db.query<{ start: Date; end: Date; current: boolean; usageKb: number; uplinkKb: number; downlinkKb: number; cdrs: number; limitKb: number | null; byRat: Array<{ rat: string; volumeKb: number }> }>(
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
          [sim.org_id, sim.id, bundleId, cycle],
        )
      ).rows[0];
      return {
        iccid: sim.iccid,
        bundle: { ...b, cycles },
        cycle: { number: cycle, ...c, overageKb: c.limitKb === null ? null : Math.max(0, c.usageKb - c.limitKb) },
      };
    },
  },
]);
