/**
 * Shared pools that act (SPEC.md sections 3 and 9; docs/decisions.md "The pool engine"). The SQL
 * is 035_pool_engine.sql; this module applies the rules set-based, each change an event appended in its transaction
 * (pool_events rows become log events by trigger):
 *
 * - recordPoolUsage: a CDR of an enrolled SIM counts in its pool's cycle (from the CDR writer, same transaction); the
 *   pool passing its limit is its one overage event of the cycle; under "stop overage SIMs" the SIM is stopped once it
 *   has used more than its share.
 * - rollPools: a pool's cycle (the calendar month, UTC) ends: usage starts again from the rollups of the new cycle, the
 *   stopped SIMs are released, an overage of the old cycle recovers (`overage_recovery`); a pending pool launches on
 *   the first of the month after it was set up (`new_pool_launch`).
 * - moveMembers: SIMs of a pool that came into service are enrolled, enrolled ones that left service or the pool exit
 *   (`sim_enrolment`, `sim_exit`, created); under automatic opt-in, SIMs on the pool's bundle join it (daily).
 * - recomputeLimits: once a UTC day, pool size = activated SIMs × bundle size (pro-rata: from the activation day),
 *   `limit_increase`/`limit_decrease`, the day's enrolments and exits effected, a `scheduled_scan`.
 * - enforceOverage: a limit lowered under the usage is an overage too; under "stop overage SIMs" the SIMs over their
 *   share are stopped (what a CDR's transaction did not stop itself); the network is told by syncPolicies.
 *
 * runPoolJob runs them under a lease, once across instances.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../db/db.js';
import { claimJob, markJobRun, startLeasedJob } from '../job/periodic.js';
import { syncAllPolicies } from '../bundles/bundle-engine.js';
import type { NetworkAdapter } from '../network/adapter.js';

export const POOL_JOB = 'pool_engine';
/** SIMs enrolled, let go or stopped per statement. */
export const POOL_BATCH = 50_000;

const day = (at: Date) => at.toISOString().slice(0, 10);

/**
 * A CDR of `sim` (a SIM of pool `poolId`) carried `kb` on UTC day `cdrDay`: counted in the pool's cycle when the SIM is
 * enrolled and the day is in the cycle (a CDR of a day after the cycle is counted when the pool rolls, from the
 * rollups), always in the pool's daily rollup. Returns whether the SIM's data policy changed (stopped).
 */
