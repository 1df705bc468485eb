/**
 * Bundles that act (docs/decisions.md "Bundle cycles and overage enforcement"). The rules are
 * server/domain/bundle-cycle.ts; this module applies them to the database, set-based, each change an event appended in
 * its transaction:
 *
 * - advanceBundles: bundle status by time: IN_USE and PENDING bundles past their expiry EXPIRED, the next pending
 *   bundle of a SIM in service IN_USE (from the instant the previous ended), and the SIM's cycle defined again.
 * - endPeriods: test periods ending by time or by their allowance used up, and pre-activated periods by time: the SIM
 *   goes active (live), its test bundle EXPIRED.
 * - rollCycles: cycles whose end has come start again: usage 0, an overage control of the old cycle released.
 * - evaluateOverage: after usage (or a change of bundles), what the overage policy does now; the out-of-coverage
 *   policy is applied by applyCoverage when the SIM attaches.
 * - syncPolicies: the network adapter is told each SIM's data policy (the policy_unsent outbox).
 *
 * runBundleJob runs them once across instances (a lease in job_leases); recordUsage rolls a single SIM's cycle itself
 * when a CDR starts after the cycle's end, so a CDR is always counted in the cycle it started in.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../db/db.js';
import { claimJob, markJobRun, startLeasedJob } from '../job/periodic.js';
import { flowControlOf, overageControl, type FlowControl, type OveragePolicy, type RuleControl } from '../domain/bundle-cycle.js';
import type { NetworkAdapter, SimRef } from '../network/adapter.js';
import { networkEvents, type SimEvent } from '../sim/sim-events.js';

/** Rows changed per statement by the job (a million cycles roll in batches of this many). */
export const ROLL_BATCH = 50_000;

interface SimKey {
  orgId: string;
  simId: string;
}

/** The cycle a base bundle gives: bounds of the cycle `now` is in, the limit the bundles in use add up to. */
const DEFINE_CYCLES = `
  WITH target AS (SELECT DISTINCT org_id, id FROM unnest($1::text[], $2::text[]) AS x(org_id, id)),
  def AS (
    SELECT t.org_id, t.id, b.reset_cycle, b.activated_at AS anchor, l.limit_kb,
           cycle_start_at(b.reset_cycle, b.activated_at, $3::timestamptz) AS start,
           cycle_end_at(b.reset_cycle, b.activated_at, $3::timestamptz) AS ends
      FROM target t
      JOIN sims s ON s.org_id = t.org_id AND s.id = t.id
      LEFT JOIN LATERAL (
        SELECT reset_cycle, activated_at FROM bundle_orders b
         WHERE b.org_id = t.org_id AND b.sim_id = t.id AND b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' AND b.service_type <> 'sms' AND b.activated_at IS NOT NULL
           AND s.status IN ('active', 'paused')
         ORDER BY b.activated_at, b.id LIMIT 1) b ON true
      LEFT JOIN LATERAL (
        SELECT sum(quota_kb) AS limit_kb FROM bundle_orders b
         WHERE b.org_id = t.org_id AND b.sim_id = t.id AND b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' AND b.service_type <> 'sms') l ON true)
  UPDATE sims s SET cycle_reset = d.reset_cycle, cycle_anchor = d.anchor, cycle_started_at = d.start, cycle_ends_at = d.ends,
         cycle_start = (d.start AT TIME ZONE 'UTC')::date, cycle_limit_kb = CASE WHEN d.start IS NULL THEN NULL ELSE d.limit_kb END,
         cycle_usage_kb = CASE
           WHEN d.start IS NULL THEN 0
           WHEN s.cycle_started_at IS NOT DISTINCT FROM d.start THEN s.cycle_usage_kb
           ELSE coalesce((SELECT sum(c.volume_kb) FROM cdrs c WHERE c.org_id = s.org_id AND c.sim_id = s.id AND c.start_at >= d.start AND c.start_at < d.ends), 0) END,
         overage_at = CASE WHEN s.cycle_started_at IS NOT DISTINCT FROM d.start THEN s.overage_at END,
         updated_at = now()
    FROM def d WHERE s.org_id = d.org_id AND s.id = d.id`;

