/**
 * Shared pools that act, a month stepped every 6 hours on a fixed clock (no sleeps), with two instances:
 * SIMs of the pool are enrolled as they come into service and exit as they are terminated (events created, effected by
 * the next daily recompute); the pool's size is recomputed daily (activated SIMs × bundle size) with limit events; its
 * usage passing the limit is one overage event per cycle, whoever records the CDR; under "stop overage SIMs" every SIM
 * over its share is stopped through the network adapter and carries at most one CDR past it; the next cycle releases
 * them and recovers the overage. The network's traffic is driven here (the edge), through two instances' reports.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/db/ids.js';
import type { SimRef } from '../../server/network/adapter.js';
import { defineCycles, syncPolicies } from '../../server/bundles/bundle-engine.js';
import { networkReports } from '../../server/network-reports/network-reports.js';
import { SimulatedNetwork, networkNamed } from '../../server/network/simulator.js';
import { runPoolJob } from '../../server/pool/pool-engine.js';
import { call, DB_KINDS, DEMO, signedInSuite, signIn } from '../helper.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BASE_KB = 50_000;
/** The 20th of next month, 00:00 UTC: the month's end and the next month's first ten days are stepped. */
const now0 = new Date();
const T0 = new Date(Date.UTC(now0.getUTCFullYear(), now0.getUTCMonth() + 1, 20));
const CYCLE = T0.toISOString().slice(0, 8) + '01';
const NEXT = new Date(Date.UTC(T0.getUTCFullYear(), T0.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
const END = new Date(Date.UTC(T0.getUTCFullYear(), T0.getUTCMonth() + 1, 10)).getTime();

describe.each(DB_KINDS)('the pool engine on %s', (kind) => {
  const suite = signedInSuite(kind);
  let net: SimulatedNetwork;
  const instances: ReturnType<typeof networkReports>[] = [];
  const poolId = newId();
  let sims: SimRef[] = [];
  const one = async <T>(sql: string, params: unknown[] = []) => (await suite.t.db.query<T>(sql, params)).rows[0];
  const home = networkNamed('Vodafone DE 262-02')!;
  /** SIM 0 is heavy (20 MB a step), the others light (2 MB). */
  const stepKb = (i: number) => (i === 0 ? 20_000 : 2_000);

  /** One session per SIM in service the network lets carry data, half through each instance's reports, at once. */
  const traffic = async (now: Date, active: Set<string>) =>
    Promise.all(
      sims.map(async (s, i) => {
        if (!active.has(s.simId) || net.dataPolicyOf(s.simId) === 'stop') return;
        await instances[i % 2].usage({
          sim: s,
          network: home,
          planCode: 'POOL',
          rat: 'LTE',
          direction: 'downlink',
          volumeKb: stepKb(i),
          start: new Date(now.getTime() - 600_000),
          end: now,
        });
      }),
    );

  beforeAll(async () => {
    net = new SimulatedNetwork(suite.t.db, networkReports(suite.t.db), { enabled: false });
    instances.push(
      networkReports(suite.t.db, () => net),
      networkReports(suite.t.db, () => net),
    );
    sims = (
      await suite.t.db.query<SimRef>(
        `SELECT org_id AS "orgId", id AS "simId", iccid, imsi, msisdn FROM sims
          WHERE org_id = 'org-demo' AND status = 'active' AND operation IS NULL AND pool_id IS NULL AND pool_enrolled_in IS NULL ORDER BY id LIMIT 5`,
      )
    ).rows;
    expect(sims).toHaveLength(5);
    const ids = sims.map((s) => s.simId);
    await suite.t.db.tx(async (q) => {
      // The SIMs' own bundles stand aside (their cycles are the bundle engine's, tested in bundle-cycles.test.ts).
      await q.query(`UPDATE bundle_orders SET status = 'CANCELLED', expired_at = $2 WHERE sim_id = ANY($1::text[]) AND status IN ('PENDING', 'IN_USE')`, [
        ids,
        T0.toISOString(),
      ]);
      await q.query(
        `UPDATE sims SET overage_control = 'none', flow_control_policy = 'none', coverage_barred = false, out_of_coverage_at = NULL, rule_control = 'none', policy_unsent = false WHERE id = ANY($1::text[])`,
        [ids],
      );
      await defineCycles(q, sims, T0);
      await q.query(
        `INSERT INTO shared_pools (org_id, id, name, bundle_name, bundle_sku, base_bundle_kb, cycle_start, cycle_end, overage_policy, opt_in_mode, activation_rule, status, effective_from)
         VALUES ('org-demo', $1, 'Engine Test Pool', 'Pool share 50 MB', 'TEST-POOL-50M', $2, $3::date, $4::date, 'stop_overage_sims', 'manual', 'standard', 'active', $3::date)`,
        [poolId, BASE_KB, CYCLE, NEXT],
      );
      // Four SIMs in service belong to the pool; the fifth belongs to it before its activation.
      await q.query(`UPDATE sims SET pool_id = $2, activated_at = $3 WHERE id = ANY($1::text[])`, [ids.slice(0, 4), poolId, `${CYCLE}T00:00:00Z`]);
      await q.query(`UPDATE sims SET pool_id = $2, status = 'inactive', sub_status = 'inactive', activated_at = NULL WHERE id = $1`, [ids[4], poolId]);
    });
    await syncPolicies(suite.t.db, net);
  });

  it('over a month stepped every 6 hours: enrolments, exits, daily limits, one overage per cycle with two instances, stops enforced, recovery', async () => {
    const ids = sims.map((s) => s.simId);
    const firstEvent = Number((await one<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM events')).id);
    const active = new Set(ids.slice(0, 4));
    let released = false;
    let told = false;
    for (let now = T0.getTime(); now <= END; now += 6 * HOUR) {
      const at = new Date(now);
      // Day 3: the fifth SIM is activated (the network's answer); day 5: the fourth is terminated.
      if (now === T0.getTime() + 3 * DAY) {
        await suite.t.db.query(`UPDATE sims SET status = 'active', sub_status = 'active_live', activated_at = $2 WHERE id = $1`, [ids[4], at.toISOString()]);
        active.add(ids[4]);
      }
      if (now === T0.getTime() + 5 * DAY) {
        await suite.t.db.query(`UPDATE sims SET status = 'terminated', sub_status = 'terminated' WHERE id = $1`, [ids[3]]);
        active.delete(ids[3]);
      }
      await traffic(at, active);
      // Two instances run the job at once: one holds the lease.
      const [a, b] = await Promise.all([runPoolJob(suite.t.db, net, at, 'instance-a'), runPoolJob(suite.t.db, net, at, 'instance-b')]);
      expect(Number(a.ran) + Number(b.ran)).toBe(1);
      if (now % (3 * DAY) === 0) await suite.t.db.query(`UPDATE job_leases SET lease_owner = NULL, lease_until = NULL WHERE name = 'pool_engine'`);

      const pool = await one<{ usage_kb: string; limit_kb: string; cycle_start: string; overage_cycle: string | null; members_kb: string; rollup_kb: string }>(
        `SELECT p.usage_kb, p.limit_kb, p.cycle_start::text, p.overage_cycle::text,
                (SELECT coalesce(sum(cycle_usage_kb), 0) FROM pool_members m WHERE m.pool_id = p.id AND (m.left_at IS NULL OR m.left_at >= p.cycle_start::timestamp AT TIME ZONE 'UTC')) AS members_kb,
                (SELECT coalesce(sum(volume_kb), 0) FROM pool_usage_daily d WHERE d.pool_id = p.id AND d.day >= p.cycle_start AND d.day < p.cycle_end) AS rollup_kb
           FROM shared_pools p WHERE p.id = $1`,
        [poolId],
      );
      expect(pool.cycle_start).toBe(now < Date.parse(`${NEXT}T00:00:00Z`) ? CYCLE : NEXT);
      // The pool's usage is its members' of the cycle (one that left keeps what it used) and its rollup's.
      expect(Number(pool.usage_kb)).toBe(Number(pool.members_kb));
      expect(Number(pool.usage_kb)).toBe(Number(pool.rollup_kb));
      // Stop enforced: in overage, every enrolled SIM over its share is stopped at the network, and only those.
      const members = (
        await suite.t.db.query<{ sim_id: string; usage: string; pool_stopped: boolean }>(
          `SELECT m.sim_id, m.cycle_usage_kb AS usage, s.pool_stopped FROM pool_members m JOIN sims s ON s.id = m.sim_id WHERE m.pool_id = $1 AND m.left_at IS NULL`,
          [poolId],
        )
      ).rows;
      const over = pool.overage_cycle === pool.cycle_start;
      if (Number(pool.usage_kb) > Number(pool.limit_kb)) expect(over).toBe(true);
      for (const m of members) {
        const share = BASE_KB;
        expect({ sim: m.sim_id, at, stopped: m.pool_stopped }).toEqual({ sim: m.sim_id, at, stopped: over && Number(m.usage) > share });
        expect(net.dataPolicyOf(m.sim_id)).toBe(m.pool_stopped ? 'stop' : 'none');
        if (m.pool_stopped && !told) {
          // The SIM page says why: the pool, and until when (its next cycle).
          told = true;
          const iccid = sims.find((x) => x.simId === m.sim_id)!.iccid;
          const res = await call(suite.t.app, await signIn(suite.t.app, DEMO.admin), { method: 'GET', url: `/api/main/sim/bundle/overuse_policy/${iccid}` });
          expect(res.json().data).toMatchObject({
            control: 'stop',
            reason: 'pool',
            pool: { id: poolId, name: 'Engine Test Pool', cycleEnd: pool.cycle_start === CYCLE ? NEXT : expect.any(String) },
            rule: null,
          });
        }
      }
      if (pool.cycle_start === NEXT && !released) {
        // Recovery: the first step of the next cycle finds every SIM released.
        released = true;
        for (const id of ids) expect(net.dataPolicyOf(id)).toBe('none');
      }
    }
    expect(released).toBe(true);
    expect(told).toBe(true);

    const events = (
      await suite.t.db.query<{ type: string; state: string; sim_count: number | null; limit_kb: string | null; detail: Record<string, unknown>; at: Date }>(
        'SELECT type, state, sim_count, limit_kb, detail, at FROM pool_events WHERE pool_id = $1 ORDER BY id',
        [poolId],
      )
    ).rows;
    const of = (type: string) => events.filter((e) => e.type === type);
    // Enrolments: the four at the first run, the fifth after its activation; all effected by a daily recompute.
    expect(
      of('sim_enrolment')
        .map((e) => e.detail.simId)
        .sort(),
    ).toEqual([...ids].sort());
    expect(of('sim_enrolment').every((e) => e.state === 'effected')).toBe(true);
    expect(of('sim_exit')).toMatchObject([{ state: 'effected', detail: { simId: ids[3], reason: 'terminated' } }]);
    // Daily limits: 4 SIMs, then 5, then 4 again, each change an event.
    expect(of('limit_increase').map((e) => Number(e.limit_kb))).toEqual([4 * BASE_KB, 5 * BASE_KB]);
    expect(of('limit_decrease').map((e) => Number(e.limit_kb))).toEqual([4 * BASE_KB]);
    expect(of('scheduled_scan').length).toBe(Math.floor((END - T0.getTime()) / DAY) + 1);
    // One overage per cycle (both cycles went over), one recovery at the turn of the month.
    expect(of('overage').map((e) => e.detail.cycleStart)).toEqual([CYCLE, NEXT]);
    expect(of('overage_recovery')).toMatchObject([{ state: 'effected', detail: { previousCycleStart: CYCLE, cycleStart: NEXT } }]);

    // Every pool event is in the event log, as are each stop and release.
    const log = (
      await suite.t.db.query<{ subtype: string; n: string }>(
        `SELECT subtype, count(*) AS n FROM events WHERE id > $1 AND type = 'pool' AND subject = $2 GROUP BY subtype`,
        [firstEvent, poolId],
      )
    ).rows;
    expect(Number(log.find((l) => l.subtype === 'overage')?.n)).toBe(2);
    expect(Number(log.find((l) => l.subtype === 'sim_enrolment')?.n)).toBe(10); // created, then effected
    const stops = (
      await suite.t.db.query<{ subtype: string; n: string }>(
        `SELECT subtype, count(*) AS n FROM events WHERE id > $1 AND type = 'usage' AND subtype IN ('pool_stopped', 'pool_released') AND data->>'poolId' = $2 GROUP BY subtype`,
        [firstEvent, poolId],
      )
    ).rows;
    expect(Number(stops.find((s) => s.subtype === 'pool_stopped')?.n)).toBeGreaterThanOrEqual(2);
    expect(Number(stops.find((s) => s.subtype === 'pool_released')?.n)).toBeGreaterThanOrEqual(1);

    // Once its pool is over, a SIM over its share carries at most one more CDR in the cycle (the one that stops it).
    const overages = of('overage').map((e) => ({ cycle: String(e.detail.cycleStart), at: new Date(e.at).getTime() }));
    const cdrs = (
      await suite.t.db.query<{ sim_id: string; volume_kb: string; start_at: Date; end_at: Date }>(
        'SELECT sim_id, volume_kb, start_at, end_at FROM cdrs WHERE sim_id = ANY($1::text[]) AND start_at >= $2 ORDER BY sim_id, start_at, id',
        [ids, T0.toISOString()],
      )
    ).rows;
    let judged = 0;
    for (const id of ids) {
      for (const o of overages) {
        const next = o.cycle === CYCLE ? NEXT : '9999-12-31';
        let used = 0;
        let past = 0;
        for (const c of cdrs.filter(
          (x) => x.sim_id === id && new Date(x.start_at).toISOString().slice(0, 10) >= o.cycle && new Date(x.start_at).toISOString().slice(0, 10) < next,
        )) {
          if (used > BASE_KB && new Date(c.end_at).getTime() >= o.at) past++;
          used += Number(c.volume_kb);
        }
        expect({ id, cycle: o.cycle, past: Math.min(past, 2) }).toEqual({ id, cycle: o.cycle, past: Math.min(past, 1) });
        judged += past;
      }
    }
    expect(judged).toBeGreaterThanOrEqual(1);
  }, 600_000);
});
