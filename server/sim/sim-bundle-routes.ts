/**
 * What a SIM's bundles do to it now (docs/decisions.md "What the bundle calls answer"):
 *
 * - GET /sim/bundle/overuse_policy/{iccid}: the data policy the network enforces now (none, throttled to 128 or
 *   256 kbps, stopped) and why: the cycle's allowance reached under the overage policy of the bundle that takes the
 *   overage (released when the cycle ends), an attach outside the bundle's coverage under "shut down" (lifted back in
 *   coverage), or an automation rule's throttle (named, kept until lifted); with the cycle's usage, limit, overage and threshold. The SIM page shows it above the bundles.
 * - GET /sim/bundle/coverage/{iccid}: the countries the SIM's base bundle in use covers, its out-of-coverage policy,
 *   and whether the SIM is outside its coverage now (where, since when).
 *
 * - POST /sim/bundle/cancel {iccid, bundleId}: an admin cancels a pending or in-use bundle (docs/decisions.md "The last
 *   bundle calls"): CANCELLED from now, a bundle_change event in the same transaction; a cancelled bundle in
 *   use hands over to the next in the queue at once, and the SIM's cycle and data policy are decided again.
 *
 * {id} is the SIM's ICCID, as on every other call of the SIM page; another organisation's SIM answers 404.
 */