export async function recordPoolUsage(
  q: Queryable,
  sim: { orgId: string; simId: string; iccid: string },
  poolId: string,
  kb: number,
  cdrDay: string,
  at: Date,
): Promise<boolean> {
  const m = (
    await q.query<{ counted: boolean; usage: string; first_today: boolean }>(
      `WITH p AS (SELECT cycle_start, cycle_end FROM shared_pools WHERE org_id = $1 AND id = $2)
       UPDATE pool_members m SET cycle_usage_kb = m.cycle_usage_kb + CASE WHEN $4::date >= p.cycle_start AND $4::date < p.cycle_end THEN $5::bigint ELSE 0 END
         FROM p WHERE m.org_id = $1 AND m.pool_id = $2 AND m.sim_id = $3 AND m.left_at IS NULL
       RETURNING $4::date >= p.cycle_start AND $4::date < p.cycle_end AS counted, m.cycle_usage_kb AS usage,
                 (SELECT cdr_count = 1 FROM usage_daily u WHERE u.org_id = $1 AND u.sim_id = $3 AND u.day = $4::date) AS first_today`,
      [sim.orgId, poolId, sim.simId, cdrDay, kb],
    )
  ).rows[0];
  if (!m) return false;
  await q.query(
    `INSERT INTO pool_usage_daily (org_id, pool_id, day, volume_kb, sims) VALUES ($1, $2, $3::date, $4, $5)
     ON CONFLICT (org_id, pool_id, day) DO UPDATE SET volume_kb = pool_usage_daily.volume_kb + EXCLUDED.volume_kb, sims = pool_usage_daily.sims + EXCLUDED.sims`,
    [sim.orgId, poolId, cdrDay, kb, m.first_today ? 1 : 0],
  );
  if (!m.counted) return false;
  // The pool's row: its usage, and the crossing of its limit, once per cycle whoever records it (the row lock orders them).
  const p = (
    await q.query<{ newly: boolean; over: boolean; usage_kb: string; limit_kb: string; cycle_start: string; overage_policy: string; share: string }>(
      `WITH old AS (SELECT id, overage_cycle FROM shared_pools WHERE org_id = $1 AND id = $2 FOR UPDATE)
       UPDATE shared_pools p SET usage_kb = p.usage_kb + $3,
              overage_cycle = CASE WHEN p.usage_kb + $3 > p.limit_kb AND p.limit_computed_on IS NOT NULL THEN p.cycle_start ELSE p.overage_cycle END,
              overage_at = CASE WHEN p.usage_kb + $3 > p.limit_kb AND p.limit_computed_on IS NOT NULL AND p.overage_cycle IS DISTINCT FROM p.cycle_start THEN $4::timestamptz ELSE p.overage_at END,
              updated_at = now()
         FROM old WHERE p.org_id = $1 AND p.id = old.id
       RETURNING p.usage_kb > p.limit_kb AND p.limit_computed_on IS NOT NULL AND old.overage_cycle IS DISTINCT FROM p.cycle_start AS newly, p.overage_cycle = p.cycle_start AS over,
                 p.usage_kb, p.limit_kb, p.cycle_start::text, p.overage_policy,
                 pool_share_kb(p.activation_rule, p.base_bundle_kb, (SELECT activated_at FROM sims WHERE org_id = $1 AND id = $5), p.cycle_start, p.cycle_end) AS share`,
      [sim.orgId, poolId, kb, at.toISOString(), sim.simId],
    )
  ).rows[0];
  if (!p) return false;
  if (p.newly) {
    await q.query(
      `INSERT INTO pool_events (org_id, pool_id, type, state, limit_kb, detail, at, effective_at) VALUES ($1, $2, 'overage', 'effected', $3, $4::jsonb, $5, $5)`,
      [
        sim.orgId,
        poolId,
        p.limit_kb,
        JSON.stringify({ usageKb: Number(p.usage_kb), limitKb: Number(p.limit_kb), cycleStart: p.cycle_start, policy: p.overage_policy, iccid: sim.iccid }),
        at.toISOString(),
      ],
    );
  }
  if (!p.over || p.overage_policy !== 'stop_overage_sims' || Number(m.usage) <= Number(p.share)) return false;
  return (await stopOverSims(q, sim.orgId, poolId, at, { simId: sim.simId })) > 0;
}

/**
 * Stop the enrolled SIMs of a pool in overage that used more than their share (or only `simId`): data barred through
 * the pool's cause of the data policy, queued for the network; a `usage/pool_stopped` event each. Rows another
 * transaction holds are skipped when `skipLocked` (the job: they are stopped by their own CDR or the next run).
 */
export async function stopOverSims(
  q: Queryable,
  orgId: string,
  poolId: string,
  at: Date,
  opts: { simId?: string; skipLocked?: boolean } = {},
): Promise<number> {
  const r = await q.query<{ n: string }>(
    `WITH p AS (SELECT activation_rule, base_bundle_kb, cycle_start, cycle_end FROM shared_pools WHERE org_id = $1 AND id = $2),
     over AS (
       SELECT s.org_id, s.id, m.cycle_usage_kb AS usage FROM pool_members m JOIN sims s ON s.org_id = m.org_id AND s.id = m.sim_id, p
        WHERE m.org_id = $1 AND m.pool_id = $2 AND m.left_at IS NULL AND NOT s.pool_stopped AND ($4::text IS NULL OR s.id = $4)
          AND m.cycle_usage_kb > pool_share_kb(p.activation_rule, p.base_bundle_kb, s.activated_at, p.cycle_start, p.cycle_end)
        ORDER BY s.id LIMIT ${POOL_BATCH} FOR UPDATE OF s ${opts.skipLocked ? 'SKIP LOCKED' : ''}),
     stopped AS (
       UPDATE sims s SET pool_stopped = true, flow_control_policy = 'stop', policy_unsent = s.policy_unsent OR s.flow_control_policy <> 'stop',
              flow_control_at = CASE WHEN s.flow_control_policy <> 'stop' THEN $3::timestamptz ELSE s.flow_control_at END, updated_at = now()
         FROM over o WHERE s.id = ANY (ARRAY(SELECT id FROM over)) AND s.org_id = o.org_id AND s.id = o.id
       RETURNING s.id, s.iccid, o.usage),
     members AS (UPDATE pool_members m SET stopped = true WHERE m.org_id = $1 AND m.pool_id = $2 AND m.left_at IS NULL AND m.sim_id = ANY (ARRAY(SELECT id FROM stopped))),
     logged AS (
       INSERT INTO events (org_id, type, subtype, subject, data, at)
       SELECT $1, 'usage', 'pool_stopped', iccid, jsonb_build_object('iccid', iccid, 'poolId', $2::text, 'usageKb', usage, 'reason', 'stop_overage_sims'), $3::timestamptz FROM stopped)
     SELECT count(*)::text AS n FROM stopped`,
    [orgId, poolId, at.toISOString(), opts.simId ?? null],
  );
  return Number(r.rows[0].n);
}