/**
 * Define again the cycle of these SIMs from their bundles in use (after bundles started or ended): a SIM whose cycle
 * changes counts the CDRs of its new cycle; one left with no bundle in use has no cycle. Then the overage policy is
 * applied to each (a top-up lifts a stop, a new bundle starts free).
 */
export async function defineCycles(q: Queryable, sims: SimKey[], now: Date): Promise<void> {
  if (!sims.length) return;
  await q.query(DEFINE_CYCLES, [sims.map((s) => s.orgId), sims.map((s) => s.simId), now.toISOString()]);
  for (const s of sims) await evaluateOverage(q, s, now);
}

interface OverageRow {
  org_id: string;
  id: string;
  iccid: string;
  cycle_usage_kb: string;
  cycle_limit_kb: string | null;
  cycle_started_at: Date | null;
  overage_at: Date | null;
  overage_control: FlowControl;
  coverage_barred: boolean;
  pool_stopped: boolean;
  flow_control_policy: FlowControl;
  rule_control: RuleControl;
  quota_kb: string | null;
  overage_policy: OveragePolicy | null;
  throttle_kbps: number | null;
  overage_threshold_kb: string | null;
}

/**
 * Apply the overage policy of a SIM's cycle to its usage now (SPEC.md section 9; overageControl): the allowance
 * reached is an event once per cycle; a throttle or a bar is set (never lifted within the cycle except by a larger
 * limit) and queued for the network. The policy is that of the last bundle in use, which takes the overage
 * (server/db/seed-fleet.ts seedCycles draws usage the same way); its threshold counts from the cycle's start.
 * Returns whether the network must be told.
 */
export async function evaluateOverage(q: Queryable, sim: SimKey, at: Date): Promise<boolean> {
  const row = (
    await q.query<OverageRow>(
      `SELECT s.org_id, s.id, s.iccid, s.cycle_usage_kb, s.cycle_limit_kb, s.cycle_started_at, s.overage_at, s.overage_control, s.coverage_barred, s.pool_stopped, s.flow_control_policy, s.rule_control,
              b.quota_kb, b.overage_policy, b.throttle_kbps, b.overage_threshold_kb
         FROM sims s
         LEFT JOIN LATERAL (
           SELECT quota_kb, overage_policy, throttle_kbps, overage_threshold_kb FROM bundle_orders b
            WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' AND b.service_type <> 'sms'
            ORDER BY b.activated_at DESC NULLS LAST, b.id DESC LIMIT 1) b ON true
        WHERE s.org_id = $1 AND s.id = $2 FOR UPDATE OF s`,
      [sim.orgId, sim.simId],
    )
  ).rows[0];
  if (!row) return false;
  const limit = row.cycle_started_at && row.cycle_limit_kb !== null && row.overage_policy ? Number(row.cycle_limit_kb) : null;
  const usage = Number(row.cycle_usage_kb);
  const threshold = limit !== null && row.overage_threshold_kb !== null ? limit - Number(row.quota_kb ?? 0) + Number(row.overage_threshold_kb) : null;
  const { reached, control } = overageControl(
    { limitKb: limit, overagePolicy: row.overage_policy ?? 'billing', throttleKbps: row.throttle_kbps, thresholdKb: threshold },
    usage,
  );
  const flow = flowControlOf(row.coverage_barred || row.pool_stopped, control, row.rule_control);
  const newlyReached = reached && !row.overage_at;
  if (!newlyReached && control === row.overage_control) return false;
  const changed = flow !== row.flow_control_policy;
  await q.query(
    `UPDATE sims SET overage_at = CASE WHEN $3::boolean THEN coalesce(overage_at, $4::timestamptz) END, overage_control = $5, flow_control_policy = $6,
            flow_control_at = CASE WHEN $7::boolean THEN $4::timestamptz ELSE flow_control_at END, policy_unsent = policy_unsent OR $7::boolean, updated_at = now()
      WHERE org_id = $1 AND id = $2`,
    [row.org_id, row.id, reached, at.toISOString(), control, flow, changed],
  );
  const data = {
    iccid: row.iccid,
    usageKb: usage,
    limitKb: limit,
    policy: row.overage_policy,
    throttleKbps: row.throttle_kbps,
    thresholdKb: threshold,
    cycleStart: row.cycle_started_at,
  };
  const events: Array<[string, Record<string, unknown>]> = [];
  if (newlyReached) events.push(['allowance_reached', data]);
  if (control !== row.overage_control)
    events.push([
      control === 'stop' ? 'overage_stopped' : control === 'none' ? 'overage_released' : 'overage_throttled',
      { ...data, from: row.overage_control, to: control },
    ]);
  await q.query(
    `INSERT INTO events (org_id, type, subtype, subject, data, at)
     SELECT $1, 'usage', s, $2, d::jsonb, $3 FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS x(s, d, n) ORDER BY n`,
    [row.org_id, row.iccid, at.toISOString(), events.map((e) => e[0]), events.map((e) => JSON.stringify(e[1]))],
  );
  return changed;
}

