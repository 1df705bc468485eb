/** Generators: CDRs, pool events, the rollups of what was written, and the bundles' cycles. */
import { type OveragePolicy, type ResetCycle, allowanceKb, cycleEnd, cycleStart, overageControl } from '../../domain/bundle-cycle.js';
import { PLANS, POOL_PLAN, RATS, ROAMING } from './catalogue.js';
import { type Ctx, DAY, MINUTE, type Row, dateOnly, insertRows, mccMnc, monthStart, networkCountry, pgArray } from './rows.js';

export async function seedCdrs(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  const days = size === 'small' ? 5 : 30;
  let live = ctx.sims.filter((s) => s.status === 'active' && s.sub !== 'active_ready');
  if (size === 'small') {
    // A few hundred CDRs: twenty SIMs of org-demo and the first of each other organisation.
    const others = live.filter((s) => s.org !== 'org-demo');
    live = [...live.filter((s) => s.org === 'org-demo').slice(0, 20), ...others.filter((s, i) => others.findIndex((x) => x.org === s.org) === i)];
  }
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * DAY);
  for (let m = monthStart(start); m.getTime() <= now.getTime(); m = monthStart(m, 1)) {
    await ctx.q.query("SELECT ensure_month_partition('cdrs', $1::date)", [dateOnly(m)]);
  }
  const rows: Row[] = [];
  for (const s of live) {
    const home = s.network!;
    // The draw that once chose a plan here is kept, so that the rest of the seed keeps its values.
    if (!s.poolId) rng.pick(PLANS);
    const plan = s.plan.sku;
    const rat = rng.weighted(RATS);
    for (let d = 0; d < days; d++) {
      const dayStart = start.getTime() + d * DAY;
      const sessions = rng.weighted([
        [0, 15],
        [1, 50],
        [2, 25],
        [3, 10],
      ]);
      for (let k = 0; k < sessions; k++) {
        const at = new Date(dayStart + rng.int(0, 24 * 60 - 1) * MINUTE + rng.int(0, 59) * 1000);
        if (at.getTime() > now.getTime()) continue;
        // A CDR is written when its session ends: a session started shortly before `now` ended at `now` at the latest.
        const duration = Math.min(rng.int(60, 6 * 3600), Math.floor((now.getTime() - at.getTime()) / 1000));
        const end = new Date(at.getTime() + duration * 1000);
        const network = rng.chance(0.08) ? rng.pick(ROAMING) : home;
        const kb = Math.max(1, Math.round((s.dailyKb / Math.max(1, sessions)) * (0.5 + rng.next())));
        const up = Math.max(1, Math.round(kb * (0.2 + rng.next() * 0.3)));
        for (const [direction, volume] of [
          ['uplink', up],
          ['downlink', kb - up],
        ] as const) {
          rows.push({
            org_id: s.org,
            sim_id: s.id,
            iccid: s.iccid,
            imsi: s.imsi,
            network,
            mcc_mnc: mccMnc(network),
            country: networkCountry(network),
            plan_code: plan,
            direction,
            rat,
            volume_kb: Math.max(0, volume),
            start_at: at,
            end_at: end,
            duration_s: duration,
          });
        }
      }
    }
  }
  await insertRows(ctx.q, 'cdrs', rows);
}