/** Release a pool's stopped SIMs (its next cycle, a policy changed to no limit, or an exit): a `usage/pool_released` event each. */
export async function releaseStopped(q: Queryable, orgId: string, poolId: string, at: Date, reason: string, simIds?: string[]): Promise<number> {
  const r = await q.query<{ n: string }>(
    `WITH released AS (
       UPDATE sims s SET pool_stopped = false, flow_control_policy = flow_control_of(s.coverage_barred, s.overage_control, s.rule_control),
              policy_unsent = s.policy_unsent OR s.flow_control_policy <> flow_control_of(s.coverage_barred, s.overage_control, s.rule_control),
              flow_control_at = CASE WHEN s.flow_control_policy <> flow_control_of(s.coverage_barred, s.overage_control, s.rule_control) THEN $3::timestamptz ELSE s.flow_control_at END,
              updated_at = now()
        WHERE s.org_id = $1 AND s.pool_stopped AND ($5::text[] IS NULL OR s.id = ANY($5::text[]))
          AND (s.pool_id = $2 OR EXISTS (SELECT 1 FROM pool_members m WHERE m.org_id = $1 AND m.pool_id = $2 AND m.sim_id = s.id))
       RETURNING s.id, s.iccid),
     members AS (UPDATE pool_members m SET stopped = false WHERE m.org_id = $1 AND m.pool_id = $2 AND m.stopped AND m.sim_id = ANY (ARRAY(SELECT id FROM released))),
     logged AS (
       INSERT INTO events (org_id, type, subtype, subject, data, at)
       SELECT $1, 'usage', 'pool_released', iccid, jsonb_build_object('iccid', iccid, 'poolId', $2::text, 'reason', $4::text), $3::timestamptz FROM released)
     SELECT count(*)::text AS n FROM released`,
    [orgId, poolId, at.toISOString(), reason, simIds ?? null],
  );
  return Number(r.rows[0].n);
}

interface DuePool {
  org_id: string;
  id: string;
  cycle_start: string;
  cycle_end: string;
  overage_cycle: string | null;
  usage_kb: string;
  limit_kb: string;
}

/**
 * Pools whose cycle ended by `now` start the cycle `now` is in (calendar months, UTC), one pool per transaction: the
 * SIMs it stopped released first (the lock order of a CDR's transaction: SIMs, members, pool), the members' and the
 * pool's usage taken from the rollups of the new cycle's days, an overage of the old cycle recovered. A pending pool
 * launches on its first day. Returns the pools rolled.
 */
