/** Generators: pools and SIMs, their bundles, and their lifecycle events. */
import { makeImei } from '../../../common/iccid.js';
import type { SimStatus } from '../../../common/lifecycle.js';
import { COUNTRIES, DEVICE_KINDS, NETWORKS, OVERAGE, PLANS, POOL_PLAN, type Plan, ROAMING, SUPPLEMENT_PLAN, TACS, TAGS, TEST_PLAN } from './catalogue.js';
import { BUSY_TASK_ID, DEMO_FIXED, FLEETS, FLEET_SIZES, type FixedSim, SIM_TECHNOLOGIES, type SimTechnology, fixedId, iccidAt, simIdOf } from './fixtures.js';
import { type Ctx, DAY, HOUR, MINUTE, type Row, type SimSeed, dateOnly, insertRows, monthStart, perDayKb, round2 } from './rows.js';

/** The test period's length in days. */
const TEST_DAYS = 30;
/** How long a SIM's test period ran before its activation: its whole length, or less when it was activated sooner (the period starts on pre-activation at the earliest). */
const testDays = (preActivatedAt: Date | null, activatedAt: Date | null) =>
  preActivatedAt && activatedAt ? Math.min(TEST_DAYS, Math.floor((activatedAt.getTime() - preActivatedAt.getTime()) / DAY)) : TEST_DAYS;

