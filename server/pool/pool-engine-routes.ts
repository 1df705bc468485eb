/**
 * The shared pool calls of SPEC.md section 7 that the pool engine answers: settings (what the customer may
 * change: name, overage policy, opt-in mode; admins only, each change an event), quick search, one event's detail, and
 * the pool dashboard (`real_time_data`, `line_chart`, `bar_chart`, `sim_usage_rank`, `sims`), read from the pool's row
 * and rollups (pool_usage_daily, pool_members), never from CDRs.
 */
import type { FastifyRequest } from 'fastify';
import { translate } from '../../common/i18n.js';
import { ICCID_PATTERN } from '../../common/iccid.js';
import { LANGUAGES } from '../../common/limits.js';
import { appendEvents } from '../events/event-log.js';
import { invalid, notFound } from '../http/api-error.js';
import { audit } from '../http/audit.js';
import { defineRoutes, pathParams, type RouteDef } from '../http/route.js';
import { syncPolicies } from '../bundles/bundle-engine.js';
import type { Queryable } from '../db/db.js';
import { releaseStopped, stopOverSims } from './pool-engine.js';
import {
  cycleDays,
  dashboardPoolRow,
  insertManageSimsAdd,
  lastThirtyDays,
  lockSimsForPool,
  poolEvent,
  poolEventHistory,
  poolNameTaken,
  poolSettings,
  poolSimCount,
  poolSims,
  savePoolSettings,
  searchPools,
  setSimsPool,
  shareBands,
  stoppedSimCount,
  usageRank,
  type PoolRow,
} from './pool-repo.js';

const READ = { action: 'read', subject: 'shared-pool-cube' } as const;
const SETTINGS = { action: 'settings', subject: 'shared-pool-cube' } as const;

/** Field names of these calls in each language (their messages name the field). */
const LABELS = Object.fromEntries(
  LANGUAGES.map((lang) => [
    lang,
    Object.fromEntries(
      ['poolId', 'keyword', 'name', 'overagePolicy', 'optInMode', 'top', 'by', 'pageSize', 'cursor'].map((k) => [k, translate(lang, `fields.${k}`)]),
    ),
  ]),
);

const POOL_ID = { type: 'string', minLength: 1, maxLength: 40, pattern: '^[A-Za-z0-9]+$' };
const poolQuery = (extra: Record<string, object> = {}) => ({
  type: 'object',
  required: ['poolId'],
  additionalProperties: false,
  properties: { poolId: POOL_ID, ...extra },
});
const kb = { type: 'integer' };
const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };

const SETTINGS_SCHEMA = {
  type: 'object',
  properties: {
    id: str,
    name: str,
    overagePolicy: { type: 'string', enum: ['no_limit', 'stop_overage_sims'] },
    optInMode: { type: 'string', enum: ['automatic', 'manual'] },
    activationRule: { type: 'string', enum: ['standard', 'tenth', 'pro_rata'] },
    activationRuleSupported: { type: 'boolean' },
    updatedAt: str,
  },
};
const SETTINGS_BODY = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
    overagePolicy: { type: 'string', enum: ['no_limit', 'stop_overage_sims'] },
    optInMode: { type: 'string', enum: ['automatic', 'manual'] },
  },
};

async function poolOf(q: Queryable, orgId: string, id: string, lock = false): Promise<PoolRow> {
  const row = await poolSettings(q, orgId, id, lock);
  if (!row) throw notFound('pool', id);
  return row;
}

const settingsOf = (p: PoolRow) => ({
  id: p.id,
  name: p.name,
  overagePolicy: p.overage_policy,
  optInMode: p.opt_in_mode,
  activationRule: p.activation_rule,
  // "10th" is shown as not supported (SPEC.md section 9); such a pool counts as standard.
  activationRuleSupported: p.activation_rule !== 'tenth',
  updatedAt: new Date(p.updated_at).toISOString(),
});

/** The pool of the query, of the caller's organisation (404 otherwise, as for one that does not exist). */
async function dashboardPool(req: FastifyRequest) {
  const auth = req.requireAuth();
  const { poolId } = req.query as { poolId: string };
  const p = await dashboardPoolRow(req.server.db, auth.orgId, poolId);
  if (!p) throw notFound('pool', poolId);
  return { orgId: auth.orgId, p };
}

const dashboard = (path: string, querystring: object, response: object, handler: RouteDef['handler']): RouteDef => ({
  service: 'pool',
  method: 'GET',
  path: `/shared_pool/cube/dashboard/${path}`,
  permission: READ,
  labels: LABELS,
  schema: { querystring, response },
  handler,
});