export async function rollPools(db: Db, now: Date): Promise<number> {
  const today = day(now);
  const due = (
    await db.query<DuePool>(
      `SELECT org_id, id, cycle_start::text, cycle_end::text, overage_cycle::text, usage_kb, limit_kb FROM shared_pools WHERE cycle_end <= $1::date AND status <> 'closed' ORDER BY cycle_end, id`,
      [today],
    )
  ).rows;
  let rolled = 0;
  for (const p of due) {
    await db.tx(async (q) => {
      const start = `${today.slice(0, 7)}-01`;
      await releaseStopped(q, p.org_id, p.id, new Date(`${start}T00:00:00Z`), 'cycle_reset');
      await q.query(`UPDATE pool_members SET cycle_usage_kb = 0 WHERE org_id = $1 AND pool_id = $2 AND left_at IS NULL AND cycle_usage_kb <> 0`, [
        p.org_id,
        p.id,
      ]);
      await q.query(
        `UPDATE pool_members m SET cycle_usage_kb = u.kb
           FROM (SELECT sim_id, sum(volume_kb) AS kb FROM usage_daily WHERE org_id = $1 AND day >= $3::date GROUP BY sim_id) u
          WHERE m.org_id = $1 AND m.pool_id = $2 AND m.left_at IS NULL AND m.sim_id = u.sim_id`,
        [p.org_id, p.id, start],
      );
      const r = await q.query(
        `UPDATE shared_pools p SET cycle_start = $3::date, cycle_end = ($3::date + interval '1 month')::date, overage_at = NULL,
                usage_kb = coalesce((SELECT sum(cycle_usage_kb) FROM pool_members m WHERE m.org_id = $1 AND m.pool_id = $2 AND m.left_at IS NULL), 0),
                status = CASE WHEN p.status = 'pending' AND p.effective_from <= $3::date THEN 'active' ELSE p.status END, updated_at = now()
          WHERE p.org_id = $1 AND p.id = $2 AND p.cycle_end = $4::date`,
        [p.org_id, p.id, start, p.cycle_end],
      );
      if (!r.rowCount) return;
      rolled++;
      if (p.overage_cycle === p.cycle_start) {
        await q.query(
          `INSERT INTO pool_events (org_id, pool_id, type, state, limit_kb, detail, at, effective_at) VALUES ($1, $2, 'overage_recovery', 'effected', $3, $4::jsonb, $5, $5)`,
          [
            p.org_id,
            p.id,
            p.limit_kb,
            JSON.stringify({ previousCycleStart: p.cycle_start, previousUsageKb: Number(p.usage_kb), cycleStart: start }),
            `${start}T00:00:00Z`,
          ],
        );
      }
    });
  }
  // A pending pool takes effect on the first of the month (its effective_from).
  await db.query(
    `WITH launched AS (UPDATE shared_pools SET status = 'active', updated_at = now() WHERE status = 'pending' AND effective_from <= $1::date RETURNING org_id, id, limit_kb, effective_from)
     INSERT INTO pool_events (org_id, pool_id, type, state, limit_kb, at, effective_at)
     SELECT org_id, id, 'new_pool_launch', 'effected', limit_kb, $2::timestamptz, effective_from::timestamp AT TIME ZONE 'UTC' FROM launched`,
    [today, now.toISOString()],
  );
  return rolled;
}

/**
 * Enrolments and exits: a SIM of a pool in service that is not enrolled is (its share counts from the next daily
 * recompute, when its `sim_enrolment` event, created now, takes effect); an enrolled SIM that left service or its pool
 * exits (`sim_exit`, created; an enrolment not yet effected is marked modified), released if the pool had stopped it.
 * `optIn`: SIMs in service on an automatic pool's bundle that belong to no pool join it first (the daily pass).
 */