export async function seedPoolsAndSims(ctx: Ctx): Promise<void> {
  const { rng, now, size } = ctx;
  const poolDefs: { org: string; name: string; target: number; overage: string; optIn: string; rule: string }[] = [
    { org: 'org-demo', name: 'EU Fleet Pool', target: size === 'small' ? 4 : 150, overage: 'no_limit', optIn: 'automatic', rule: 'standard' },
  ];
  if (size === 'demo') {
    poolDefs.push(
      { org: 'org-demo', name: 'Cold Chain Pool', target: 60, overage: 'stop_overage_sims', optIn: 'manual', rule: 'pro_rata' },
      { org: 'org-demo-north', name: 'North Trucks Pool', target: 30, overage: 'no_limit', optIn: 'automatic', rule: 'standard' },
    );
  }
  const poolRows: Row[] = [];
  poolDefs.forEach((p, i) => {
    const n = poolDefs.slice(0, i).filter((x) => x.org === p.org).length;
    const id = fixedId(`pool:${p.org}:${n}`);
    ctx.pools.push({ id, org: p.org, members: [] });
    const created = monthStart(now, -4 - i);
    poolRows.push({
      org_id: p.org,
      id,
      name: p.name,
      bundle_name: POOL_PLAN.name,
      bundle_sku: POOL_PLAN.sku,
      base_bundle_kb: POOL_PLAN.quotaKb,
      cycle_start: dateOnly(monthStart(now)),
      cycle_end: dateOnly(monthStart(now, 1)),
      overage_policy: p.overage,
      opt_in_mode: p.optIn,
      activation_rule: p.rule,
      status: 'active',
      effective_from: dateOnly(monthStart(created, 1)),
      created_at: created,
      updated_at: now,
    });
  });
  await insertRows(ctx.q, 'shared_pools', poolRows);
  const poolTarget = new Map(poolDefs.map((p, i) => [ctx.pools[i].id, p.target]));

  const rows: Row[] = [];
  for (const f of FLEETS) {
    const count = FLEET_SIZES[size][f.org];
    const orgPools = ctx.pools.filter((p) => p.org === f.org);
    for (let i = 0; i < count; i++) {
      const fixed: FixedSim | undefined =
        f.org === 'org-demo' ? DEMO_FIXED[i] : i === 0 ? { status: 'active', sub: 'active_live', tech: 'ONE_IMSI', bundle: 'default' } : undefined;
      const status: SimStatus =
        fixed?.status ??
        rng.weighted<SimStatus>([
          ['active', 55],
          ['pre_activated', 12],
          ['inactive', 10],
          ['paused', 8],
          ['expired', 8],
          ['terminated', 7],
        ]);
      const tech: SimTechnology = fixed?.tech ?? SIM_TECHNOLOGIES[i % 4];
      let sub: string = fixed?.sub ?? status;
      if (!fixed && status === 'pre_activated') sub = rng.chance(0.5) ? 'test' : 'quiet';
      if (!fixed && status === 'active')
        sub = rng.weighted([
          ['active_live', 80],
          ['active_test', 10],
          ['active_ready', 10],
        ]);

      const iccid = iccidAt(f, i);
      const id = simIdOf(iccid);
      const imsi = f.imsiPrefix + String(f.serialBase + i).padStart(10, '0');
      const msisdn =
        f.msisdnPrefix +
        String(f.serialBase + i)
          .slice(-7)
          .padStart(7, '0');
      const used = status !== 'inactive' && status !== 'pre_activated';
      const shipped = new Date(now.getTime() - rng.int(200, 500) * DAY);
      // A SIM still pre-activated is inside its 180-day pre-activated period (the bundle job ends it at its end).
      const preActivatedAt =
        status === 'inactive'
          ? null
          : status === 'pre_activated'
            ? new Date(now.getTime() - rng.int(5, 150) * DAY)
            : new Date(shipped.getTime() + rng.int(5, 30) * DAY);
      const activatedAt = used ? new Date(preActivatedAt!.getTime() + rng.int(5, 60) * DAY) : null;
      const network = used ? (rng.chance(0.15) ? rng.pick(ROAMING) : rng.pick(NETWORKS[f.country])) : null;
      const live = status === 'active' && sub !== 'active_ready';
      const connection = live
        ? rng.weighted([
            ['online', 40],
            ['connected', 30],
            ['offline', 30],
          ])
        : status === 'paused'
          ? 'offline'
          : used
            ? rng.pick(['offline', 'unknown'])
            : 'unknown';
      const located = live && connection !== 'offline';

      let poolId: string | null = null;
      if (fixed?.pool) poolId = orgPools[0].id;
      else if (!fixed && status === 'active' && sub === 'active_live') {
        const open = orgPools.find((p) => p.members.length < poolTarget.get(p.id)!);
        if (open && rng.chance(0.5)) poolId = open.id;
      }

      let expiresAt: Date | null = null;
      if (status === 'active' || status === 'paused') {
        expiresAt = rng.chance(0.06) ? new Date(now.getTime() + rng.int(1, 45) * DAY) : new Date(activatedAt!.getTime() + rng.pick([1, 2, 3]) * 366 * DAY);
        if (expiresAt.getTime() <= now.getTime()) expiresAt = new Date(now.getTime() + rng.int(46, 400) * DAY);
      } else if (status === 'expired' || status === 'terminated') expiresAt = new Date(now.getTime() - rng.int(1, 120) * DAY);

      const plan = poolId ? POOL_PLAN : rng.pick(PLANS);
      if (poolId) rng.pick(PLANS); // one draw either way, so that the rest of the seed keeps its values
      // From 3% to 130% of what the plan allows a day: most SIMs well within it, a few over it (and billed for it).
      const sim: SimSeed = {
        org: f.org,
        id,
        iccid,
        imsi,
        msisdn,
        status,
        sub,
        tech,
        activatedAt,
        network,
        poolId,
        plan,
        dailyKb: Math.max(1, Math.round(perDayKb(plan) * Math.exp(Math.log(0.03) + rng.next() * Math.log(1.3 / 0.03)))),
      };
      ctx.sims.push(sim);
      if (poolId) ctx.pools.find((p) => p.id === poolId)!.members.push(sim);

      rows.push({
        org_id: f.org,
        id,
        iccid,
        imsi,
        msisdn,
        imei: used || sub === 'test' ? makeImei(rng.pick(TACS), (f.serialBase + i) % 1_000_000) : null,
        device_name: rng.chance(0.8) ? `${rng.pick(DEVICE_KINDS)} ${f.country}-${String(i + 1).padStart(4, '0')}` : null,
        notes: rng.chance(0.2)
          ? rng.pick(['Installed in depot 3', 'Replace battery in spring', 'Customer pilot unit', 'Roams between DE and NL', 'Check antenna placement'])
          : null,
        tags: rng.chance(0.6) ? rng.subset(TAGS, 1, 3) : [],
        status,
        sub_status: sub,
        technology: tech,
        product_type: rng.weighted([
          ['industrial', 55],
          ['automotive', 30],
          ['consumer', 15],
        ]),
        batch_no: `B${shipped.getUTCFullYear()}-${String(shipped.getUTCMonth() + 1).padStart(2, '0')}-${String(1 + (i % 7)).padStart(2, '0')}`,
        delivery_note: `DN-${f.country}-${String(100000 + Math.floor(i / 50)).slice(1)}`,
        shipment_date: dateOnly(shipped),
        pool_id: poolId,
        activated_at: activatedAt,
        cycle_start: null,
        // The cycle, its usage and its limit are those of the bundles in use (seedCycles).
        cycle_limit_kb: null,
        // A SIM in use went through its test period before it was activated: it ended (by its 30 days or by the
        // activation, whichever came first), and it has the start it began at to show.
        test_data_status: status === 'pre_activated' ? (sub === 'test' ? 'in_test' : 'not_started') : used ? 'ended' : 'not_started',
        test_data_kb: status === 'inactive' ? null : TEST_PLAN.quotaKb,
        test_period_days: status === 'inactive' ? null : TEST_DAYS,
        test_started_at:
          sub === 'test'
            ? new Date(now.getTime() - rng.int(1, 20) * DAY)
            : used && sub !== 'active_test'
              ? new Date(activatedAt!.getTime() - testDays(preActivatedAt, activatedAt) * DAY)
              : null,
        pre_activated_at: preActivatedAt,
        pre_activated_period_days: status === 'inactive' ? null : 180,
        deactivated_at: status === 'paused' || status === 'expired' || status === 'terminated' ? new Date(now.getTime() - rng.int(1, 90) * DAY) : null,
        deactivated_period_days: status === 'expired' ? 365 : null,
        connection_status: connection,
        apn: used ? (f.org === 'org-other' ? 'iot.other' : 'iot.demo') : null,
        ip: connection === 'online' || connection === 'connected' ? `10.${20 + FLEETS.indexOf(f)}.${Math.floor(i / 250)}.${(i % 250) + 2}` : null,
        network,
        lat: located ? round2(f.center[0] + (rng.next() - 0.5) * 4) : null,
        lon: located ? round2(f.center[1] + (rng.next() - 0.5) * 6) : null,
        location_at: located ? new Date(now.getTime() - rng.int(5, 47 * 60) * MINUTE) : null,
        // What the network does with its data follows from its cycle's usage and overage policy (seedCycles).
        flow_control_policy: 'none',
        expires_at: expiresAt,
        operation: fixed?.operation ?? null,
        operation_task_id: fixed?.operation ? BUSY_TASK_ID : null,
        operation_started_at: fixed?.operation ? new Date(now.getTime() - 2 * MINUTE) : null,
        created_at: shipped,
        updated_at: now,
      });
    }
  }
  await insertRows(ctx.q, 'sims', rows);
  const memberRows: Row[] = [];
  for (const p of ctx.pools) {
    for (const s of p.members) {
      memberRows.push({
        org_id: p.org,
        pool_id: p.id,
        sim_id: s.id,
        iccid: s.iccid,
        joined_at: new Date(Math.max(s.activatedAt!.getTime(), now.getTime() - 120 * DAY)),
      });
    }
    await ctx.q.query('UPDATE shared_pools SET total_sims = $2::int, activated_sims = $2::int, limit_kb = $2::int * base_bundle_kb WHERE id = $1', [
      p.id,
      p.members.length,
    ]);
  }
  await insertRows(ctx.q, 'pool_members', memberRows);
}