/**
 * Roll over up to `limit` cycles that ended by `now` (or only `only`'s): the new cycle is the one `now` is in, its usage
 * 0 (CDRs are counted by their start, and none of the new cycle has been counted yet: recordUsage rolls the SIM first),
 * an overage control released and queued for the network, the bundles' cycle usage 0; a `usage/cycle_reset` event per
 * SIM and a `usage/overage_released` one per release. Rows another transaction holds are skipped (they roll there).
 */
export async function rollCycles(q: Queryable, now: Date, opts: { limit?: number; only?: SimKey } = {}): Promise<number> {
  const r = await q.query<{ n: string }>(
    `WITH due AS (
       SELECT org_id, id, cycle_usage_kb AS old_kb, cycle_started_at AS old_start, overage_control AS old_control FROM sims
        WHERE cycle_ends_at <= $1::timestamptz AND ($3::text IS NULL OR (org_id = $3 AND id = $4))
        ORDER BY cycle_ends_at LIMIT $2 FOR UPDATE SKIP LOCKED),
     rolled AS (
       UPDATE sims s SET cycle_started_at = cycle_start_at(s.cycle_reset, s.cycle_anchor, $1::timestamptz), cycle_ends_at = cycle_end_at(s.cycle_reset, s.cycle_anchor, $1::timestamptz),
              cycle_start = (cycle_start_at(s.cycle_reset, s.cycle_anchor, $1::timestamptz) AT TIME ZONE 'UTC')::date, cycle_usage_kb = 0, overage_at = NULL, overage_control = 'none',
              flow_control_policy = flow_control_of(s.coverage_barred OR s.pool_stopped, 'none', s.rule_control),
              policy_unsent = s.policy_unsent OR s.flow_control_policy <> flow_control_of(s.coverage_barred OR s.pool_stopped, 'none', s.rule_control),
              flow_control_at = CASE WHEN s.flow_control_policy <> flow_control_of(s.coverage_barred OR s.pool_stopped, 'none', s.rule_control) THEN cycle_start_at(s.cycle_reset, s.cycle_anchor, $1::timestamptz) ELSE s.flow_control_at END,
              updated_at = now()
         FROM due d WHERE s.id = d.id
       RETURNING s.org_id, s.id, s.iccid, s.cycle_started_at, s.cycle_ends_at, s.cycle_limit_kb, d.old_kb, d.old_start, d.old_control),
     bundles AS (
       UPDATE bundle_orders b SET used_kb = 0 FROM rolled r
        WHERE b.org_id = r.org_id AND b.sim_id = r.id AND b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' AND b.used_kb <> 0),
     logged AS (
       INSERT INTO events (org_id, type, subtype, subject, data, at)
       SELECT org_id, 'usage', 'cycle_reset', iccid,
              jsonb_build_object('iccid', iccid, 'cycleStart', cycle_started_at, 'cycleEnd', cycle_ends_at, 'limitKb', cycle_limit_kb,
                                 'previousCycleStart', old_start, 'previousUsageKb', old_kb), cycle_started_at
         FROM rolled
       UNION ALL
       SELECT org_id, 'usage', 'overage_released', iccid,
              jsonb_build_object('iccid', iccid, 'from', old_control, 'to', 'none', 'reason', 'cycle_reset', 'cycleStart', cycle_started_at), cycle_started_at
         FROM rolled WHERE old_control <> 'none')
     SELECT count(*)::text AS n FROM rolled`,
    [now.toISOString(), opts.limit ?? ROLL_BATCH, opts.only?.orgId ?? null, opts.only?.simId ?? null],
  );
  return Number(r.rows[0].n);
}

