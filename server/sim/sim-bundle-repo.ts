/**
 * The SQL of a SIM's bundle policy and of cancelling a bundle (sim-bundle-routes.ts): the SIM's policy
 * columns with the bundles, pool and rule behind them, and a cancellation with its SIM event. Every query names the
 * organisation first.
 */
import type { Queryable } from '../db/db.js';

/** A SIM's data policy and what is behind it. */
export interface PolicyRow {
  iccid: string;
  flow_control_policy: string;
  overage_control: string;
  coverage_barred: boolean;
  flow_control_at: Date | null;
  overage_at: Date | null;
  cycle_started_at: Date | null;
  cycle_ends_at: Date | null;
  cycle_usage_kb: string;
  cycle_limit_kb: string | null;
  out_of_coverage_at: Date | null;
  out_of_coverage_country: string | null;
  bundle_id: string | null;
  bundle_name: string | null;
  quota_kb: string | null;
  overage_policy: string | null;
  throttle_kbps: number | null;
  overage_threshold_kb: string | null;
  out_of_coverage: string | null;
  coverage_countries: string[] | null;
  base_policy: string | null;
  base_countries: string[] | null;
  rule_control: string;
  pool_stopped: boolean;
  pool_id: string | null;
  pool_name: string | null;
  pool_cycle_end: string | null;
  rule_name: string | null;
  rule_at: Date | null;
}

/**
 * A SIM by ICCID: its policy columns, the bundle that takes its overage (the last in use) and its base bundle's
 * coverage; undefined for a missing SIM or another organisation's.
 */
export async function policyByIccid(q: Queryable, orgId: string, iccid: string): Promise<PolicyRow | undefined> {
  return (
    await q.query<PolicyRow>(
      `SELECT s.iccid, s.flow_control_policy, s.overage_control, s.coverage_barred, s.flow_control_at, s.overage_at, s.cycle_started_at, s.cycle_ends_at,
            s.cycle_usage_kb, s.cycle_limit_kb, s.out_of_coverage_at, s.out_of_coverage_country,
            coalesce(l.id, b.id) AS bundle_id, coalesce(l.name, b.name) AS bundle_name, l.quota_kb, l.overage_policy, l.throttle_kbps, l.overage_threshold_kb,
            b.out_of_coverage AS base_policy, b.coverage_countries AS base_countries, s.rule_control, ru.name AS rule_name, ru.at AS rule_at,
            s.pool_stopped, s.pool_id, sp.name AS pool_name, sp.cycle_end::text AS pool_cycle_end
       FROM sims s
       LEFT JOIN shared_pools sp ON s.pool_stopped AND sp.org_id = s.org_id AND sp.id = s.pool_id
       LEFT JOIN LATERAL (SELECT id, name, quota_kb, overage_policy, throttle_kbps, overage_threshold_kb FROM bundle_orders b
                           WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' AND b.service_type <> 'sms'
                           ORDER BY b.activated_at DESC NULLS LAST, b.id DESC LIMIT 1) l ON true
       LEFT JOIN LATERAL (SELECT id, name, out_of_coverage, coverage_countries FROM bundle_orders b
                           WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST'
                           ORDER BY b.activated_at, b.id LIMIT 1) b ON true
       -- The automation rule whose throttle holds: the last run on this SIM that throttled it.
       LEFT JOIN LATERAL (SELECT r.name, x.at FROM autoflow_runs x JOIN autoflow_rules r ON r.id = x.rule_id
                           WHERE s.rule_control <> 'none' AND x.org_id = s.org_id AND x.sim_id = s.id AND x.actions @> '[{"type": "throttle"}]'::jsonb
                           ORDER BY x.at DESC, x.id DESC LIMIT 1) ru ON true
      WHERE s.org_id = $1 AND s.iccid = $2`,
      [orgId, iccid],
    )
  ).rows[0];
}

/** A SIM's id by ICCID, its row locked for the transaction; undefined when the organisation has no such SIM. */
export async function lockSimByIccid(q: Queryable, orgId: string, iccid: string): Promise<string | undefined> {
  return (await q.query<{ id: string }>('SELECT id FROM sims WHERE org_id = $1 AND iccid = $2 FOR UPDATE', [orgId, iccid])).rows[0]?.id;
}

/** One bundle of a SIM, its row locked for the transaction. */
export async function lockBundle(q: Queryable, orgId: string, simId: string, bundleId: string) {
  return (
    await q.query<{ status: string; name: string }>('SELECT status, name FROM bundle_orders WHERE org_id = $1 AND sim_id = $2 AND id = $3 FOR UPDATE', [
      orgId,
      simId,
      bundleId,
    ])
  ).rows[0];
}

/** Cancel a bundle from `at`, with its bundle_change event. */
export async function cancelBundle(
  q: Queryable,
  c: { orgId: string; simId: string; iccid: string; bundleId: string; name: string; from: string; accountId: string; at: Date },
): Promise<void> {
  await q.query(`UPDATE bundle_orders SET status = 'CANCELLED', expired_at = $4, cancelled_by = $5 WHERE org_id = $1 AND sim_id = $2 AND id = $3`, [
    c.orgId,
    c.simId,
    c.bundleId,
    c.at.toISOString(),
    c.accountId,
  ]);
  await q.query(
    `INSERT INTO sim_events (org_id, sim_id, iccid, type, detail, account_id, source, at) VALUES ($1, $2, $3, 'bundle_change', $4, $5, 'console', $6)`,
    [
      c.orgId,
      c.simId,
      c.iccid,
      JSON.stringify({ bundleId: c.bundleId, name: c.name, from: c.from, to: 'CANCELLED', reason: 'cancelled' }),
      c.accountId,
      c.at.toISOString(),
    ],
  );
}

/** The base data bundle in use of a SIM (the first by activation, test and SMS-only bundles aside). */
export async function baseBundleOf(q: Queryable, orgId: string, simId: string) {
  return (
    await q.query<{ id: string; name: string }>(
      `SELECT id, name FROM bundle_orders WHERE org_id = $1 AND sim_id = $2 AND status = 'IN_USE' AND type <> 'BEFORE_TEST' AND service_type <> 'sms' ORDER BY activated_at, id LIMIT 1`,
      [orgId, simId],
    )
  ).rows[0];
}