export async function seedBundles(ctx: Ctx): Promise<void> {
  const { rng, now } = ctx;
  const rows: Row[] = [];
  const order = (s: SimSeed, type: string, plan: Plan, status: string, requestedAt: Date, extra: Row = {}): void => {
    let orderedAt = requestedAt;
    const prepaid = type.startsWith('BEFORE');
    const overage = type === 'BEFORE_TEST' ? 'stop' : rng.pick(OVERAGE);
    const ended = status === 'EXPIRED' || status === 'CANCELLED';
    // Started by now; one that has ended had started at least two days before.
    const activated = status === 'PENDING' ? null : new Date(Math.min(orderedAt.getTime() + rng.int(0, 3) * DAY, now.getTime() - (ended ? 2 * DAY : 0)));
    if (activated && activated < orderedAt) orderedAt = activated;
    // A bundle in use has not reached its end: one ordered long ago has renewed, term by term, past `now`.
    const term = (plan.reset === 'YEAR_366D' ? 366 : 365) * DAY;
    let expires = activated ? activated.getTime() + term : null;
    if (expires !== null && status === 'IN_USE' && expires <= now.getTime()) expires += Math.ceil((now.getTime() - expires + 1) / term) * term;
    // One that has ended did so in the past: an expired bundle at the end of its term (a test bundle's is 30 days),
    // a cancelled one when it was cancelled.
    const cancelledAt = Math.max(activated?.getTime() ?? 0, Math.min(now.getTime() - DAY, orderedAt.getTime() + 200 * DAY));
    let endedAt: number | null = null;
    if (status === 'EXPIRED') {
      endedAt = Math.min(activated!.getTime() + (plan === TEST_PLAN ? 30 * DAY : term), now.getTime() - DAY);
      expires = endedAt;
    } else if (status === 'CANCELLED') endedAt = cancelledAt;
    rows.push({
      org_id: s.org,
      id: rng.id(),
      sim_id: s.id,
      iccid: s.iccid,
      type,
      payment_mode: prepaid ? 'prepaid' : 'postpaid',
      name: plan.name,
      sku: plan.sku,
      service_type: rng.chance(0.2) ? 'data_sms' : 'data',
      ordered_at: orderedAt,
      activated_at: activated,
      expected_expire_at: expires === null ? null : new Date(expires),
      expired_at: endedAt === null ? null : new Date(endedAt),
      sales_order_id: `SO-${orderedAt.getUTCFullYear()}-${rng.digits(6)}`,
      quota_kb: plan.quotaKb,
      reset_cycle: plan.reset,
      overage_policy: overage,
      throttle_kbps: overage === 'billing_speed_decrease' || overage === 'billing_throttle_after_threshold' ? rng.pick([128, 256]) : null,
      overage_threshold_kb: overage === 'billing_throttle_after_threshold' || overage === 'billing_stop_after_allowance' ? plan.quotaKb * 2 : null,
      out_of_coverage: rng.weighted([
        ['not_applicable', 60],
        ['billing', 25],
        ['shut_down', 15],
      ]),
      coverage_countries: rng.subset(COUNTRIES, 3, 8).sort(),
      status,
      price: plan.price,
      currency: s.org === 'org-other' ? 'GBP' : 'EUR',
      created_at: orderedAt,
      pool_id: null,
      ...extra,
    });
  };
  ctx.sims.forEach((s, idx) => {
    const fixed = s.org === 'org-demo' ? DEMO_FIXED[idx] : undefined;
    const plan = s.plan;
    const base = s.activatedAt ?? new Date(now.getTime() - rng.int(30, 120) * DAY);
    switch (s.status) {
      case 'inactive':
        if (rng.chance(0.5)) order(s, 'BEFORE_BASIC', plan, 'PENDING', base);
        break;
      case 'pre_activated':
        if (fixed?.bundle === 'none') {
          order(s, 'BEFORE_TEST', TEST_PLAN, 'EXPIRED', new Date(now.getTime() - 200 * DAY));
          break;
        }
        order(s, 'BEFORE_TEST', TEST_PLAN, s.sub === 'test' ? 'IN_USE' : 'PENDING', base);
        order(s, 'BEFORE_BASIC', plan, 'PENDING', base);
        break;
      case 'active':
      case 'paused': {
        order(s, 'BEFORE_TEST', TEST_PLAN, 'EXPIRED', new Date(s.activatedAt!.getTime() - 20 * DAY));
        if (s.poolId) {
          order(s, rng.chance(0.5) ? 'BEFORE_SHARE' : 'AFTER_SHARE', POOL_PLAN, 'IN_USE', s.activatedAt!, { pool_id: s.poolId });
        } else {
          order(s, rng.chance(0.6) ? 'BEFORE_BASIC' : 'AFTER_BUNDLE', plan, 'IN_USE', s.activatedAt!);
          // Top-ups are monthly: only a monthly plan takes them, so that a SIM's bundles in use share one cycle.
          if (rng.chance(0.15) && plan.reset === SUPPLEMENT_PLAN.reset)
            order(s, 'BEFORE_SUPPLEMENT', SUPPLEMENT_PLAN, rng.pick(['IN_USE', 'EXPIRED']), new Date(now.getTime() - rng.int(1, 60) * DAY));
          if (rng.chance(0.1) && plan.reset === SUPPLEMENT_PLAN.reset)
            order(s, 'AFTER_FLOW', SUPPLEMENT_PLAN, 'IN_USE', new Date(now.getTime() - rng.int(1, 30) * DAY));
        }
        break;
      }
      case 'expired':
        order(s, 'BEFORE_BASIC', plan, 'EXPIRED', s.activatedAt!);
        break;
      case 'terminated':
        order(s, 'AFTER_BUNDLE', plan, rng.chance(0.5) ? 'CANCELLED' : 'EXPIRED', s.activatedAt!);
        break;
    }
  });
  await insertRows(ctx.q, 'bundle_orders', rows);
}