/**
 * Bundle status by time (SPEC.md section 4): bundles past their expiry EXPIRED at that instant; then each SIM in
 * service with no bundle in use starts its next pending one (ordered first), from when its previous one ended or was cancelled (or
 * its order, or its activation, whichever is latest, and never after now), for a year (366 days for a YEAR_366D
 * bundle) unless its order says when it ends. Each change a SIM bundle event; the SIMs' cycles defined again.
 * `only` limits both steps to one SIM (its bundle in use was just cancelled).
 */
export async function advanceBundles(q: Queryable, now: Date, limit = ROLL_BATCH, only?: SimKey): Promise<{ expired: number; started: number }> {
  const at = now.toISOString();
  const expired = (
    await q.query<{ org_id: string; sim_id: string }>(
      `WITH due AS (
         SELECT id, status AS old_status FROM bundle_orders WHERE status IN ('PENDING', 'IN_USE') AND expected_expire_at <= $1::timestamptz
            AND ($3::text IS NULL OR (org_id = $3 AND sim_id = $4))
          ORDER BY expected_expire_at, id LIMIT $2 FOR UPDATE SKIP LOCKED),
       ended AS (
         UPDATE bundle_orders b SET status = 'EXPIRED', expired_at = b.expected_expire_at FROM due d WHERE b.id = d.id
         RETURNING b.org_id, b.sim_id, b.iccid, b.id, b.name, d.old_status, b.expired_at),
       logged AS (
         INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, source, at)
         SELECT org_id, sim_id, iccid, 'bundle_change', jsonb_build_object('bundleId', id, 'name', name, 'from', old_status, 'to', 'EXPIRED', 'reason', 'expiry'), 'system', expired_at
           FROM ended ORDER BY expired_at, id)
       SELECT DISTINCT org_id, sim_id FROM ended`,
      [at, limit, only?.orgId ?? null, only?.simId ?? null],
    )
  ).rows;
  const started = (
    await q.query<{ org_id: string; sim_id: string }>(
      `WITH waiting AS (
         SELECT DISTINCT ON (b.org_id, b.sim_id) b.id,
                least($1::timestamptz, greatest(b.ordered_at, s.activated_at,
                  (SELECT max(p.expired_at) FROM bundle_orders p WHERE p.org_id = b.org_id AND p.sim_id = b.sim_id AND p.status IN ('EXPIRED', 'CANCELLED') AND p.type <> 'BEFORE_TEST'))) AS start
           FROM bundle_orders b JOIN sims s ON s.org_id = b.org_id AND s.id = b.sim_id
          WHERE b.status = 'PENDING' AND b.type <> 'BEFORE_TEST' AND b.service_type <> 'sms' AND s.status IN ('active', 'paused')
            AND ($3::text IS NULL OR (b.org_id = $3 AND b.sim_id = $4))
            AND NOT EXISTS (SELECT 1 FROM bundle_orders u WHERE u.org_id = b.org_id AND u.sim_id = b.sim_id AND u.status = 'IN_USE' AND u.type <> 'BEFORE_TEST' AND u.service_type <> 'sms')
          ORDER BY b.org_id, b.sim_id, b.ordered_at, b.id LIMIT $2),
       begun AS (
         UPDATE bundle_orders b SET status = 'IN_USE', activated_at = w.start, used_kb = 0,
                expected_expire_at = greatest(coalesce(b.expected_expire_at, w.start + make_interval(days => CASE WHEN b.reset_cycle = 'YEAR_366D' THEN 366 ELSE 365 END)), w.start)
           FROM waiting w WHERE b.id = w.id AND b.status = 'PENDING'
         RETURNING b.org_id, b.sim_id, b.iccid, b.id, b.name, b.activated_at),
       logged AS (
         INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, source, at)
         SELECT org_id, sim_id, iccid, 'bundle_change', jsonb_build_object('bundleId', id, 'name', name, 'from', 'PENDING', 'to', 'IN_USE', 'reason', 'next_in_queue'), 'system', activated_at
           FROM begun ORDER BY activated_at, id)
       SELECT org_id, sim_id FROM begun`,
      [at, limit, only?.orgId ?? null, only?.simId ?? null],
    )
  ).rows;
  const touched = new Map<string, SimKey>();
  // A SIM asked for is defined again even when nothing started (its bundle in use was cancelled).
  if (only) touched.set(only.simId, only);
  for (const r of [...expired, ...started]) touched.set(r.sim_id, { orgId: r.org_id, simId: r.sim_id });
  await defineCycles(q, [...touched.values()], now);
  return { expired: expired.length, started: started.length };
}