export async function moveMembers(q: Queryable, now: Date, opts: { optIn?: boolean } = {}): Promise<{ enrolled: number; exited: number; joined: number }> {
  const at = now.toISOString();
  let joined = 0;
  if (opts.optIn) {
    joined =
      (
        await q.query(
          `WITH pick AS (
           SELECT DISTINCT ON (s.org_id, s.id) s.org_id, s.id, p.id AS pool_id
             FROM shared_pools p
             JOIN bundle_orders b ON b.org_id = p.org_id AND b.sku = p.bundle_sku AND b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST'
             JOIN sims s ON s.org_id = b.org_id AND s.id = b.sim_id AND s.pool_id IS NULL AND s.pool_enrolled_in IS NULL AND s.status IN ('active', 'paused')
            WHERE p.opt_in_mode = 'automatic' AND p.status = 'active'
            ORDER BY s.org_id, s.id, p.created_at, p.id LIMIT ${POOL_BATCH})
         UPDATE sims s SET pool_id = k.pool_id, updated_at = now() FROM pick k WHERE s.org_id = k.org_id AND s.id = k.id AND s.pool_id IS NULL`,
        )
      ).rowCount ?? 0;
  }
  // The SIMs to let go, locked (one statement), then their rows changed through the list (a join the planner estimates
  // as the list's length: index lookups, not a scan of a million members).
  const exited = (
    await q.query<{ org_id: string; pool_id: string; id: string; iccid: string; status: string; now_pool: string | null }>(
      `SELECT s.org_id, s.id, s.iccid, s.status, s.pool_enrolled_in AS pool_id, s.pool_id AS now_pool FROM sims s
        WHERE s.pool_enrolled_in IS NOT NULL AND (s.pool_id IS DISTINCT FROM s.pool_enrolled_in OR s.status NOT IN ('active', 'paused'))
        ORDER BY s.org_id, s.id LIMIT ${POOL_BATCH} FOR UPDATE OF s SKIP LOCKED`,
    )
  ).rows;
  if (exited.length) {
    await q.query(
      `WITH out AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(org_id, id, iccid, status, pool_id, now_pool)),
       left_ AS (UPDATE pool_members m SET left_at = greatest($1::timestamptz, m.joined_at) FROM out o WHERE m.org_id = o.org_id AND m.sim_id = o.id AND m.left_at IS NULL),
       sims_ AS (UPDATE sims s SET pool_enrolled_in = NULL, updated_at = now() FROM out o WHERE s.org_id = o.org_id AND s.id = o.id),
       pending AS (
         UPDATE pool_events e SET state = 'modified', detail = e.detail || jsonb_build_object('exitedAt', $1::text)
           FROM out o WHERE e.org_id = o.org_id AND e.pool_id = o.pool_id AND e.state = 'created' AND e.type = 'sim_enrolment' AND e.detail->>'simId' = o.id)
       INSERT INTO pool_events (org_id, pool_id, type, state, sim_count, detail, at)
       SELECT org_id, pool_id, 'sim_exit', 'created', 1, jsonb_build_object('simId', id, 'iccid', iccid, 'reason', CASE WHEN status NOT IN ('active', 'paused') THEN status WHEN now_pool IS NULL THEN 'removed' ELSE 'moved' END), $1::timestamptz
         FROM out ORDER BY org_id, id`,
      [at, ...(['org_id', 'id', 'iccid', 'status', 'pool_id', 'now_pool'] as const).map((k) => exited.map((r) => r[k]))],
    );
  }
  // Stopped SIMs that left are released (a pool's stop no longer applies to them).
  const byPool = new Map<string, { orgId: string; ids: string[] }>();
  for (const r of exited) byPool.set(r.pool_id, { orgId: r.org_id, ids: [...(byPool.get(r.pool_id)?.ids ?? []), r.id] });
  for (const [poolId, x] of byPool) await releaseStopped(q, x.orgId, poolId, now, 'exit', x.ids);
  const enrolled = (
    await q.query(
      `WITH inn AS (
         SELECT s.org_id, s.id, s.iccid, s.pool_id, s.activated_at FROM sims s
          WHERE s.pool_id IS NOT NULL AND s.pool_enrolled_in IS NULL AND s.status IN ('active', 'paused')
          ORDER BY s.org_id, s.id LIMIT ${POOL_BATCH} FOR UPDATE OF s SKIP LOCKED),
       joined AS (
         INSERT INTO pool_members (org_id, pool_id, sim_id, iccid, joined_at)
         SELECT org_id, pool_id, id, iccid, $1::timestamptz FROM inn
         ON CONFLICT (org_id, pool_id, sim_id) DO UPDATE SET joined_at = EXCLUDED.joined_at, left_at = NULL, cycle_usage_kb = 0, stopped = false),
       sims_ AS (UPDATE sims s SET pool_enrolled_in = s.pool_id, updated_at = now() WHERE s.id = ANY (ARRAY(SELECT id FROM inn)) AND (s.org_id, s.id) IN (SELECT org_id, id FROM inn)),
       logged AS (
         INSERT INTO pool_events (org_id, pool_id, type, state, sim_count, detail, at)
         SELECT org_id, pool_id, 'sim_enrolment', 'created', 1, jsonb_build_object('simId', id, 'iccid', iccid, 'activatedAt', activated_at), $1::timestamptz
           FROM inn ORDER BY org_id, id)
       SELECT count(*) FROM inn`,
      [at],
    )
  ).rows[0] as { count: string };
  return { enrolled: Number(enrolled.count), exited: exited.length, joined };
}