export async function seedSimEvents(ctx: Ctx): Promise<void> {
  const { rng, now } = ctx;
  const rows: Row[] = [];
  const ev = (s: SimSeed, from: SimStatus | null, to: SimStatus, at: Date, source = 'system', account: string | null = null): void => {
    rows.push({
      org_id: s.org,
      sim_id: s.id,
      iccid: s.iccid,
      type: 'status_change',
      from_status: from,
      to_status: to,
      at,
      source,
      account_id: account,
      detail: {},
    });
  };
  for (const s of ctx.sims) {
    if (s.status === 'inactive') continue;
    const base = s.activatedAt ?? new Date(now.getTime() - rng.int(10, 60) * DAY);
    ev(s, 'inactive', 'pre_activated', new Date(base.getTime() - rng.int(5, 30) * DAY));
    if (s.status === 'pre_activated') continue;
    ev(s, 'pre_activated', 'active', base, rng.chance(0.5) ? 'console' : 'network', null);
    const later = new Date(Math.min(now.getTime() - HOUR, base.getTime() + rng.int(30, 200) * DAY));
    if (s.status === 'paused') ev(s, 'active', 'paused', later, 'console', s.org === 'org-other' ? 'acc-other-admin' : 'acc-operator');
    if (s.status === 'expired') ev(s, 'active', 'expired', later);
    if (s.status === 'terminated') {
      ev(s, 'active', 'expired', later);
      ev(s, 'expired', 'terminated', new Date(Math.min(now.getTime() - MINUTE, later.getTime() + 30 * DAY)));
    }
    if (s.status === 'active' && rng.chance(0.1)) {
      rows.push({
        org_id: s.org,
        sim_id: s.id,
        iccid: s.iccid,
        type: 'imei_change',
        at: new Date(now.getTime() - rng.int(1, 20) * DAY),
        source: 'network',
        detail: { from: makeImei(rng.pick(TACS), rng.int(0, 999_999)) },
      });
    }
  }
  await insertRows(ctx.q, 'sim_events', rows);
}