export async function seedPoolEvents(ctx: Ctx): Promise<void> {
  const { rng, now } = ctx;
  const rows: Row[] = [];
  for (const p of ctx.pools) {
    const created = new Date(now.getTime() - 120 * DAY);
    const ev = (type: string, state: string, at: Date, extra: Row = {}): void => {
      rows.push({ org_id: p.org, pool_id: p.id, type, state, at, sim_count: null, limit_kb: null, detail: {}, account_id: null, effective_at: null, ...extra });
    };
    const admin = p.org === 'org-other' ? 'acc-other-admin' : 'acc-admin';
    ev('setup', 'effected', created, { account_id: admin, detail: { bundle: POOL_PLAN.sku } });
    ev('new_pool_launch', 'effected', new Date(created.getTime() + DAY), { effective_at: monthStart(created, 1) });
    ev('sim_enrolment', 'effected', new Date(created.getTime() + 2 * DAY), { sim_count: p.members.length });
    ev('manage_sims_add', 'modified', new Date(now.getTime() - 20 * DAY), { sim_count: 1, account_id: admin });
    ev('sim_exit', 'effected', new Date(now.getTime() - 15 * DAY), { sim_count: 1 });
    ev('limit_increase', 'effected', monthStart(now), { limit_kb: p.members.length * POOL_PLAN.quotaKb });
    ev('limit_decrease', 'created', monthStart(now, -1), { limit_kb: Math.max(0, p.members.length - 1) * POOL_PLAN.quotaKb });
    ev('overage', 'effected', new Date(now.getTime() - 40 * DAY), { detail: { usagePercent: 102 } });
    ev('overage_recovery', 'effected', monthStart(now, -1));
    const scans = ctx.size === 'small' ? 2 : 14;
    for (let d = scans; d >= 1; d--)
      ev('scheduled_scan', 'effected', new Date(now.getTime() - d * DAY + rng.int(0, 60) * MINUTE), { sim_count: p.members.length });
  }
  await insertRows(ctx.q, 'pool_events', rows);
}

/** Rollups from the rows just written, so that they match the CDRs and SMS exactly. */
export async function seedRollups(ctx: Ctx): Promise<void> {
  const { q } = ctx;
  await q.query(`
    INSERT INTO usage_daily (org_id, sim_id, day, iccid, uplink_kb, downlink_kb, volume_kb, cdr_count)
    SELECT org_id, sim_id, (start_at AT TIME ZONE 'UTC')::date, min(iccid),
           coalesce(sum(volume_kb) FILTER (WHERE direction = 'uplink'), 0), coalesce(sum(volume_kb) FILTER (WHERE direction = 'downlink'), 0),
           sum(volume_kb), count(*)
    FROM cdrs GROUP BY 1, 2, 3`);
  await q.query(`
    INSERT INTO usage_daily (org_id, sim_id, day, iccid, sms_mo, sms_mt)
    SELECT org_id, sim_id, (created_at AT TIME ZONE 'UTC')::date, min(iccid), count(*) FILTER (WHERE direction = 'MO'), count(*) FILTER (WHERE direction = 'MT')
    FROM sms_records WHERE sim_id IS NOT NULL AND status <> 'pending' GROUP BY 1, 2, 3
    ON CONFLICT (org_id, sim_id, day) DO UPDATE SET sms_mo = EXCLUDED.sms_mo, sms_mt = EXCLUDED.sms_mt`);
  await q.query(`
    INSERT INTO usage_hourly (org_id, hour, uplink_kb, downlink_kb, volume_kb, cdr_count, active_sims)
    SELECT org_id, date_trunc('hour', start_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
           coalesce(sum(volume_kb) FILTER (WHERE direction = 'uplink'), 0), coalesce(sum(volume_kb) FILTER (WHERE direction = 'downlink'), 0),
           sum(volume_kb), count(*), count(DISTINCT sim_id)
    FROM cdrs GROUP BY 1, 2`);
  await q.query(`
    INSERT INTO usage_hourly (org_id, hour, sms_mo, sms_mt)
    SELECT org_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*) FILTER (WHERE direction = 'MO'), count(*) FILTER (WHERE direction = 'MT')
    FROM sms_records WHERE status <> 'pending' GROUP BY 1, 2
    ON CONFLICT (org_id, hour) DO UPDATE SET sms_mo = EXCLUDED.sms_mo, sms_mt = EXCLUDED.sms_mt`);
  // The dashboard's per-SIM rollups (007_dashboard.sql).
  await q.query('SELECT rebuild_sim_rollups(NULL)');
  await seedCycles(ctx);
  await q.query(`
    UPDATE sims s SET last_session_at = l.start_at, last_session_kb = l.kb
    FROM (SELECT DISTINCT ON (sim_id) sim_id, start_at, kb FROM (SELECT sim_id, start_at, sum(volume_kb) AS kb FROM cdrs GROUP BY sim_id, start_at) x
          ORDER BY sim_id, start_at DESC) l
    WHERE s.id = l.sim_id`);
  // The pools' cycle usage, daily rollups and enrolment flags from the SIMs' rollups (035_pool_engine.sql).
  await q.query('SELECT rebuild_pool_rollups(NULL)');
}

