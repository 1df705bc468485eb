/**
 * The SQL of shared pools on the data-pool API (SPEC.md sections 3 and 7): a pool's row and settings, its
 * SIMs, its events, and the dashboard's readings from the pool's row and rollups (pool_usage_daily, pool_members),
 * never from CDRs. Every query names the organisation first.
 */
import { RESOURCES } from '../../common/resource-registry.js';
import type { Queryable } from '../db/db.js';
import { selectOf } from '../schema/schema-repo.js';

const POOL_SELECT = selectOf(RESOURCES.pools);

/** A pool as the API answers it (schemas/pools.json). */
export async function poolRecord(q: Queryable, orgId: string, id: string) {
  return (await q.query(`${POOL_SELECT} WHERE t.org_id = $1 AND t.id = $2`, [orgId, id])).rows[0];
}

/** Every pool of an organisation as the API answers it, by name (an organisation has a handful; no page needed). */
export async function poolsOfOrg(q: Queryable, orgId: string) {
  return (await q.query(`${POOL_SELECT} WHERE t.org_id = $1 ORDER BY t.name, t.id`, [orgId])).rows;
}

/** A pool's name, its row locked for the transaction; undefined for no such pool of the organisation. */
export async function lockPoolName(q: Queryable, orgId: string, id: string) {
  return (await q.query<{ name: string }>('SELECT name FROM shared_pools WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id])).rows[0];
}

/** Whether another pool of the organisation has this name, whatever its case. */
export async function poolNameTaken(q: Queryable, orgId: string, name: string, exceptId: string): Promise<boolean> {
  return (await q.query('SELECT 1 FROM shared_pools WHERE org_id = $1 AND lower(name) = lower($2) AND id <> $3', [orgId, name, exceptId])).rows.length > 0;
}

/** Rename a pool. */
export async function renamePool(q: Queryable, orgId: string, id: string, name: string): Promise<void> {
  await q.query('UPDATE shared_pools SET name = $3, updated_at = now() WHERE org_id = $1 AND id = $2', [orgId, id, name]);
}

/** A pool's settings and the bounds of its cycle. */
export interface PoolRow {
  id: string;
  name: string;
  overage_policy: 'no_limit' | 'stop_overage_sims';
  opt_in_mode: 'automatic' | 'manual';
  activation_rule: string;
  updated_at: Date;
  overage_cycle: string | null;
  cycle_start: string;
}

/** A pool's settings (locked for the transaction when `lock`); undefined for no such pool of the organisation. */
export async function poolSettings(q: Queryable, orgId: string, id: string, lock = false): Promise<PoolRow | undefined> {
  return (
    await q.query<PoolRow>(
      `SELECT id, name, overage_policy, opt_in_mode, activation_rule, updated_at, overage_cycle::text, cycle_start::text FROM shared_pools WHERE org_id = $1 AND id = $2 ${lock ? 'FOR UPDATE' : ''}`,
      [orgId, id],
    )
  ).rows[0];
}

/** Save what the customer may change of a pool. */
export async function savePoolSettings(q: Queryable, orgId: string, id: string, s: { name: string; overagePolicy: string; optInMode: string }): Promise<void> {
  await q.query('UPDATE shared_pools SET name = $3, overage_policy = $4, opt_in_mode = $5, updated_at = now() WHERE org_id = $1 AND id = $2', [
    orgId,
    id,
    s.name,
    s.overagePolicy,
    s.optInMode,
  ]);
}

/** Pools by name (any part, as a LIKE pattern), id, or the ICCID of a SIM in one; ten at most, names first. */
export async function searchPools(q: Queryable, orgId: string, like: string, keyword: string) {
  return (
    await q.query<{ id: string; name: string; status: string; matched_iccid: string | null }>(
      `(SELECT id, name, status, NULL::text AS matched_iccid, 0 AS o FROM shared_pools WHERE org_id = $1 AND (lower(name) LIKE $2 OR id = $3) ORDER BY lower(name), id LIMIT 10)
       UNION ALL
       (SELECT p.id, p.name, p.status, s.iccid, 1 FROM sims s JOIN shared_pools p ON p.org_id = s.org_id AND p.id = s.pool_id
         WHERE s.org_id = $1 AND s.iccid = $3 LIMIT 1)
       ORDER BY o LIMIT 10`,
      [orgId, like, keyword],
    )
  ).rows;
}

/** The organisation's SIMs among iccids with their pool, locked for the transaction. */
export async function lockSimsForPool(q: Queryable, orgId: string, iccids: string[]) {
  return (
    await q.query<{ id: string; iccid: string; pool_id: string | null }>(
      'SELECT id, iccid, pool_id FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[]) FOR UPDATE',
      [orgId, iccids],
    )
  ).rows;
}

/** Give SIMs to a pool (or take them from any: poolId null). */
export async function setSimsPool(q: Queryable, orgId: string, simIds: string[], poolId: string | null): Promise<void> {
  await q.query('UPDATE sims SET pool_id = $3, updated_at = now() WHERE org_id = $1 AND id = ANY($2::text[])', [orgId, simIds, poolId]);
}

/** A `manage_sims_add` pool event (created; effected with the next daily recompute), naming up to 100 of the SIMs. */
export async function insertManageSimsAdd(q: Queryable, orgId: string, poolId: string, iccids: string[], accountId: string): Promise<void> {
  await q.query(
    `INSERT INTO pool_events (org_id, pool_id, type, state, sim_count, detail, account_id) VALUES ($1, $2, 'manage_sims_add', 'created', $3, $4::jsonb, $5)`,
    [orgId, poolId, iccids.length, JSON.stringify({ iccids: iccids.slice(0, 100) }), accountId],
  );
}

/** One pool event with its pool's name and who made it; undefined for another organisation's. */
export async function poolEvent(q: Queryable, orgId: string, id: string) {
  return (
    await q.query<{
      id: string;
      pool_id: string;
      pool_name: string;
      type: string;
      state: string;
      sim_count: number | null;
      limit_kb: string | null;
      detail: Record<string, unknown>;
      email: string | null;
      at: Date;
      effective_at: Date | null;
    }>(
      `SELECT e.id::text, e.pool_id, p.name AS pool_name, e.type, e.state, e.sim_count, e.limit_kb, e.detail, a.email, e.at, e.effective_at
         FROM pool_events e JOIN shared_pools p ON p.org_id = e.org_id AND p.id = e.pool_id LEFT JOIN accounts a ON a.id = e.account_id
        WHERE e.org_id = $1 AND e.id = $2::bigint`,
      [orgId, id],
    )
  ).rows[0];
}

/** The event log's records of a pool event: created, then effected or modified. */
export async function poolEventHistory(q: Queryable, orgId: string, poolId: string, eventId: string) {
  return (
    await q.query<{ state: string; at: Date }>(
      `SELECT data->>'state' AS state, at FROM events WHERE org_id = $1 AND type = 'pool' AND subject = $2 AND data->>'eventId' = $3 ORDER BY id`,
      [orgId, poolId, eventId],
    )
  ).rows;
}

/** A pool as its dashboard reads it. */
export interface DashboardPool {
  id: string;
  name: string;
  usage_kb: string;
  limit_kb: string;
  activated_sims: number;
  total_sims: number;
  cycle_start: string;
  cycle_end: string;
  cycle_last_day: string;
  overage_cycle: string | null;
  overage_at: Date | null;
  overage_policy: string;
  base_bundle_kb: string;
  activation_rule: string;
  updated_at: Date;
}

/** A pool's row for its dashboard; undefined for no such pool of the organisation. */
export async function dashboardPoolRow(q: Queryable, orgId: string, id: string): Promise<DashboardPool | undefined> {
  return (
    await q.query<DashboardPool>(
      `SELECT id, name, usage_kb, limit_kb, activated_sims, total_sims, cycle_start::text, cycle_end::text, cycle_last_day::text, overage_cycle::text, overage_at, overage_policy, base_bundle_kb,
              activation_rule, updated_at FROM shared_pools WHERE org_id = $1 AND id = $2`,
      [orgId, id],
    )
  ).rows[0];
}

/** How many of a pool's SIMs it stopped. */
export async function stoppedSimCount(q: Queryable, orgId: string, poolId: string): Promise<number> {
  return (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM sims WHERE org_id = $1 AND pool_id = $2 AND pool_stopped', [orgId, poolId])).rows[0].n;
}

/** How many SIMs belong to a pool. */
export async function poolSimCount(q: Queryable, orgId: string, poolId: string): Promise<number> {
  return (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM sims WHERE org_id = $1 AND pool_id = $2', [orgId, poolId])).rows[0].n;
}

/** A pool's use on each UTC day of its cycle so far. */
export async function cycleDays(q: Queryable, orgId: string, p: DashboardPool) {
  return (
    await q.query<{ day: string; kb: string }>(
      `SELECT d::date::text AS day, coalesce(u.volume_kb, 0) AS kb
         FROM generate_series($3::date, least($4::date - 1, greatest($3::date, (now() AT TIME ZONE 'UTC')::date)), interval '1 day') d
         LEFT JOIN pool_usage_daily u ON u.org_id = $1 AND u.pool_id = $2 AND u.day = d::date ORDER BY d`,
      [orgId, p.id, p.cycle_start, p.cycle_end],
    )
  ).rows;
}

/** A pool's use on each of the last 30 UTC days, with how many SIMs used data that day. */
export async function lastThirtyDays(q: Queryable, orgId: string, poolId: string) {
  return (
    await q.query<{ day: string; kb: string; sims: number }>(
      `SELECT d::date::text AS day, coalesce(u.volume_kb, 0) AS kb, coalesce(u.sims, 0) AS sims
         FROM generate_series((now() AT TIME ZONE 'UTC')::date - 29, (now() AT TIME ZONE 'UTC')::date, interval '1 day') d
         LEFT JOIN pool_usage_daily u ON u.org_id = $1 AND u.pool_id = $2 AND u.day = d::date ORDER BY d`,
      [orgId, poolId],
    )
  ).rows;
}

/** A pool's members grouped by how much of their share they used this cycle (none, under half, up to it, over it). */
export async function shareBands(q: Queryable, orgId: string, p: DashboardPool) {
  return (
    await q.query<{ band: string; kb: string; sims: number }>(
      `SELECT CASE WHEN m.cycle_usage_kb = 0 THEN 'none' WHEN m.cycle_usage_kb * 2 < $3::bigint THEN 'under_half'
                   WHEN m.cycle_usage_kb <= $3::bigint THEN 'under_share' ELSE 'over_share' END AS band, sum(m.cycle_usage_kb) AS kb, count(*)::int AS sims
         FROM pool_members m WHERE m.org_id = $1 AND m.pool_id = $2 AND m.left_at IS NULL GROUP BY 1`,
      [orgId, p.id, p.base_bundle_kb],
    )
  ).rows;
}

/** The `top` members that used most of the pool this cycle, each with its share (pool_members_rank_idx). */
export async function usageRank(q: Queryable, orgId: string, p: DashboardPool, top: number) {
  return (
    await q.query<{ iccid: string; kb: string; stopped: boolean; status: string; share: string }>(
      `SELECT m.iccid, m.cycle_usage_kb AS kb, s.pool_stopped AS stopped, s.status, pool_share_kb($4, $5::bigint, s.activated_at, $6::date, $7::date) AS share
         FROM pool_members m JOIN sims s ON s.org_id = m.org_id AND s.id = m.sim_id
        WHERE m.org_id = $1 AND m.pool_id = $2 AND m.left_at IS NULL ORDER BY m.cycle_usage_kb DESC, m.sim_id LIMIT $3`,
      [orgId, p.id, top, p.activation_rule, p.base_bundle_kb, p.cycle_start, p.cycle_end],
    )
  ).rows;
}

/** The pool's SIMs by ICCID after `cursor` (keyset), `limit` of them, with their membership now. */
export async function poolSims(q: Queryable, orgId: string, poolId: string, cursor: string | null, limit: number) {
  return (
    await q.query<{ iccid: string; status: string; joined_at: Date | null; kb: string | null; stopped: boolean; enrolled: boolean }>(
      `SELECT s.iccid, s.status, m.joined_at, m.cycle_usage_kb AS kb, s.pool_stopped AS stopped, s.pool_enrolled_in IS NOT NULL AS enrolled
         FROM sims s LEFT JOIN pool_members m ON m.org_id = s.org_id AND m.pool_id = s.pool_id AND m.sim_id = s.id AND m.left_at IS NULL
        WHERE s.org_id = $1 AND s.pool_id = $2 AND ($3::text IS NULL OR s.iccid > $3) ORDER BY s.iccid LIMIT $4`,
      [orgId, poolId, cursor, limit],
    )
  ).rows;
}