export const poolEngineRoutes = defineRoutes([
  {
    service: 'pool',
    method: 'GET',
    path: '/shared_pool/cube/pools/quick_search',
    permission: READ,
    labels: LABELS,
    schema: {
      querystring: {
        type: 'object',
        required: ['keyword'],
        additionalProperties: false,
        properties: { keyword: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' } },
      },
      response: { type: 'array', items: { type: 'object', properties: { id: str, name: str, status: str, matchedIccid: nullableStr } } },
    },
    // A pool by its name (any part, any case), its id, or the ICCID of a SIM in it; ten at most, names first.
    handler: async (req) => {
      const auth = req.requireAuth();
      const keyword = (req.query as { keyword: string }).keyword.trim();
      const like = `%${keyword.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const rows = await searchPools(req.server.db, auth.orgId, like, keyword);
      return rows.map((r) => ({ id: r.id, name: r.name, status: r.status, matchedIccid: r.matched_iccid }));
    },
  },
  {
    service: 'pool',
    method: 'GET',
    path: '/shared_pool/cube/pools/:id/settings',
    permission: READ,
    schema: { params: pathParams('id'), response: SETTINGS_SCHEMA },
    handler: async (req) => settingsOf(await poolOf(req.server.db, req.requireAuth().orgId, (req.params as { id: string }).id)),
  },
  {
    service: 'pool',
    method: 'PUT',
    path: '/shared_pool/cube/pools/:id/settings',
    permission: SETTINGS,
    labels: LABELS,
    schema: { params: pathParams('id'), body: SETTINGS_BODY, response: SETTINGS_SCHEMA },
    // What the customer may change; each change an event (`pool/settings_change`) and an audit row. "No limit" releases
    // the SIMs the pool stopped now; "stop overage SIMs" in a cycle already over stops those over their share now.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const body = req.body as { name?: string; overagePolicy?: PoolRow['overage_policy']; optInMode?: PoolRow['opt_in_mode'] };
      const now = new Date();
      const { after, touched } = await req.server.db.tx(async (q) => {
        const before = await poolOf(q, auth.orgId, id, true);
        const next = {
          name: body.name?.trim() ?? before.name,
          overagePolicy: body.overagePolicy ?? before.overage_policy,
          optInMode: body.optInMode ?? before.opt_in_mode,
        };
        if (next.name.toLowerCase() !== before.name.toLowerCase() && (await poolNameTaken(q, auth.orgId, next.name, id))) throw invalid('name', 'unique');
        const changes = (
          [
            ['name', before.name, next.name],
            ['overagePolicy', before.overage_policy, next.overagePolicy],
            ['optInMode', before.opt_in_mode, next.optInMode],
          ] as const
        ).filter(([, from, to]) => from !== to);
        if (!changes.length) return { after: before, touched: 0 };
        await savePoolSettings(q, auth.orgId, id, next);
        await appendEvents(
          q,
          changes.map(([field, from, to]) => ({
            orgId: auth.orgId,
            type: 'pool' as const,
            subtype: 'settings_change',
            subject: id,
            data: { poolId: id, field, from, to, accountId: auth.accountId },
            at: now,
          })),
        );
        await audit(q, req, {
          action: 'pool_settings',
          entity: 'shared_pool',
          entityId: id,
          before: Object.fromEntries(changes.map(([f, from]) => [f, from])),
          after: Object.fromEntries(changes.map(([f, , to]) => [f, to])),
        });
        let n = 0;
        if (next.overagePolicy !== before.overage_policy) {
          n =
            next.overagePolicy === 'no_limit'
              ? await releaseStopped(q, auth.orgId, id, now, 'policy_no_limit')
              : before.overage_cycle === before.cycle_start
                ? await stopOverSims(q, auth.orgId, id, now)
                : 0;
        }
        return { after: await poolOf(q, auth.orgId, id), touched: n };
      });
      // The network is told after the commit (what it could not take stays queued for the jobs).
      if (touched)
        await syncPolicies(req.server.db, req.server.network, { limit: 1000 }).catch((err) => req.log.warn({ err }, 'pool settings: policies left queued'));
      return settingsOf(after);
    },
  },
  {
    service: 'pool',
    method: 'POST',
    path: '/shared_pool/cube/pools/:id/sims',
    permission: SETTINGS,
    labels: LABELS,
    schema: {
      params: pathParams('id'),
      body: {
        type: 'object',
        required: ['action', 'iccids'],
        additionalProperties: false,
        properties: {
          action: { type: 'string', enum: ['add', 'remove'] },
          iccids: {
            type: 'array',
            minItems: 1,
            maxItems: 1000,
            uniqueItems: true,
            items: { type: 'string', pattern: ICCID_PATTERN, minLength: 19, maxLength: 20 },
          },
        },
      },
      response: {
        type: 'object',
        properties: { changed: kb, unchanged: kb, inOtherPool: { type: 'array', items: str }, notFound: { type: 'array', items: str } },
      },
    },
    // Manage SIMs (SPEC.md section 3, "manage SIMs add"): SIMs of the organisation given to the pool or taken from it.
    // The job enrols those in service and lets go those taken (sim_enrolment / sim_exit); an add is a
    // `manage_sims_add` event (created, effected with the next daily recompute). A SIM of another pool is not moved.
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const { action, iccids } = req.body as { action: 'add' | 'remove'; iccids: string[] };
      return req.server.db.tx(async (q) => {
        await poolOf(q, auth.orgId, id, true);
        const sims = await lockSimsForPool(q, auth.orgId, iccids);
        const found = new Set(sims.map((x) => x.iccid));
        const target = action === 'add' ? sims.filter((x) => x.pool_id === null) : sims.filter((x) => x.pool_id === id);
        const inOtherPool = action === 'add' ? sims.filter((x) => x.pool_id !== null && x.pool_id !== id).map((x) => x.iccid) : [];
        if (target.length) {
          await setSimsPool(
            q,
            auth.orgId,
            target.map((x) => x.id),
            action === 'add' ? id : null,
          );
          if (action === 'add')
            await insertManageSimsAdd(
              q,
              auth.orgId,
              id,
              target.map((x) => x.iccid),
              auth.accountId,
            );
          await audit(q, req, {
            action: action === 'add' ? 'pool_sims_add' : 'pool_sims_remove',
            entity: 'shared_pool',
            entityId: id,
            after: { iccids: target.map((x) => x.iccid) },
          });
        }
        return {
          changed: target.length,
          unchanged: sims.length - target.length - inOtherPool.length,
          inOtherPool,
          notFound: iccids.filter((x) => !found.has(x)),
        };
      });
    },
  },
  {
    service: 'pool',
    method: 'GET',
    path: '/shared_pool/cube/events/:id/detail',
    permission: READ,
    schema: {
      params: {
        type: 'object',
        required: ['id'],
        additionalProperties: false,
        properties: { id: { type: 'string', minLength: 1, maxLength: 18, pattern: '^[0-9]+$' } },
      },
      response: {
        type: 'object',
        properties: {
          id: str,
          poolId: str,
          poolName: str,
          type: str,
          state: str,
          simCount: { type: ['integer', 'null'] },
          limitKb: { type: ['integer', 'null'] },
          detail: { type: 'object', additionalProperties: true },
          accountEmail: nullableStr,
          at: str,
          effectiveAt: nullableStr,
          // The event log's records of it: created, then effected or modified.
          history: { type: 'array', items: { type: 'object', properties: { state: str, at: str } } },
        },
      },
    },
    handler: async (req) => {
      const auth = req.requireAuth();
      const { id } = req.params as { id: string };
      const e = await poolEvent(req.server.db, auth.orgId, id);
      if (!e) throw notFound('record', id);
      const history = await poolEventHistory(req.server.db, auth.orgId, e.pool_id, e.id);
      return {
        id: e.id,
        poolId: e.pool_id,
        poolName: e.pool_name,
        type: e.type,
        state: e.state,
        simCount: e.sim_count,
        limitKb: e.limit_kb === null ? null : Number(e.limit_kb),
        detail: e.detail,
        accountEmail: e.email,
        at: new Date(e.at).toISOString(),
        effectiveAt: e.effective_at ? new Date(e.effective_at).toISOString() : null,
        history: history.map((h) => ({ state: h.state, at: new Date(h.at).toISOString() })),
      };
    },
  },
  dashboard(
    'real_time_data',
    poolQuery(),
    {
      type: 'object',
      properties: {
        poolId: str,
        name: str,
        usageKb: kb,
        limitKb: kb,
        percent: { type: 'number' },
        activatedSims: kb,
        totalSims: kb,
        stoppedSims: kb,
        cycleStart: str,
        cycleEnd: str,
        cycleLastDay: str,
        overage: { type: 'boolean' },
        overageAt: nullableStr,
        overagePolicy: str,
        baseBundleKb: kb,
        activationRule: str,
        updatedAt: str,
      },
    },
    // The pool's usage now against its limit (both kept as usage arrives and by the daily recompute).
    async (req) => {
      const { orgId, p } = await dashboardPool(req);
      const stopped = await stoppedSimCount(req.server.db, orgId, p.id);
      const usage = Number(p.usage_kb);
      const limit = Number(p.limit_kb);
      return {
        poolId: p.id,
        name: p.name,
        usageKb: usage,
        limitKb: limit,
        percent: limit > 0 ? Math.round((usage / limit) * 1000) / 10 : usage > 0 ? 100 : 0,
        activatedSims: p.activated_sims,
        totalSims: p.total_sims,
        stoppedSims: stopped,
        cycleStart: p.cycle_start,
        cycleEnd: p.cycle_end,
        cycleLastDay: p.cycle_last_day,
        overage: p.overage_cycle === p.cycle_start,
        overageAt: p.overage_cycle === p.cycle_start && p.overage_at ? new Date(p.overage_at).toISOString() : null,
        overagePolicy: p.overage_policy,
        baseBundleKb: Number(p.base_bundle_kb),
        activationRule: p.activation_rule,
        updatedAt: new Date(p.updated_at).toISOString(),
      };
    },
  ),
  dashboard(
    'line_chart',
    poolQuery(),
    {
      type: 'object',
      properties: {
        cycleStart: str,
        cycleEnd: str,
        limitKb: kb,
        points: { type: 'array', items: { type: 'object', properties: { day: str, usageKb: kb, cumulativeKb: kb } } },
      },
    },
    // Usage over the cycle: each UTC day of it so far, with the running total against the limit.
    async (req) => {
      const { orgId, p } = await dashboardPool(req);
      const rows = await cycleDays(req.server.db, orgId, p);
      let sum = 0;
      return {
        cycleStart: p.cycle_start,
        cycleEnd: p.cycle_end,
        limitKb: Number(p.limit_kb),
        points: rows.map((r) => ({ day: r.day, usageKb: Number(r.kb), cumulativeKb: (sum += Number(r.kb)) })),
      };
    },
  ),
  dashboard(
    'bar_chart',
    poolQuery({ by: { type: 'string', enum: ['day', 'group'], default: 'day' } }),
    { type: 'object', properties: { by: str, bars: { type: 'array', items: { type: 'object', properties: { key: str, usageKb: kb, sims: kb } } } } },
    // by=day: each of the last 30 UTC days (SIMs that used data that day); by=group: the SIMs grouped by how much of
    // their share they used this cycle (none, under 50 %, 50-100 %, over it).
    async (req) => {
      const { orgId, p } = await dashboardPool(req);
      const by = (req.query as { by?: 'day' | 'group' }).by ?? 'day';
      if (by === 'day') {
        const rows = await lastThirtyDays(req.server.db, orgId, p.id);
        return { by, bars: rows.map((r) => ({ key: r.day, usageKb: Number(r.kb), sims: r.sims })) };
      }
      const rows = await shareBands(req.server.db, orgId, p);
      return {
        by,
        bars: ['none', 'under_half', 'under_share', 'over_share'].map((key) => ({
          key,
          usageKb: Number(rows.find((r) => r.band === key)?.kb ?? 0),
          sims: rows.find((r) => r.band === key)?.sims ?? 0,
        })),
      };
    },
  ),
  dashboard(
    'sim_usage_rank',
    poolQuery({ top: { type: 'integer', minimum: 1, maximum: 50, default: 10 } }),
    {
      type: 'array',
      items: { type: 'object', properties: { iccid: str, usageKb: kb, sharePercent: { type: 'number' }, stopped: { type: 'boolean' }, status: str } },
    },
    // The SIMs that used most of the pool this cycle (pool_members_rank_idx).
    async (req) => {
      const { orgId, p } = await dashboardPool(req);
      const top = (req.query as { top?: number }).top ?? 10;
      const rows = await usageRank(req.server.db, orgId, p, top);
      return rows.map((r) => ({
        iccid: r.iccid,
        usageKb: Number(r.kb),
        sharePercent: Number(r.share) > 0 ? Math.round((Number(r.kb) / Number(r.share)) * 1000) / 10 : 0,
        stopped: r.stopped,
        status: r.status,
      }));
    },
  ),
  dashboard(
    'sims',
    poolQuery({
      pageSize: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      cursor: { type: 'string', minLength: 1, maxLength: 20, pattern: ICCID_PATTERN },
    }),
    {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { iccid: str, status: str, joinedAt: str, usageKb: kb, stopped: { type: 'boolean' }, enrolled: { type: 'boolean' } },
          },
        },
        total: kb,
        nextCursor: nullableStr,
      },
    },
    // The pool's SIMs by ICCID (keyset): in service and enrolled, or belonging to it before their activation.
    async (req) => {
      const { orgId, p } = await dashboardPool(req);
      const { pageSize = 20, cursor } = req.query as { pageSize?: number; cursor?: string };
      const rows = await poolSims(req.server.db, orgId, p.id, cursor ?? null, pageSize + 1);
      const total = await poolSimCount(req.server.db, orgId, p.id);
      const page = rows.slice(0, pageSize);
      return {
        items: page.map((r) => ({
          iccid: r.iccid,
          status: r.status,
          joinedAt: r.joined_at ? new Date(r.joined_at).toISOString() : '',
          usageKb: Number(r.kb ?? 0),
          stopped: r.stopped,
          enrolled: r.enrolled,
        })),
        total,
        nextCursor: rows.length > pageSize ? page[page.length - 1].iccid : null,
      };
    },
  ),
]);
