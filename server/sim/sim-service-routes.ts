/**
 * What a SIM's bundles give it, read from the database (docs/decisions.md "The last bundle calls").
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
import { RESOURCES } from '../../common/resource-registry.js';
import { decide, type SimFacts } from '../domain/lifecycle.js';
import { invalid, notFound } from '../http/api-error.js';
import { fieldLabels } from '../http/labels.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { bundleCycle, bundleOfSim, bundleQueueOf, cardOf, periodsOf, serviceOf } from './sim-detail-repo.js';
import { arrayOf, obj, outObj, typed } from '../http/shapes.js';
import { NUM, simFields, simOf, simRead, STR, TIME } from './sim-detail-routes.js';

const sims = RESOURCES.sims;
const ICCID = sims.properties.iccid;
const AT = { type: 'string', format: 'date-time' } as const;
const INT = { type: ['integer', 'null'] } as const;
const BUNDLE_ID = { type: 'string', pattern: '^[A-Za-z0-9]{18,22}$', maxLength: 22 };
/** The path's id is the ICCID, and messages call it so. */
const LABELS: RouteDef['labels'] = Object.fromEntries(Object.entries(fieldLabels(sims)).map(([lang, l]) => [lang, { ...l, id: l.iccid ?? 'ICCID' }]));
const byIccid = obj({ id: ICCID }, ['id']);

/** A bundle as the queue and the detail show it. */
const BUNDLE = typed({
  id: 'string',
  name: 'string',
  sku: 'string',
  type: 'string',
  serviceType: 'string',
  status: 'string',
  paymentMode: 'string',
  quotaKb: NUM,
  usedKb: 'number',
  resetCycle: 'string',
  overagePolicy: 'string',
  throttleKbps: INT,
  outOfCoverage: 'string',
  orderedAt: AT,
  activatedAt: TIME,
  expectedExpireAt: TIME,
  expiredAt: TIME,
  cancelled: 'boolean',
});
/** A bundle with more fields. */
const bundleWith = (fields: Parameters<typeof typed>[0]) => outObj({ ...BUNDLE.properties, ...typed(fields).properties });