/**
 * The daily recompute (SPEC.md section 9): for each active pool not computed on `now`'s UTC day, total SIMs, activated
 * SIMs (enrolled and in service) and the limit, the sum of their shares; a change of limit an event
 * (`limit_increase`/`limit_decrease`, effected); the created enrolments and exits effected; a `scheduled_scan` with
 * the figures. Pools another instance holds are skipped. Returns the pools recomputed.
 */
export async function recomputeLimits(q: Queryable, now: Date): Promise<number> {
  const r = await q.query<{ n: string }>(
    `WITH due AS (
       SELECT org_id, id, limit_kb AS old_limit, activation_rule, base_bundle_kb, cycle_start, cycle_end FROM shared_pools
        WHERE status = 'active' AND limit_computed_on IS DISTINCT FROM $1::date ORDER BY id FOR UPDATE SKIP LOCKED),
     agg AS (
       SELECT d.id, count(s.id) FILTER (WHERE s.pool_id = d.id AND s.status IN ('active', 'paused')) AS activated,
              coalesce(sum(pool_share_kb(d.activation_rule, d.base_bundle_kb, s.activated_at, d.cycle_start, d.cycle_end))
                         FILTER (WHERE s.pool_id = d.id AND s.status IN ('active', 'paused')), 0) AS lim
         FROM due d
         LEFT JOIN pool_members m ON m.org_id = d.org_id AND m.pool_id = d.id AND m.left_at IS NULL
         LEFT JOIN sims s ON s.org_id = m.org_id AND s.id = m.sim_id
        GROUP BY d.id),
     tot AS (SELECT d.id, (SELECT count(*) FROM sims s WHERE s.org_id = d.org_id AND s.pool_id = d.id) AS total FROM due d),
     upd AS (
       UPDATE shared_pools p SET total_sims = t.total, activated_sims = least(a.activated, t.total), limit_kb = a.lim, limit_computed_on = $1::date, updated_at = now()
         FROM due d JOIN agg a ON a.id = d.id JOIN tot t ON t.id = d.id WHERE p.id = d.id
       RETURNING p.org_id, p.id, d.old_limit, p.limit_kb, p.activated_sims, p.total_sims),
     limits AS (
       INSERT INTO pool_events (org_id, pool_id, type, state, sim_count, limit_kb, detail, at, effective_at)
       SELECT org_id, id, CASE WHEN limit_kb > old_limit THEN 'limit_increase' ELSE 'limit_decrease' END, 'effected', activated_sims, limit_kb,
              jsonb_build_object('fromKb', old_limit, 'toKb', limit_kb), $2::timestamptz, $2::timestamptz
         FROM upd WHERE limit_kb <> old_limit ORDER BY org_id, id),
     effected AS (
       UPDATE pool_events e SET state = 'effected', effective_at = $2::timestamptz FROM upd u
        WHERE e.org_id = u.org_id AND e.pool_id = u.id AND e.state = 'created' AND e.type IN ('sim_enrolment', 'sim_exit', 'manage_sims_add')),
     scan AS (
       INSERT INTO pool_events (org_id, pool_id, type, state, sim_count, limit_kb, detail, at, effective_at)
       SELECT org_id, id, 'scheduled_scan', 'effected', activated_sims, limit_kb, jsonb_build_object('totalSims', total_sims), $2::timestamptz, $2::timestamptz
         FROM upd ORDER BY org_id, id)
     SELECT count(*)::text AS n FROM upd`,
    [day(now), now.toISOString()],
  );
  return Number(r.rows[0].n);
}

/**
 * Overage from a limit lowered under the usage (a CDR's transaction marks the crossing it causes itself): once per
 * cycle; a pool whose size was never computed (new, before its first daily recompute) has no limit to pass yet. Then
 * each pool in overage under "stop overage SIMs" stops the SIMs over their share.
 */