/**
 * Each SIM's cycle as every tab tells it: the bundles in use (not the test one) share the base bundle's reset
 * cycle; the SIM's cycle starts when that cycle did, its usage is what its CDRs carried since, and its limit is the sum
 * of those bundles' quotas. The usage is drawn from the bundles in order (the base one first, each up to its quota, the
 * last one takes the rest), and a bundle whose overage policy could not have let the SIM use that much bills the
 * overage instead: usage never exceeds what the policy allows (server/domain/bundle-cycle.ts).
 */
async function seedCycles(ctx: Ctx): Promise<void> {
  const { q, now } = ctx;
  const inUse = (
    await q.query<{
      id: string;
      sim_id: string;
      quota_kb: string;
      reset_cycle: ResetCycle;
      activated_at: Date | string;
      overage_policy: OveragePolicy;
      throttle_kbps: number | null;
      overage_threshold_kb: string | null;
    }>(
      `SELECT b.id, b.sim_id, b.quota_kb, b.reset_cycle, b.activated_at, b.overage_policy, b.throttle_kbps, b.overage_threshold_kb
         FROM bundle_orders b JOIN sims s ON s.id = b.sim_id
        WHERE b.status = 'IN_USE' AND b.type <> 'BEFORE_TEST' AND s.status IN ('active', 'paused')
        ORDER BY b.sim_id, b.activated_at, b.id`,
    )
  ).rows;
  const bySim = new Map<string, typeof inUse>();
  for (const b of inUse) bySim.set(b.sim_id, [...(bySim.get(b.sim_id) ?? []), b]);
  const sims = [...bySim.keys()];
  const starts = sims.map((id) => {
    const base = bySim.get(id)![0];
    return cycleStart(base.reset_cycle, new Date(base.activated_at), now);
  });
  const usage = new Map(
    (
      await q.query<{ sim_id: string; kb: string }>(
        `SELECT c.sim_id, sum(c.volume_kb) AS kb FROM cdrs c JOIN unnest($1::text[], $2::timestamptz[]) AS x(sim_id, since) ON c.sim_id = x.sim_id AND c.start_at >= x.since
          GROUP BY c.sim_id`,
        [pgArray(sims), pgArray(starts.map((d) => d.toISOString()))],
      )
    ).rows.map((r) => [r.sim_id, Number(r.kb)]),
  );
  const bundleRows: Row[] = [];
  const simRows: Row[] = [];
  sims.forEach((simId, i) => {
    const bundles = bySim.get(simId)!;
    const total = usage.get(simId) ?? 0;
    let left = total;
    let last: Row = {};
    bundles.forEach((b, k) => {
      const quota = Number(b.quota_kb);
      const used = k === bundles.length - 1 ? left : Math.min(left, quota);
      left -= used;
      const allowed = allowanceKb(
        {
          quotaKb: quota,
          overagePolicy: b.overage_policy,
          throttleKbps: b.throttle_kbps,
          overageThresholdKb: b.overage_threshold_kb === null ? null : Number(b.overage_threshold_kb),
        },
        starts[i],
        now,
      );
      const fits = allowed === null || used <= allowed;
      // One that could not have carried that much slows down past its quota instead (256 kbps) when that fits, else bills it.
      const slowed =
        !fits &&
        used <= (allowanceKb({ quotaKb: quota, overagePolicy: 'billing_speed_decrease', throttleKbps: 256, overageThresholdKb: null }, starts[i], now) ?? 0);
      last = fits
        ? { id: b.id, used_kb: used, overage_policy: b.overage_policy, throttle_kbps: b.throttle_kbps, overage_threshold_kb: b.overage_threshold_kb }
        : slowed
          ? { id: b.id, used_kb: used, overage_policy: 'billing_speed_decrease', throttle_kbps: 256, overage_threshold_kb: null }
          : { id: b.id, used_kb: used, overage_policy: 'billing', throttle_kbps: null, overage_threshold_kb: null };
      bundleRows.push(last);
    });
    // The last bundle takes the overage: its policy, with its threshold counted from the cycle's start, says what the
    // network does with the SIM's data now (the bundle engine's rule, server/bundles/bundle-engine.ts evaluateOverage).
    const limit = bundles.reduce((sum, b) => sum + Number(b.quota_kb), 0);
    const lastQuota = Number(bundles[bundles.length - 1].quota_kb);
    const { control } = overageControl(
      {
        limitKb: limit,
        overagePolicy: last.overage_policy as OveragePolicy,
        throttleKbps: (last.throttle_kbps as number | null) ?? null,
        thresholdKb:
          last.overage_threshold_kb === null || last.overage_threshold_kb === undefined ? null : limit - lastQuota + Number(last.overage_threshold_kb),
      },
      total,
    );
    const base = bundles[0];
    simRows.push({
      id: simId,
      cycle_start: dateOnly(starts[i]),
      cycle_usage_kb: total,
      cycle_limit_kb: limit,
      cycle_reset: base.reset_cycle,
      cycle_anchor: new Date(base.activated_at).toISOString(),
      cycle_started_at: starts[i].toISOString(),
      cycle_ends_at: cycleEnd(base.reset_cycle, new Date(base.activated_at), now).toISOString(),
      overage_control: control,
    });
  });
  // An array literal whose nulls are NULL (pgArray quotes every string).
  const column = (rows: Row[], key: string) => `{${rows.map((r) => (r[key] === null || r[key] === undefined ? 'NULL' : `"${String(r[key])}"`)).join(',')}}`;
  await q.query(
    `UPDATE bundle_orders b SET used_kb = x.used_kb, overage_policy = x.overage_policy, throttle_kbps = x.throttle_kbps, overage_threshold_kb = x.overage_threshold_kb
       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::int[], $5::bigint[]) AS x(id, used_kb, overage_policy, throttle_kbps, overage_threshold_kb)
      WHERE b.id = x.id`,
    [
      column(bundleRows, 'id'),
      column(bundleRows, 'used_kb'),
      column(bundleRows, 'overage_policy'),
      column(bundleRows, 'throttle_kbps'),
      column(bundleRows, 'overage_threshold_kb'),
    ],
  );
  await q.query(
    `UPDATE sims s SET cycle_start = x.cycle_start, cycle_usage_kb = x.cycle_usage_kb, cycle_limit_kb = x.cycle_limit_kb, cycle_reset = x.cycle_reset, cycle_anchor = x.cycle_anchor,
            cycle_started_at = x.cycle_started_at, cycle_ends_at = x.cycle_ends_at, overage_control = x.overage_control, flow_control_policy = x.overage_control
       FROM unnest($1::text[], $2::date[], $3::bigint[], $4::bigint[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::timestamptz[], $9::text[])
            AS x(id, cycle_start, cycle_usage_kb, cycle_limit_kb, cycle_reset, cycle_anchor, cycle_started_at, cycle_ends_at, overage_control)
      WHERE s.id = x.id`,
    [
      column(simRows, 'id'),
      column(simRows, 'cycle_start'),
      column(simRows, 'cycle_usage_kb'),
      column(simRows, 'cycle_limit_kb'),
      column(simRows, 'cycle_reset'),
      column(simRows, 'cycle_anchor'),
      column(simRows, 'cycle_started_at'),
      column(simRows, 'cycle_ends_at'),
      column(simRows, 'overage_control'),
    ],
  );
  // When the allowance was reached: the end of the CDR that took the cycle's usage to its limit.
  await q.query(
    `UPDATE sims s SET overage_at = x.at, flow_control_at = CASE WHEN s.flow_control_policy <> 'none' THEN x.at END
       FROM (SELECT DISTINCT ON (r.sim_id) r.sim_id, r.end_at AS at
               FROM (SELECT c.sim_id, c.end_at, c.start_at, sum(c.volume_kb) OVER (PARTITION BY c.sim_id ORDER BY c.start_at, c.id) AS run, s.cycle_limit_kb
                       FROM cdrs c JOIN sims s ON s.org_id = c.org_id AND s.id = c.sim_id
                      WHERE s.cycle_limit_kb IS NOT NULL AND s.cycle_usage_kb >= s.cycle_limit_kb AND c.start_at >= s.cycle_started_at) r
              WHERE r.run >= r.cycle_limit_kb ORDER BY r.sim_id, r.run) x
      WHERE s.id = x.sim_id`,
  );
}