export const simServiceRoutes: RouteDef[] = defineRoutes([
  simRead(
    '/sim/service',
    simFields({
      status: 'string',
      subStatus: 'string',
      data: 'boolean',
      sms: 'boolean',
      inUse: 'integer',
      pending: 'integer',
      next: { type: ['object', 'null'], properties: typed({ id: 'string', name: 'string' }).properties },
      cycle: {
        type: ['object', 'null'],
        properties: typed({
          bundleId: 'string',
          bundleName: 'string',
          resetCycle: 'string',
          number: 'integer',
          start: AT,
          end: AT,
          usageKb: 'number',
          limitKb: NUM,
          remainingKb: NUM,
          overageKb: NUM,
        }).properties,
      },
      control: 'string',
      expiresAt: TIME,
    }),
    async (req) => {
      const sim = await simOf(req);
      const r = await serviceOf(req.server.db, sim);
      const cycle =
        r.start && r.baseId
          ? {
              bundleId: r.baseId,
              bundleName: r.baseName,
              resetCycle: r.resetCycle,
              number: r.number,
              start: r.start,
              end: r.end,
              usageKb: r.usageKb,
              limitKb: r.limitKb,
              remainingKb: r.limitKb === null ? null : Math.max(0, r.limitKb - r.usageKb),
              overageKb: r.limitKb === null ? null : Math.max(0, r.usageKb - r.limitKb),
            }
          : null;
      return {
        iccid: r.iccid,
        status: r.status,
        subStatus: r.subStatus,
        data: r.data,
        sms: r.sms,
        inUse: r.inUse,
        pending: r.pending,
        next: r.nextId ? { id: r.nextId, name: r.nextName } : null,
        cycle,
        control: r.control,
        expiresAt: r.expiresAt,
      };
    },
    LABELS,
  ),
  // A running period ends by time (and the test period also when its allowance is used up): the bundle job then
  // makes the SIM active (server/bundles/bundle-engine.ts endPeriods).
  simRead(
    '/sim/details',
    simFields({
      status: 'string',
      subStatus: 'string',
      activatedAt: TIME,
      expiresAt: TIME,
      test: typed({ status: 'string', allowanceKb: NUM, usedKb: NUM, periodDays: INT, startedAt: TIME, endsAt: TIME, running: 'boolean' }),
      preActivated: typed({ at: TIME, periodDays: INT, endsAt: TIME, running: 'boolean' }),
      deactivated: typed({ at: TIME, periodDays: INT, retainedUntil: TIME }),
    }),
    async (req) => {
      const sim = await simOf(req);
      const r = await periodsOf(req.server.db, sim);
      const inTest = r.sub_status === 'test' || r.sub_status === 'active_test';
      return {
        iccid: r.iccid,
        status: r.status,
        subStatus: r.sub_status,
        activatedAt: r.activated_at,
        expiresAt: r.expires_at,
        test: {
          // A period said to be over whose start was never recorded (SIMs brought in without their history) is not
          // claimed to have ended: its state is unknown.
          status: r.test_started_at === null && (r.test_data_status === 'ended' || r.test_data_status === 'exhausted') ? 'not_recorded' : r.test_data_status,
          allowanceKb: r.test_quota_kb ?? r.test_data_kb,
          usedKb: r.test_used_kb ?? null,
          periodDays: r.test_period_days,
          startedAt: r.test_started_at,
          endsAt: r.test_ends_at,
          running: inTest,
        },
        preActivated: { at: r.pre_activated_at, periodDays: r.pre_activated_period_days, endsAt: r.pre_ends_at, running: r.sub_status === 'quiet' },
        deactivated: { at: r.deactivated_at, periodDays: r.deactivated_period_days, retainedUntil: r.retained_until },
      };
    },
    LABELS,
  ),
  simRead(
    '/sim/spec/:id',
    {
      params: byIccid,
      response: typed({
        iccid: 'string',
        imsi: STR,
        msisdn: STR,
        imei: STR,
        technology: 'string',
        productType: 'string',
        batchNo: STR,
        deliveryNote: STR,
        shipmentDate: STR,
        ota: 'boolean',
        multiImsi: 'boolean',
        activatable: 'boolean',
        activateRefusal: STR,
      }),
    },
    async (req) => {
      const sim = await cardOf(req.server.db, await simOf(req));
      const facts = {
        status: sim.status,
        subStatus: sim.sub_status,
        technology: sim.technology,
        operation: sim.operation,
        inTestPeriod: sim.in_test,
        hasAvailableBundle: sim.has_bundle,
      } as SimFacts;
      const d = decide(facts, 'activate');
      const tech = String(sim.technology);
      return {
        iccid: sim.iccid,
        imsi: sim.imsi,
        msisdn: sim.msisdn,
        imei: sim.imei,
        technology: tech,
        productType: sim.product_type,
        batchNo: sim.batch_no,
        deliveryNote: sim.delivery_note,
        shipmentDate: sim.shipment_date,
        ota: tech === 'OTA' || tech === 'OTA_BIP',
        multiImsi: tech === 'MULTI_IMSI',
        activatable: d.ok,
        activateRefusal: d.ok ? null : d.refusal,
      };
    },
    LABELS,
  ),
  // The data queue (what takes over when the base bundle ends) is that of the bundle job (advanceBundles): pending
  // data bundles by order time, each starting when the one before it is expected to end. An SMS-only or test
  // bundle waits outside that queue, so it has no expected start.
  simRead(
    '/sim/getAllPackageService/:id',
    {
      params: byIccid,
      response: typed({
        iccid: 'string',
        inUse: arrayOf(bundleWith({ base: 'boolean' })),
        pending: arrayOf(bundleWith({ position: 'integer', startsAt: TIME })),
        ended: arrayOf(BUNDLE),
      }),
    },
    async (req) => {
      const sim = await simOf(req);
      const rows = await bundleQueueOf(req.server.db, sim);
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
    LABELS,
  ),
  simRead(
    '/sim/bundle/detail/:iccid/:bundleId/:cycle',
    {
      params: obj({ iccid: ICCID, bundleId: BUNDLE_ID, cycle: { type: 'integer', minimum: 1, maximum: 100_000 } }, ['iccid', 'bundleId', 'cycle']),
      response: typed({
        iccid: 'string',
        bundle: bundleWith({ coverageCountries: arrayOf({ type: 'string' }), overageThresholdKb: NUM, cycles: 'integer' }),
        cycle: typed({
          number: 'integer',
          start: AT,
          end: AT,
          current: 'boolean',
          usageKb: 'number',
          uplinkKb: 'number',
          downlinkKb: 'number',
          cdrs: 'integer',
          limitKb: NUM,
          overageKb: NUM,
          byRat: arrayOf(typed({ rat: 'string', volumeKb: 'number' })),
        }),
      }),
    },
    async (req) => {
      const { bundleId, cycle } = req.params as { iccid: string; bundleId: string; cycle: number };
      const { db } = req.server;
      const sim = await simOf(req);
      const b = await bundleOfSim(db, sim, bundleId);
      // Another SIM's bundle is as missing as one that does not exist.
      if (!b) throw notFound('record', bundleId);
      const cycles = b.cycles ?? 0;
      // A pending bundle has no cycle yet; past the last one is refused naming the bound.
      if (cycle > cycles) throw invalid('cycle', 'maximum', { limit: cycles });
      const c = await bundleCycle(db, sim, bundleId, cycle);
      return {
        iccid: sim.iccid,
        bundle: { ...b, cycles },
        cycle: { number: cycle, ...c, overageKb: c.limitKb === null ? null : Math.max(0, c.usageKb - c.limitKb) },
      };
    },
    LABELS,
  ),
]);