export async function enforceOverage(db: Db, now: Date): Promise<{ overages: number; stopped: number }> {
  const at = now.toISOString();
  const overages =
    (
      await db.query(
        `WITH hit AS (
         UPDATE shared_pools SET overage_cycle = cycle_start, overage_at = $1::timestamptz, updated_at = now()
          WHERE status = 'active' AND usage_kb > limit_kb AND limit_computed_on IS NOT NULL AND overage_cycle IS DISTINCT FROM cycle_start
         RETURNING org_id, id, usage_kb, limit_kb, cycle_start, overage_policy)
       INSERT INTO pool_events (org_id, pool_id, type, state, limit_kb, detail, at, effective_at)
       SELECT org_id, id, 'overage', 'effected', limit_kb,
              jsonb_build_object('usageKb', usage_kb, 'limitKb', limit_kb, 'cycleStart', cycle_start, 'policy', overage_policy), $1::timestamptz, $1::timestamptz
         FROM hit`,
        [at],
      )
    ).rowCount ?? 0;
  const pools = (
    await db.query<{ org_id: string; id: string }>(
      `SELECT org_id, id FROM shared_pools WHERE status = 'active' AND overage_policy = 'stop_overage_sims' AND overage_cycle = cycle_start`,
    )
  ).rows;
  let stopped = 0;
  for (const p of pools) {
    for (;;) {
      const n = await db.tx((q) => stopOverSims(q, p.org_id, p.id, now, { skipLocked: true }));
      stopped += n;
      if (n < POOL_BATCH) break;
    }
  }
  return { overages, stopped };
}

export interface PoolJobSummary {
  ran: boolean;
  rolled: number;
  enrolled: number;
  exited: number;
  joined: number;
  recomputed: number;
  overages: number;
  stopped: number;
  policiesSent: number;
}

/** One run of the pool job at `now` by `owner`: nothing unless it holds the lease. */
export async function runPoolJob(db: Db, adapter: NetworkAdapter, now: Date, owner: string, leaseSeconds = 120): Promise<PoolJobSummary> {
  const s: PoolJobSummary = { ran: false, rolled: 0, enrolled: 0, exited: 0, joined: 0, recomputed: 0, overages: 0, stopped: 0, policiesSent: 0 };
  if (!(await claimJob(db, POOL_JOB, owner, leaseSeconds))) return s;
  s.ran = true;
  s.rolled = await rollPools(db, now);
  const daily =
    (
      await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM shared_pools WHERE status = 'active' AND limit_computed_on IS DISTINCT FROM $1::date`, [
        day(now),
      ])
    ).rows[0].n !== '0';
  for (let first = true; ; first = false) {
    const m = await db.tx((q) => moveMembers(q, now, { optIn: daily && first }));
    s.enrolled += m.enrolled;
    s.exited += m.exited;
    s.joined += m.joined;
    if (m.enrolled < POOL_BATCH && m.exited < POOL_BATCH && m.joined < POOL_BATCH) break;
  }
  if (daily) s.recomputed = await db.tx((q) => recomputeLimits(q, now));
  const o = await enforceOverage(db, now);
  s.overages = o.overages;
  s.stopped = o.stopped;
  s.policiesSent += await syncAllPolicies(db, adapter);
  await markJobRun(db, POOL_JOB, owner, now);
  return s;
}

/** Run the pool job every everyMs on clock's time; returns the stop function (which waits for a run in progress). */
export function startPoolJob(
  db: Db,
  adapter: NetworkAdapter,
  log: FastifyBaseLogger,
  clock: () => Date,
  everyMs = 60_000,
): (handBack?: AbortSignal) => Promise<void> {
  return startLeasedJob(db, log, {
    name: POOL_JOB,
    what: 'pool job',
    everyMs,
    run: (owner, leaseSeconds) => runPoolJob(db, adapter, clock(), owner, leaseSeconds),
    report: (s) => void (s.ran && (s.rolled || s.enrolled || s.exited || s.recomputed || s.overages || s.stopped) && log.info(s, 'pool job')),
  });
}