import type { FastifyRequest } from 'fastify';
import { CODES } from '../../common/errors.js';
import { RESOURCES } from '../../common/resource-registry.js';
import { ApiError, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { fieldLabels } from '../http/labels.js';
import { defineRoutes, type RouteDef } from '../http/route.js';
import { advanceBundles } from '../bundles/bundle-engine.js';
import { simRead } from './sim-detail-routes.js';
import { baseBundleOf, cancelBundle, lockBundle, lockSimByIccid, policyByIccid, type PolicyRow } from './sim-bundle-repo.js';

const ICCID = RESOURCES.sims.properties.iccid;
const TIME = { type: ['string', 'null'], format: 'date-time' } as const;
const NUM = { type: ['number', 'null'] } as const;
const STR = { type: ['string', 'null'] } as const;
/** The path's id is the ICCID, and messages call it so. */
const LABELS: RouteDef['labels'] = Object.fromEntries(Object.entries(fieldLabels(RESOURCES.sims)).map(([lang, l]) => [lang, { ...l, id: l.iccid ?? 'ICCID' }]));
const params = { type: 'object', required: ['id'], additionalProperties: false, properties: { id: ICCID } };

const num = (v: string | null) => (v === null ? null : Number(v));

export const simBundleRoutes: RouteDef[] = defineRoutes([
  simRead(
    '/sim/bundle/overuse_policy/:id',
    {
      params,
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' },
          control: { type: 'string', enum: ['none', 'throttle_128', 'throttle_256', 'stop'] },
          reason: { type: ['string', 'null'], enum: ['overage', 'out_of_coverage', 'pool', 'rule', null] },
          rule: { type: ['object', 'null'], properties: { name: STR, at: TIME } },
          pool: { type: ['object', 'null'], properties: { id: STR, name: STR, cycleEnd: STR } },
          since: TIME,
          releasedAt: TIME,
          cycleStart: TIME,
          cycleEnd: TIME,
          usageKb: { type: 'number' },
          limitKb: NUM,
          overageKb: NUM,
          allowanceReachedAt: TIME,
          bundleId: STR,
          bundleName: STR,
          overagePolicy: STR,
          throttleKbps: NUM,
          thresholdKb: NUM,
          outOfCoverage: {
            type: ['object', 'null'],
            properties: { country: STR, since: TIME, policy: STR, barred: { type: 'boolean' } },
          },
        },
      },
    },
    async (req) => {
      const r = await policyOf(req);
      const limit = r.cycle_started_at ? num(r.cycle_limit_kb) : null;
      const usage = Number(r.cycle_usage_kb);
      const control = r.flow_control_policy;
      // The cause in force is the one shown: a bar out of coverage, then a shared pool's stop (both bar data), then an
      // overage control, which beats an automation rule's throttle of the same or a lesser strength.
      const reason =
        control === 'none' ? null : r.coverage_barred ? 'out_of_coverage' : r.pool_stopped ? 'pool' : r.overage_control === control ? 'overage' : 'rule';
      return {
        iccid: r.iccid,
        control,
        reason,
        rule: reason === 'rule' ? { name: r.rule_name, at: r.rule_at } : null,
        // A pool's stop ends when the pool's next cycle starts (server/pool/pool-engine.ts).
        pool: reason === 'pool' ? { id: r.pool_id, name: r.pool_name, cycleEnd: r.pool_cycle_end } : null,
        since: control === 'none' ? null : r.flow_control_at,
        // An overage control ends with the cycle; a coverage bar when the SIM attaches in a covered country.
        releasedAt: reason === 'overage' ? r.cycle_ends_at : null,
        cycleStart: r.cycle_started_at,
        cycleEnd: r.cycle_ends_at,
        usageKb: usage,
        limitKb: limit,
        overageKb: limit === null ? null : Math.max(0, usage - limit),
        allowanceReachedAt: r.overage_at,
        bundleId: r.bundle_id,
        bundleName: r.bundle_name,
        overagePolicy: r.overage_policy,
        throttleKbps: r.throttle_kbps,
        thresholdKb: limit !== null && r.overage_threshold_kb !== null ? limit - Number(r.quota_kb ?? 0) + Number(r.overage_threshold_kb) : null,
        outOfCoverage: r.out_of_coverage_at
          ? { country: r.out_of_coverage_country, since: r.out_of_coverage_at, policy: r.base_policy, barred: r.coverage_barred }
          : null,
      };
    },
    LABELS,
  ),
  simRead(
    '/sim/bundle/coverage/:id',
    {
      params,
      response: {
        type: 'object',
        properties: {
          iccid: { type: 'string' },
          bundleId: STR,
          bundleName: STR,
          countries: { type: 'array', items: { type: 'string' } },
          everywhere: { type: 'boolean' },
          policy: STR,
          outOfCoverage: { type: 'boolean' },
          country: STR,
          since: TIME,
          barred: { type: 'boolean' },
        },
      },
    },
    async (req) => {
      const r = await policyOf(req);
      const countries = [...(r.base_countries ?? [])].sort();
      return {
        iccid: r.iccid,
        bundleId: r.base_policy === null ? null : r.bundle_id,
        bundleName: r.base_policy === null ? null : r.bundle_name,
        countries,
        // A bundle that lists no country is not limited to any (its out-of-coverage policy never applies).
        everywhere: r.base_policy !== null && countries.length === 0,
        policy: r.base_policy,
        outOfCoverage: r.out_of_coverage_at !== null,
        country: r.out_of_coverage_country,
        since: r.out_of_coverage_at,
        barred: r.coverage_barred,
      };
    },
    LABELS,
  ),
  {
    service: 'main',
    method: 'POST',
    path: '/sim/bundle/cancel',
    permission: { action: 'cancelBundle', subject: 'sim' },
    labels: LABELS,
    schema: {
      body: {
        type: 'object',
        required: ['iccid', 'bundleId'],
        additionalProperties: false,
        properties: { iccid: ICCID, bundleId: { type: 'string', pattern: '^[A-Za-z0-9]{18,22}$', maxLength: 22 } },
      },
      response: {
        type: 'object',
        properties: {
          bundleId: { type: 'string' },
          from: { type: 'string' },
          status: { type: 'string' },
          next: { type: ['object', 'null'], properties: { id: { type: 'string' }, name: { type: 'string' } } },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { iccid, bundleId } = req.body as { iccid: string; bundleId: string };
      const { db } = req.server;
      const result = await db.tx(async (q) => {
        const simId = await lockSimByIccid(q, auth.orgId, iccid);
        if (!simId) throw notFound('sim', iccid);
        const b = await lockBundle(q, auth.orgId, simId, bundleId);
        if (!b) throw notFound('record', bundleId);
        // An ended bundle stays as it ended.
        if (b.status !== 'PENDING' && b.status !== 'IN_USE') throw new ApiError(409, CODES.conflict, { status: b.status }, 'errors.bundleNotCancellable');
        const now = new Date();
        await cancelBundle(q, { orgId: auth.orgId, simId, iccid, bundleId, name: b.name, from: b.status, accountId: auth.accountId, at: now });
        // The next bundle in the queue takes over from now; the cycle and the overage policy follow the bundles in use.
        if (b.status === 'IN_USE') await advanceBundles(q, now, 1, { orgId: auth.orgId, simId });
        const next = await baseBundleOf(q, auth.orgId, simId);
        await audit(q, req, {
          action: 'cancelBundle',
          entity: 'bundle_order',
          entityId: bundleId,
          before: { status: b.status },
          after: { status: 'CANCELLED', next: next?.id ?? null },
        });
        return { bundleId, from: b.status, status: 'CANCELLED', next: b.status === 'IN_USE' ? (next ?? null) : null };
      });
      // The network hears of a changed data policy on the bundle job's next run (its outbox, policy_unsent).
      return result;
    },
  },
]);

/** The caller's SIM (path {id}, an ICCID) with its policy; 404 for a missing SIM or another organisation's. */
async function policyOf(req: FastifyRequest): Promise<PolicyRow> {
  const auth = req.requireAuth();
  const { id: iccid } = req.params as { id: string };
  const row = await policyByIccid(req.server.db, auth.orgId, iccid);
  if (!row) throw notFound('sim', iccid);
  return row;
}