interface PeriodRow {
  org_id: string;
  id: string;
  iccid: string;
  status: string;
  sub_status: string;
  reason: 'test_time' | 'test_usage' | 'pre_activated_time';
  at: Date;
}

/**
 * Test and pre-activated periods that end (SPEC.md section 4): a SIM in test (pre-activated test, or active test)
 * whose test period is over by time or whose test allowance is used up, and a pre-activated (quiet) SIM whose
 * pre-activated period is over, go active and live; the test bundle is EXPIRED (test data "ended" or "exhausted").
 * Each a status change of the SIM (with its audit row) and a bundle event; the next bundle starts on the same run.
 */
export async function endPeriods(q: Queryable, now: Date, limit = ROLL_BATCH): Promise<number> {
  const at = now.toISOString();
  const due = (
    await q.query<PeriodRow>(
      `WITH cand AS (
         SELECT s.org_id, s.id, s.iccid, s.status, s.sub_status,
                CASE WHEN s.sub_status IN ('test', 'active_test') AND tb.used_kb >= tb.quota_kb THEN 'test_usage'
                     WHEN s.sub_status IN ('test', 'active_test') AND s.test_started_at + make_interval(days => s.test_period_days) <= $1::timestamptz THEN 'test_time'
                     WHEN s.sub_status = 'quiet' AND s.pre_activated_at + make_interval(days => s.pre_activated_period_days) <= $1::timestamptz THEN 'pre_activated_time' END AS reason,
                CASE WHEN s.sub_status = 'quiet' THEN s.pre_activated_at + make_interval(days => s.pre_activated_period_days)
                     WHEN tb.used_kb >= tb.quota_kb THEN $1::timestamptz
                     ELSE least($1::timestamptz, s.test_started_at + make_interval(days => s.test_period_days)) END AS at
           FROM sims s
           LEFT JOIN LATERAL (SELECT used_kb, quota_kb FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status = 'IN_USE' AND b.type = 'BEFORE_TEST' LIMIT 1) tb ON true
          WHERE s.sub_status IN ('test', 'active_test', 'quiet') AND s.operation IS NULL)
       SELECT * FROM cand WHERE reason IS NOT NULL ORDER BY id LIMIT $2`,
      [at, limit],
    )
  ).rows;
  if (!due.length) return 0;
  const orgs = due.map((d) => d.org_id);
  const ids = due.map((d) => d.id);
  await q.query(
    `UPDATE sims s SET status = 'active', sub_status = 'active_live', activated_at = coalesce(s.activated_at, x.at::timestamptz),
            expires_at = coalesce(s.expires_at, x.at::timestamptz + interval '365 days'),
            test_data_status = CASE WHEN x.reason = 'test_usage' THEN 'exhausted' WHEN x.reason = 'test_time' THEN 'ended' ELSE s.test_data_status END, updated_at = now()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS x(org_id, id, reason, at) WHERE s.org_id = x.org_id AND s.id = x.id`,
    [orgs, ids, due.map((d) => d.reason), due.map((d) => new Date(d.at).toISOString())],
  );
  await q.query(
    `WITH ended AS (
       UPDATE bundle_orders b SET status = 'EXPIRED', expired_at = x.at::timestamptz
         FROM unnest($1::text[], $2::text[], $3::text[]) AS x(org_id, sim_id, at)
        WHERE b.org_id = x.org_id AND b.sim_id = x.sim_id AND b.type = 'BEFORE_TEST' AND b.status IN ('IN_USE', 'PENDING')
       RETURNING b.org_id, b.sim_id, b.iccid, b.id, b.name, b.expired_at)
     INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, source, at)
     SELECT org_id, sim_id, iccid, 'bundle_change', jsonb_build_object('bundleId', id, 'name', name, 'from', 'IN_USE', 'to', 'EXPIRED', 'reason', 'test_period_ended'), 'system', expired_at FROM ended`,
    [orgs, ids, due.map((d) => new Date(d.at).toISOString())],
  );
  const events: SimEvent[] = due.map((d) => ({
    orgId: d.org_id,
    simId: d.id,
    iccid: d.iccid,
    type: 'status_change',
    from: d.status,
    to: 'active',
    detail: {
      action: d.reason === 'pre_activated_time' ? 'preActivatedPeriodEnded' : 'testPeriodEnded',
      reason: d.reason,
      fromSub: d.sub_status,
      toSub: 'active_live',
    },
    at: new Date(d.at),
  }));
  await networkEvents(q, events);
  return due.length;
}

