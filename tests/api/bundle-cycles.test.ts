/**
 * Bundles that act, a simulated month stepped on a fixed clock (no sleeps): for each reset cycle and each
 * overage policy, a SIM that crosses its allowance is stopped, throttled or billed as its policy says and released at
 * its next cycle; each cycle's usage equals the sum of its CDRs; no stopped SIM carries a CDR once its allowance (or
 * its extra allowance) was reached; two instances running the job roll each cycle once. Then bundle status by time,
 * test and pre-activated periods, and the out-of-coverage policy.
 *
 * The network's traffic is driven here (the edge): each step, every SIM the network lets carry data sends an uplink and
 * a downlink CDR through the server's NetworkReports, the network (the simulator, traffic off) keeping the policies the
 * server set through the adapter; then the bundle job runs at the step's time.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/db/ids.js';
import { cycleEnd, cycleStart, type OveragePolicy, type ResetCycle } from '../../server/domain/bundle-cycle.js';
import type { SimRef } from '../../server/network/adapter.js';
import { advanceBundles, defineCycles, endPeriods, rollCycles, runBundleJob, syncPolicies } from '../../server/bundles/bundle-engine.js';
import { networkReports } from '../../server/network-reports/network-reports.js';
import { SimulatedNetwork, networkNamed } from '../../server/network/simulator.js';
import { call, DB_KINDS, DEMO, signedInSuite, signIn } from '../helper.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MINUTE = 60_000;
/** The next UTC midnight: after every seeded CDR. */
const T0 = new Date(Math.ceil(Date.now() / DAY) * DAY);
const RESETS: ResetCycle[] = ['DAY', 'DAY_24H', 'MONTH', 'MONTH_31D', 'YEAR_366D'];
const POLICIES: OveragePolicy[] = ['stop', 'billing', 'billing_speed_decrease', 'billing_throttle_after_threshold', 'billing_stop_after_allowance'];
/** The allowance, and what one step's session carries at full speed (uplink and downlink). */
const QUOTA = 50_000;
const STEP_KB = 30_000;
/** A session lasts ten minutes: a throttled SIM carries at most kbps / 8 KB a second of it. */
const SESSION_S = 600;
/** The anchors: each reset cycle rolls over inside the month (the 24-hour one at 03:00, off the steps' hours). */
const ANCHOR: Record<ResetCycle, Date> = {
  DAY: new Date(T0.getTime() - 40 * DAY),
  DAY_24H: new Date(T0.getTime() - 5 * DAY + 3 * HOUR),
  MONTH: new Date(T0.getTime() - 40 * DAY),
  MONTH_31D: new Date(T0.getTime() - 20 * DAY),
  YEAR_366D: new Date(T0.getTime() - 360 * DAY),
};

interface TestSim extends SimRef {
  reset: ResetCycle;
  policy: OveragePolicy;
  throttle: 128 | 256 | null;
}