/**
 * The out-of-coverage policy (SPEC.md section 3) when the SIM attaches in `country`: outside its bundle's coverage
 * (the base bundle in use; a bundle with no coverage list covers everywhere), "shut down" bars its data, "billing"
 * lets it go on (billed as out of coverage) and "not applicable" does nothing; back in coverage the bar is lifted.
 * Each crossing an event (`usage/out_of_coverage`, `usage/back_in_coverage`). Returns whether the network must be told.
 */
export async function applyCoverage(q: Queryable, sim: SimKey & { iccid: string }, country: string, at: Date): Promise<boolean> {
  const row = (
    await q.query<{
      out_of_coverage_at: Date | null;
      coverage_barred: boolean;
      pool_stopped: boolean;
      overage_control: FlowControl;
      flow_control_policy: FlowControl;
      rule_control: RuleControl;
      policy: string | null;
      countries: string[] | null;
      bundle_id: string | null;
    }>(
      `SELECT s.out_of_coverage_at, s.coverage_barred, s.pool_stopped, s.overage_control, s.flow_control_policy, s.rule_control, b.out_of_coverage AS policy, b.coverage_countries AS countries, b.id AS bundle_id
         FROM sims s
         LEFT JOIN LATERAL (SELECT id, out_of_coverage, coverage_countries FROM bundle_orders b
                             WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' ORDER BY b.activated_at, b.id LIMIT 1) b ON true
        WHERE s.org_id = $1 AND s.id = $2 FOR UPDATE OF s`,
      [sim.orgId, sim.simId],
    )
  ).rows[0];
  if (!row) return false;
  const outside = Boolean(row.policy && row.policy !== 'not_applicable' && row.countries?.length && !row.countries.includes(country));
  const wasOutside = row.out_of_coverage_at !== null;
  if (!outside && !wasOutside) return false;
  const barred = outside && row.policy === 'shut_down';
  const flow = flowControlOf(barred || row.pool_stopped, row.overage_control, row.rule_control);
  const changed = flow !== row.flow_control_policy;
  await q.query(
    `UPDATE sims SET out_of_coverage_at = CASE WHEN $3::boolean THEN coalesce(out_of_coverage_at, $4::timestamptz) END, out_of_coverage_country = CASE WHEN $3::boolean THEN $5 END,
            coverage_barred = $6, flow_control_policy = $7, flow_control_at = CASE WHEN $8::boolean THEN $4::timestamptz ELSE flow_control_at END,
            policy_unsent = policy_unsent OR $8::boolean, updated_at = now()
      WHERE org_id = $1 AND id = $2`,
    [sim.orgId, sim.simId, outside, at.toISOString(), country, barred, flow, changed],
  );
  if (outside !== wasOutside || (outside && barred !== row.coverage_barred)) {
    await q.query(`INSERT INTO events (org_id, type, subtype, subject, data, at) VALUES ($1, 'usage', $2, $3, $4::jsonb, $5)`, [
      sim.orgId,
      outside ? 'out_of_coverage' : 'back_in_coverage',
      sim.iccid,
      JSON.stringify({ iccid: sim.iccid, country, policy: row.policy, barred, bundleId: row.bundle_id, coverage: row.countries }),
      at.toISOString(),
    ]);
  }
  return changed;
}

/**
 * Tell the network each SIM's data policy that changed (the policy_unsent outbox), `only` those SIMs or up to limit
 * of them; a SIM the network accepted is marked sent unless its policy changed again meanwhile. A refused or failed
 * command stays queued for the next run. Returns the SIMs the network accepted.
 */
export async function syncPolicies(db: Db, adapter: NetworkAdapter, opts: { only?: SimKey[]; limit?: number } = {}): Promise<number> {
  const only = opts.only ?? null;
  const rows = (
    await db.query<{ org_id: string; id: string; iccid: string; imsi: string | null; msisdn: string | null; flow_control_policy: FlowControl }>(
      `SELECT org_id, id, iccid, imsi, msisdn, flow_control_policy FROM sims
        WHERE policy_unsent AND ($1::text[] IS NULL OR (org_id, id) IN (SELECT * FROM unnest($1::text[], $2::text[])))
        ORDER BY org_id, id LIMIT $3`,
      [only?.map((s) => s.orgId) ?? null, only?.map((s) => s.simId) ?? null, opts.limit ?? 1000],
    )
  ).rows;
  if (!rows.length) return 0;
  const sims = rows.map((r) => ({
    sim: { orgId: r.org_id, simId: r.id, iccid: r.iccid, imsi: r.imsi, msisdn: r.msisdn } satisfies SimRef,
    control: r.flow_control_policy,
  }));
  const answers = await adapter.setDataPolicy(sims);
  const ok = new Set(answers.filter((a) => a.ok).map((a) => a.iccid));
  const accepted = rows.filter((r) => ok.has(r.iccid));
  if (accepted.length) {
    await db.query(
      `UPDATE sims s SET policy_unsent = false FROM unnest($1::text[], $2::text[], $3::text[]) AS x(org_id, id, policy)
        WHERE s.org_id = x.org_id AND s.id = x.id AND s.flow_control_policy = x.policy`,
      [accepted.map((r) => r.org_id), accepted.map((r) => r.id), accepted.map((r) => r.flow_control_policy)],
    );
  }
  return accepted.length;
}

/** Tell the adapter every unsent data policy, a thousand SIMs at a time; answers how many were sent. */
export async function syncAllPolicies(db: Db, adapter: NetworkAdapter): Promise<number> {
  let sent = 0;
  for (;;) {
    const n = await syncPolicies(db, adapter, { limit: 1000 });
    sent += n;
    if (n < 1000) return sent;
  }
}

export interface BundleJobSummary {
  ran: boolean;
  periodsEnded: number;
  bundlesExpired: number;
  bundlesStarted: number;
  cyclesRolled: number;
  policiesSent: number;
}

/**
 * One run of the bundle job at `now` by instance `owner`: nothing unless it holds the lease (so two instances never run
 * it at once); periods, bundles and cycles each in batches of their own transactions, then the network told.
 */
export async function runBundleJob(db: Db, adapter: NetworkAdapter, now: Date, owner: string, leaseSeconds = 120): Promise<BundleJobSummary> {
  const s: BundleJobSummary = { ran: false, periodsEnded: 0, bundlesExpired: 0, bundlesStarted: 0, cyclesRolled: 0, policiesSent: 0 };
  if (!(await claimJob(db, 'bundle_cycles', owner, leaseSeconds))) return s;
  s.ran = true;
  for (;;) {
    const n = await db.tx((q) => endPeriods(q, now));
    s.periodsEnded += n;
    if (n < ROLL_BATCH) break;
  }
  for (;;) {
    const r = await db.tx((q) => advanceBundles(q, now));
    s.bundlesExpired += r.expired;
    s.bundlesStarted += r.started;
    if (r.expired < ROLL_BATCH && r.started < ROLL_BATCH) break;
  }
  for (;;) {
    const n = await db.tx((q) => rollCycles(q, now));
    s.cyclesRolled += n;
    if (n < ROLL_BATCH) break;
  }
  s.policiesSent += await syncAllPolicies(db, adapter);
  await markJobRun(db, 'bundle_cycles', owner, now);
  return s;
}

/** Run the bundle job every everyMs on clock's time; returns the stop function (which waits for a run in progress). */
export function startBundleJob(
  db: Db,
  adapter: NetworkAdapter,
  log: FastifyBaseLogger,
  clock: () => Date,
  everyMs = 60_000,
): (handBack?: AbortSignal) => Promise<void> {
  return startLeasedJob(db, log, {
    name: 'bundle_cycles',
    what: 'bundle job',
    everyMs,
    run: (owner, leaseSeconds) => runBundleJob(db, adapter, clock(), owner, leaseSeconds),
    report: (s) => void (s.ran && (s.periodsEnded || s.bundlesExpired || s.bundlesStarted || s.cyclesRolled) && log.info(s, 'bundle job')),
  });
}