describe.each(DB_KINDS)('bundle cycles and overage policies on %s', (kind) => {
  const suite = signedInSuite(kind);
  let net: SimulatedNetwork;
  let reports: ReturnType<typeof networkReports>;
  const sims: TestSim[] = [];
  const one = async <T>(sql: string, params: unknown[] = []) => (await suite.t.db.query<T>(sql, params)).rows[0];
  const home = networkNamed('Vodafone DE 262-02')!;

  /** One session of the network's: the CDRs a SIM may carry now, as the network enforces its policy. */
  const traffic = async (now: Date) => {
    for (const s of sims) {
      for (const direction of ['uplink', 'downlink'] as const) {
        const policy = net.dataPolicyOf(s.simId);
        if (policy === 'stop') break;
        const kb = policy === 'none' ? STEP_KB / 2 : Math.min(STEP_KB / 2, ((Number(policy.slice(9)) / 8) * SESSION_S) / 2);
        await reports.usage({
          sim: s,
          network: home,
          planCode: 'TEST',
          rat: 'LTE',
          direction,
          volumeKb: kb,
          start: new Date(now.getTime() - SESSION_S * 1000),
          end: now,
        });
      }
    }
  };

  beforeAll(async () => {
    net = new SimulatedNetwork(suite.t.db, networkReports(suite.t.db), { enabled: false });
    reports = networkReports(suite.t.db, () => net);
    // 25 active SIMs, one per reset cycle and overage policy, each on one bundle of ours.
    const rows = (
      await suite.t.db.query<SimRef>(
        `SELECT org_id AS "orgId", id AS "simId", iccid, imsi, msisdn FROM sims WHERE status = 'active' AND operation IS NULL AND pool_id IS NULL ORDER BY id LIMIT 25`,
      )
    ).rows;
    expect(rows).toHaveLength(25);
    rows.forEach((r, i) => {
      const policy = POLICIES[i % 5];
      sims.push({
        ...r,
        reset: RESETS[Math.floor(i / 5)],
        policy,
        throttle: policy === 'billing_speed_decrease' ? 128 : policy === 'billing_throttle_after_threshold' ? 256 : null,
      });
    });
    await suite.t.db.tx(async (q) => {
      const ids = sims.map((s) => s.simId);
      await q.query(`UPDATE bundle_orders SET status = 'CANCELLED', expired_at = $2 WHERE sim_id = ANY($1::text[]) AND status IN ('PENDING', 'IN_USE')`, [
        ids,
        T0.toISOString(),
      ]);
      // A clean slate: their seeded CDRs go, so each cycle's usage is what this month's steps carry.
      await q.query('DELETE FROM cdrs WHERE sim_id = ANY($1::text[])', [ids]);
      await q.query(
        `UPDATE sims SET overage_control = 'none', flow_control_policy = 'none', coverage_barred = false, out_of_coverage_at = NULL, policy_unsent = false WHERE id = ANY($1::text[])`,
        [ids],
      );
      for (const s of sims) {
        await q.query(
          `INSERT INTO bundle_orders (org_id, id, sim_id, iccid, type, payment_mode, name, sku, ordered_at, activated_at, expected_expire_at, quota_kb, reset_cycle,
                                      overage_policy, throttle_kbps, overage_threshold_kb, out_of_coverage, coverage_countries, status)
           VALUES ($1, $2, $3, $4, 'BEFORE_BASIC', 'prepaid', 'Test plan', 'TEST', $5, $5, $6, $7, $8, $9, $10, $11, 'shut_down', '{DE,ES,GB}', 'IN_USE')`,
          [
            s.orgId,
            newId(),
            s.simId,
            s.iccid,
            ANCHOR[s.reset].toISOString(),
            new Date(T0.getTime() + 400 * DAY).toISOString(),
            QUOTA,
            s.reset,
            s.policy,
            s.throttle,
            s.policy === 'billing_throttle_after_threshold' || s.policy === 'billing_stop_after_allowance' ? 2 * QUOTA : null,
          ],
        );
      }
      await defineCycles(q, sims, T0);
    });
    await syncPolicies(suite.t.db, net);
  });

  it("defines each SIM's cycle from its bundle, with the bounds of the domain rule", async () => {
    for (const s of sims) {
      const row = await one<{ cycle_started_at: Date; cycle_ends_at: Date; cycle_limit_kb: string; cycle_usage_kb: string }>(
        'SELECT cycle_started_at, cycle_ends_at, cycle_limit_kb, cycle_usage_kb FROM sims WHERE id = $1',
        [s.simId],
      );
      expect(new Date(row.cycle_started_at)).toEqual(cycleStart(s.reset, ANCHOR[s.reset], T0));
      expect(new Date(row.cycle_ends_at)).toEqual(cycleEnd(s.reset, ANCHOR[s.reset], T0));
      expect(Number(row.cycle_limit_kb)).toBe(QUOTA);
    }
  });

  it('over a month stepped every 6 hours, enforces each policy until the next cycle, keeps usage equal to the CDRs, and rolls each cycle once with two instances', async () => {
    const ids = sims.map((s) => s.simId);
    const firstEvent = Number((await one<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM events')).id);
    const firstCdr = Number((await one<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM cdrs')).id);
    /** Per SIM, what was seen of each cycle: its start, the controls the network held during it. */
    const seen = new Map<string, Map<string, Set<string>>>();
    const end = T0.getTime() + 32 * DAY;
    for (let now = T0.getTime() + 6 * HOUR; now <= end; now += 6 * HOUR) {
      const at = new Date(now);
      await traffic(at);
      // What the network enforces after the traffic (a crossing in the last session of a cycle is released just after).
      const controls = new Map(sims.map((x) => [x.simId, net.dataPolicyOf(x.simId)]));
      // Two instances run the job at the same time: one holds the lease and runs it.
      const [a, b] = await Promise.all([runBundleJob(suite.t.db, net, at, 'instance-a'), runBundleJob(suite.t.db, net, at, 'instance-b')]);
      expect(Number(a.ran) + Number(b.ran)).toBe(1);
      // Let the other instance take it on some steps (the lease is given back as it would be by a stopping instance).
      if (now % (5 * DAY) === 0) await suite.t.db.query(`UPDATE job_leases SET lease_owner = NULL, lease_until = NULL WHERE name = 'bundle_cycles'`);

      // The cycle's usage is the sum of the CDRs that started in it; what the network enforces is the SIM's policy.
      const state = (
        await suite.t.db.query<{ id: string; usage: string; cdr_kb: string; flow: string; started: Date; ends: Date; unsent: boolean }>(
          `SELECT s.id, s.cycle_usage_kb AS usage, s.flow_control_policy AS flow, s.cycle_started_at AS started, s.cycle_ends_at AS ends, s.policy_unsent AS unsent,
                  (SELECT coalesce(sum(volume_kb), 0) FROM cdrs c WHERE c.org_id = s.org_id AND c.sim_id = s.id AND c.start_at >= s.cycle_started_at AND c.start_at < s.cycle_ends_at) AS cdr_kb
             FROM sims s WHERE s.id = ANY($1::text[])`,
          [ids],
        )
      ).rows;
      for (const r of state) {
        expect({ sim: r.id, at, usage: Number(r.usage) }).toEqual({ sim: r.id, at, usage: Number(r.cdr_kb) });
        expect(new Date(r.started).getTime()).toBeLessThanOrEqual(now);
        expect(new Date(r.ends).getTime()).toBeGreaterThan(now);
        expect(r.unsent).toBe(false);
        expect(net.dataPolicyOf(r.id)).toBe(r.flow);
        const cycles = seen.get(r.id) ?? new Map<string, Set<string>>();
        const key = new Date(r.started).toISOString();
        cycles.set(key, (cycles.get(key) ?? new Set()).add(r.flow).add(controls.get(r.id)!));
        seen.set(r.id, cycles);
      }
    }

    // Per SIM and cycle, the CDRs in order with the usage before each: the policy judged from them.
    const cdrs = (
      await suite.t.db.query<{ sim_id: string; volume_kb: string; start_at: Date }>(
        'SELECT sim_id, volume_kb, start_at FROM cdrs WHERE id > $1 AND sim_id = ANY($2::text[]) ORDER BY sim_id, start_at, id',
        [firstCdr, ids],
      )
    ).rows;
    const resets = (
      await suite.t.db.query<{ subject: string; n: string; distinct_starts: string }>(
        `SELECT subject, count(*) AS n, count(DISTINCT data->>'cycleStart') AS distinct_starts FROM events WHERE id > $1 AND type = 'usage' AND subtype = 'cycle_reset' GROUP BY subject`,
        [firstEvent],
      )
    ).rows;
    const reached = (
      await suite.t.db.query<{ subject: string; n: string; cycles: string }>(
        `SELECT subject, count(*) AS n, count(DISTINCT data->>'cycleStart') AS cycles FROM events WHERE id > $1 AND type = 'usage' AND subtype = 'allowance_reached' GROUP BY subject`,
        [firstEvent],
      )
    ).rows;
    for (const s of sims) {
      const starts: number[] = [];
      for (let c = cycleStart(s.reset, ANCHOR[s.reset], T0); c.getTime() <= end; c = cycleEnd(s.reset, ANCHOR[s.reset], c)) starts.push(c.getTime());
      // Each boundary in the month rolled once (two instances, the CDR path and the job notwithstanding).
      const r = resets.find((x) => x.subject === s.iccid);
      expect({ sim: s.iccid, reset: s.reset, rolled: Number(r?.n ?? 0) }).toEqual({ sim: s.iccid, reset: s.reset, rolled: starts.length - 1 });
      expect(Number(r?.distinct_starts ?? 0)).toBe(starts.length - 1);
      // The allowance was reached in every cycle the month saw (the first and the ones after), one event each.
      const hit = reached.find((x) => x.subject === s.iccid);
      expect(Number(hit?.n)).toBe(Number(hit?.cycles));
      expect(Number(hit?.n)).toBeGreaterThanOrEqual(2);

      const cycleOf = (at: Date) => starts.filter((c) => c <= at.getTime()).at(-1)!;
      const byCycle = new Map<number, number[]>();
      for (const c of cdrs.filter((x) => x.sim_id === s.simId))
        byCycle.set(cycleOf(new Date(c.start_at)), [...(byCycle.get(cycleOf(new Date(c.start_at))) ?? []), Number(c.volume_kb)]);
      const bar = s.policy === 'stop' ? QUOTA : s.policy === 'billing_stop_after_allowance' ? 2 * QUOTA : null;
      const slow = s.policy === 'billing_speed_decrease' ? QUOTA : s.policy === 'billing_throttle_after_threshold' ? 2 * QUOTA : null;
      for (const [cycle, volumes] of byCycle) {
        let used = 0;
        volumes.forEach((kb) => {
          // A barred SIM carries nothing once its allowance is reached: one CDR at most goes past it.
          if (bar !== null)
            expect({ sim: s.iccid, policy: s.policy, cycle, usedBefore: used >= bar }).toEqual({ sim: s.iccid, policy: s.policy, cycle, usedBefore: false });
          // A throttled SIM carries at most its speed from then on.
          if (slow !== null && used >= slow) expect(kb).toBeLessThanOrEqual(((s.throttle! / 8) * SESSION_S) / 2);
          used += kb;
        });
        // Billing SIMs go on past their allowance at full speed (the overage billed).
        if (s.policy === 'billing' && volumes.length * (STEP_KB / 2) > QUOTA) expect(used).toBeGreaterThan(QUOTA);
      }
      // Every cycle starts released: the first state seen of a cycle after the first is no control unless it crossed already.
      const cycles = seen.get(s.simId)!;
      const controls = new Set([...cycles.values()].flatMap((v) => [...v]));
      if (s.policy === 'stop' || s.policy === 'billing_stop_after_allowance') expect(controls).toContain('stop');
      if (s.policy === 'billing_speed_decrease') expect(controls).toContain('throttle_128');
      if (s.policy === 'billing_throttle_after_threshold') expect(controls).toContain('throttle_256');
      if (s.policy === 'billing') expect([...controls]).toEqual(['none']);
      if (s.policy !== 'billing') {
        // Released at the next cycle: each cycle the month saw started with no control (a new cycle's first CDR is free).
        const released = (
          await suite.t.db.query<{ n: string }>(
            `SELECT count(*) AS n FROM events WHERE id > $1 AND type = 'usage' AND subtype = 'overage_released' AND subject = $2`,
            [firstEvent, s.iccid],
          )
        ).rows[0];
        // One release per cycle that ended with a control on (the cycle still running keeps its own).
        const controlled = Number(
          (
            await suite.t.db.query<{ n: string }>(
              `SELECT count(DISTINCT (e.data->>'cycleStart')::timestamptz) AS n FROM events e JOIN sims s ON s.iccid = e.subject
                WHERE e.id > $1 AND e.type = 'usage' AND e.subtype IN ('overage_stopped', 'overage_throttled') AND e.subject = $2
                  AND (e.data->>'cycleStart')::timestamptz <> s.cycle_started_at`,
              [firstEvent, s.iccid],
            )
          ).rows[0].n,
        );
        expect({ sim: s.iccid, reset: s.reset, policy: s.policy, released: Number(released.n) }).toEqual({
          sim: s.iccid,
          reset: s.reset,
          policy: s.policy,
          released: controlled,
        });
        expect(controlled).toBeGreaterThanOrEqual(1);
      }
    }
  }, 600_000);

  it('rolls a cycle once when two transactions roll at the same time, without a lease', async () => {
    const s = sims[0];
    const at = new Date(T0.getTime() + 60 * DAY);
    const before = Number(
      (await one<{ n: string }>(`SELECT count(*) AS n FROM events WHERE type = 'usage' AND subtype = 'cycle_reset' AND subject = $1`, [s.iccid])).n,
    );
    const rolled = await Promise.all([suite.t.db.tx((q) => rollCycles(q, at)), suite.t.db.tx((q) => rollCycles(q, at))]);
    expect(rolled[0] + rolled[1]).toBeGreaterThanOrEqual(1);
    const after = Number(
      (await one<{ n: string }>(`SELECT count(*) AS n FROM events WHERE type = 'usage' AND subtype = 'cycle_reset' AND subject = $1`, [s.iccid])).n,
    );
    expect(after - before).toBe(1);
    expect(await suite.t.db.tx((q) => rollCycles(q, at))).toBe(0);
  });

  it('expires a bundle at its expiry and starts the next one in the queue from that instant, each a bundle event', async () => {
    const s = sims[2];
    const expiry = new Date(T0.getTime() + 70 * DAY);
    const current = await one<{ id: string }>(`SELECT id FROM bundle_orders WHERE sim_id = $1 AND status = 'IN_USE'`, [s.simId]);
    await suite.t.db.query('UPDATE bundle_orders SET expected_expire_at = $2 WHERE id = $1', [current.id, expiry.toISOString()]);
    const next = newId();
    await suite.t.db.query(
      `INSERT INTO bundle_orders (org_id, id, sim_id, iccid, type, payment_mode, name, sku, ordered_at, quota_kb, reset_cycle, overage_policy, status)
       VALUES ($1, $2, $3, $4, 'AFTER_BUNDLE', 'postpaid', 'Next plan', 'NEXT', $5, 80000, 'DAY_24H', 'stop', 'PENDING')`,
      [s.orgId, next, s.simId, s.iccid, T0.toISOString()],
    );
    // Before its expiry nothing moves.
    await suite.t.db.tx((q) => advanceBundles(q, new Date(expiry.getTime() - MINUTE)));
    expect(await one(`SELECT status FROM bundle_orders WHERE id = $1`, [current.id])).toEqual({ status: 'IN_USE' });
    // (Seeded bundles of other SIMs whose end has come by then move too.)
    const r = await suite.t.db.tx((q) => advanceBundles(q, new Date(expiry.getTime() + 5 * MINUTE)));
    expect(r.expired).toBeGreaterThanOrEqual(1);
    expect(r.started).toBeGreaterThanOrEqual(1);
    expect(await one(`SELECT status, expired_at FROM bundle_orders WHERE id = $1`, [current.id])).toEqual({ status: 'EXPIRED', expired_at: expiry });
    expect(await one(`SELECT status, activated_at FROM bundle_orders WHERE id = $1`, [next])).toEqual({ status: 'IN_USE', activated_at: expiry });
    // The SIM's cycle is the new bundle's: 24 hours from the instant it started, its limit 80,000 KB, nothing used yet.
    expect(
      await one(`SELECT cycle_reset, cycle_started_at, cycle_ends_at, cycle_limit_kb::int AS limit, cycle_usage_kb::int AS usage FROM sims WHERE id = $1`, [
        s.simId,
      ]),
    ).toEqual({
      cycle_reset: 'DAY_24H',
      cycle_started_at: expiry,
      cycle_ends_at: new Date(expiry.getTime() + DAY),
      limit: 80_000,
      usage: 0,
    });
    const events = (
      await suite.t.db.query<{ detail: { to: string; reason: string } }>(
        `SELECT detail FROM sim_events WHERE sim_id = $1 AND type = 'bundle_change' ORDER BY id DESC LIMIT 2`,
        [s.simId],
      )
    ).rows;
    expect(events.map((e) => [e.detail.to, e.detail.reason])).toEqual([
      ['IN_USE', 'next_in_queue'],
      ['EXPIRED', 'expiry'],
    ]);
    // And they reach the event log in the same transaction (SIM bundle events).
    expect(
      Number(
        (
          await one<{ n: string }>(`SELECT count(*) AS n FROM events WHERE type = 'sim' AND subtype = 'bundle_change' AND subject = $1 AND at >= $2`, [
            s.iccid,
            expiry.toISOString(),
          ])
        ).n,
      ),
    ).toBe(2);
  });

  it('ends a test period by time and by its allowance used up, and a pre-activated period by time', async () => {
    const at = new Date(T0.getTime() + 100 * DAY);
    // Three inactive SIMs made pre-activated: two in test (a 1,000 KB test bundle in use), one quiet; each with a bundle waiting.
    const picked = (
      await suite.t.db.query<{ id: string; org_id: string; iccid: string }>(
        `SELECT id, org_id, iccid FROM sims WHERE org_id = 'org-demo' AND status = 'inactive' AND operation IS NULL ORDER BY id LIMIT 3`,
      )
    ).rows;
    expect(picked).toHaveLength(3);
    const [timed, used, quiet] = picked;
    await suite.t.db.tx(async (q) => {
      for (const s of picked) {
        const test = s !== quiet;
        await q.query(
          `UPDATE sims SET status = 'pre_activated', sub_status = $2, test_data_status = $3, test_period_days = 30, test_started_at = $4, pre_activated_at = $5,
                  pre_activated_period_days = 180 WHERE id = $1`,
          [
            s.id,
            test ? 'test' : 'quiet',
            test ? 'in_test' : 'not_started',
            test ? new Date(at.getTime() - (s === timed ? 31 : 2) * DAY).toISOString() : null,
            new Date(at.getTime() - (test ? 40 : 181) * DAY).toISOString(),
          ],
        );
        await q.query(`UPDATE bundle_orders SET status = 'CANCELLED' WHERE sim_id = $1 AND status IN ('PENDING', 'IN_USE')`, [s.id]);
        if (test) {
          await q.query(
            `INSERT INTO bundle_orders (org_id, id, sim_id, iccid, type, payment_mode, name, sku, ordered_at, activated_at, quota_kb, used_kb, reset_cycle, overage_policy, status)
             VALUES ($1, $2, $3, $4, 'BEFORE_TEST', 'prepaid', 'Test', 'TEST', $5, $5, 1000, $6, 'MONTH', 'stop', 'IN_USE')`,
            [s.org_id, newId(), s.id, s.iccid, new Date(at.getTime() - 40 * DAY).toISOString(), s === used ? 1000 : 10],
          );
        }
        await q.query(
          `INSERT INTO bundle_orders (org_id, id, sim_id, iccid, type, payment_mode, name, sku, ordered_at, quota_kb, reset_cycle, overage_policy, status)
           VALUES ($1, $2, $3, $4, 'BEFORE_BASIC', 'prepaid', 'Base', 'BASE', $5, 50000, 'MONTH', 'stop', 'PENDING')`,
          [s.org_id, newId(), s.id, s.iccid, new Date(at.getTime() - 40 * DAY).toISOString()],
        );
      }
    });
    // A day before, only the used-up test has ended.
    await suite.t.db.tx((q) => endPeriods(q, new Date(at.getTime() - 2 * DAY)));
    expect((await one<{ status: string }>('SELECT status FROM sims WHERE id = $1', [timed.id])).status).toBe('pre_activated');
    expect((await one<{ status: string }>('SELECT status FROM sims WHERE id = $1', [used.id])).status).toBe('active');
    await suite.t.db.tx((q) => endPeriods(q, at));
    const rows = (
      await suite.t.db.query<{ id: string; status: string; sub_status: string; test_data_status: string }>(
        'SELECT id, status, sub_status, test_data_status FROM sims WHERE id = ANY($1::text[])',
        [picked.map((p) => p.id)],
      )
    ).rows;
    for (const r of rows) expect([r.status, r.sub_status]).toEqual(['active', 'active_live']);
    expect(rows.find((r) => r.id === timed.id)!.test_data_status).toBe('ended');
    expect(rows.find((r) => r.id === used.id)!.test_data_status).toBe('exhausted');
    expect(
      (await one<{ status: string }>(`SELECT status FROM bundle_orders WHERE sim_id = $1 AND type = 'BEFORE_TEST' AND sku = 'TEST'`, [timed.id])).status,
    ).toBe('EXPIRED');
    // A status change each, with its audit row; the base bundle starts on the same run of the job.
    const changes = (
      await suite.t.db.query<{ action: string }>(
        `SELECT detail->>'action' AS action FROM sim_events WHERE sim_id = ANY($1::text[]) AND type = 'status_change' AND detail->>'action' IN ('testPeriodEnded', 'preActivatedPeriodEnded')`,
        [picked.map((p) => p.id)],
      )
    ).rows;
    expect(changes.map((c) => c.action).sort()).toEqual(['preActivatedPeriodEnded', 'testPeriodEnded', 'testPeriodEnded']);
    await suite.t.db.tx((q) => advanceBundles(q, at));
    for (const s of picked) {
      expect(await one(`SELECT status FROM bundle_orders WHERE sim_id = $1 AND sku = 'BASE'`, [s.id])).toEqual({ status: 'IN_USE' });
      expect(await one(`SELECT cycle_reset, cycle_limit_kb::int AS limit FROM sims WHERE id = $1`, [s.id])).toEqual({ cycle_reset: 'MONTH', limit: 50_000 });
    }
  });

  it("bars a SIM's data when it attaches outside its bundle's coverage (shut down), and lifts it back in coverage", async () => {
    const s = sims[1]; // billing: no overage control of its own at this point of the month
    await suite.t.db.query(`UPDATE sims SET connection_status = 'offline' WHERE id = $1`, [s.simId]);
    const at = new Date(T0.getTime() + 120 * DAY);
    await reports.connectionStatus({ sim: s, status: 'connected', network: networkNamed('Orange FR 208-01')!, rat: 'LTE', at });
    expect(await one(`SELECT flow_control_policy, coverage_barred, out_of_coverage_country, policy_unsent FROM sims WHERE id = $1`, [s.simId])).toEqual({
      flow_control_policy: 'stop',
      coverage_barred: true,
      out_of_coverage_country: 'FR',
      policy_unsent: false,
    });
    expect(net.dataPolicyOf(s.simId)).toBe('stop');
    await reports.connectionStatus({ sim: s, status: 'connected', network: networkNamed('Telekom DE 262-01')!, rat: 'LTE', at: new Date(at.getTime() + HOUR) });
    expect(await one(`SELECT flow_control_policy, coverage_barred, out_of_coverage_at FROM sims WHERE id = $1`, [s.simId])).toEqual({
      flow_control_policy: 'none',
      coverage_barred: false,
      out_of_coverage_at: null,
    });
    expect(net.dataPolicyOf(s.simId)).toBe('none');
    const subtypes = (
      await suite.t.db.query<{ subtype: string }>(`SELECT subtype FROM events WHERE type = 'usage' AND subject = $1 AND subtype LIKE '%coverage' ORDER BY id`, [
        s.iccid,
      ])
    ).rows.map((r) => r.subtype);
    expect(subtypes).toEqual(['out_of_coverage', 'back_in_coverage']);
  });

  it("answers a SIM's data policy and why, and its coverage, to its organisation only", async () => {
    const session = await signIn(suite.t.app, DEMO.user);
    const s = sims.find((x) => x.orgId === 'org-demo' && x.policy === 'stop')!;
    const policy = await call(suite.t.app, session, { method: 'GET', url: `/api/main/sim/bundle/overuse_policy/${s.iccid}` });
    expect(policy.statusCode).toBe(200);
    const p = policy.json().data ?? policy.json();
    const row = await one<{ flow_control_policy: string; cycle_ends_at: Date }>('SELECT flow_control_policy, cycle_ends_at FROM sims WHERE id = $1', [s.simId]);
    expect(p.control).toBe(row.flow_control_policy);
    expect(p.overagePolicy).toBe('stop');
    expect(p.limitKb).toBe(QUOTA);
    if (p.control === 'stop')
      expect({ reason: p.reason, releasedAt: p.releasedAt }).toEqual({ reason: 'overage', releasedAt: new Date(row.cycle_ends_at).toISOString() });
    const coverage = await call(suite.t.app, session, { method: 'GET', url: `/api/main/sim/bundle/coverage/${s.iccid}` });
    const c = coverage.json().data ?? coverage.json();
    expect({ countries: c.countries, policy: c.policy, everywhere: c.everywhere }).toEqual({
      countries: ['DE', 'ES', 'GB'],
      policy: 'shut_down',
      everywhere: false,
    });
    // Another organisation's SIM is not found; a malformed ICCID names the field.
    const other = sims.find((x) => x.orgId !== 'org-demo');
    if (other) expect((await call(suite.t.app, session, { method: 'GET', url: `/api/main/sim/bundle/coverage/${other.iccid}` })).statusCode).toBe(404);
    const bad = await call(suite.t.app, session, { method: 'GET', url: '/api/main/sim/bundle/overuse_policy/12ab' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('ICCID');
  });
});
