/**
 * The network simulator, driven step by step on a fixed clock: sessions and CDRs with their rollups kept exactly,
 * the UTC day cut-off, first usage of an active-ready SIM, bundle and SIM expiry, MO replies to MT SMS, SIMs of other
 * states left alone, and nothing at all when SIMULATOR is off.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_SIMS } from '../../server/db/seed-fleet.js';
import type { SimRef } from '../../server/network/adapter.js';
import { networkReports } from '../../server/network-reports/network-reports.js';
import { SimulatedNetwork, networkNamed } from '../../server/network/simulator.js';
import { sendMtSms } from '../../server/sms/mt-sms.js';
import { countRows, DB_KINDS, signedInSuite } from '../helper.js';

const DAY = 86_400_000;
const MINUTE = 60_000;
/** The next UTC midnight: after every seeded CDR, so the hours from here on hold only the simulator's. */
const T0 = new Date(Math.ceil(Date.now() / DAY) * DAY);

describe.each(DB_KINDS)('the network simulator on %s', (kind) => {
  const suite = signedInSuite(kind);
  let clock = T0.getTime();
  /** The next step's time: a minute after the last. */
  const tick = () => new Date((clock += MINUTE));
  const network = (opts: { moReplyChance?: number } = {}) =>
    new SimulatedNetwork(suite.t.db, networkReports(suite.t.db), { enabled: true, seed: 'test', simsPerTick: 1000, ...opts });
  const num = (v: unknown) => Number(v ?? 0);
  const one = async <T>(sql: string, params: unknown[] = []) => (await suite.t.db.query<T>(sql, params)).rows[0];
  const simRef = async (iccid: string): Promise<SimRef> =>
    one<SimRef>('SELECT org_id AS "orgId", id AS "simId", iccid, imsi, msisdn FROM sims WHERE iccid = $1', [iccid]);

  it("writes CDRs whose sums equal the daily and hourly rollups, the SIMs' cycle usage and their bundles' usage", async () => {
    const perSim = async () =>
      new Map(
        (
          await suite.t.db.query<{ id: string; daily: string; cycle: string; cycle_start: string | null; bundle: string }>(
            `SELECT s.id, (SELECT coalesce(sum(volume_kb), 0) FROM usage_daily d WHERE d.sim_id = s.id) AS daily, s.cycle_usage_kb AS cycle, s.cycle_started_at::text AS cycle_start,
                    (SELECT coalesce(sum(used_kb), 0) FROM bundle_orders b WHERE b.sim_id = s.id) AS bundle
               FROM sims s`,
          )
        ).rows.map((r) => [r.id, { daily: num(r.daily), cycle: num(r.cycle), cycleStart: r.cycle_start, bundle: num(r.bundle) }]),
      );
    const hourlyTotal = async () => num((await one<{ v: string }>('SELECT coalesce(sum(volume_kb), 0) AS v FROM usage_hourly')).v);
    const before = await perSim();
    const hourlyBefore = await hourlyTotal();
    const lastCdr = num((await one<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM cdrs')).id);
    const net = network();
    let opened = 0;
    for (let i = 0; i < 12; i++) opened += (await net.step(tick())).sessionsOpened;
    expect(opened).toBeGreaterThan(0);

    const cdrs = (
      await suite.t.db.query<{
        sim_id: string;
        network: string;
        mcc_mnc: string;
        country: string;
        rat: string;
        direction: string;
        volume_kb: string;
        start_at: Date;
        end_at: Date;
        duration_s: number;
        plan_code: string | null;
      }>('SELECT sim_id, network, mcc_mnc, country, rat, direction, volume_kb, start_at, end_at, duration_s, plan_code FROM cdrs WHERE id > $1', [lastCdr])
    ).rows;
    expect(cdrs.length).toBeGreaterThan(10);
    const bySim = new Map<string, number>();
    for (const c of cdrs) {
      bySim.set(c.sim_id, (bySim.get(c.sim_id) ?? 0) + num(c.volume_kb));
      // A network named by operator and MCC/MNC, its country, the RAT, a volume, and the duration of its period.
      const named = networkNamed(c.network);
      expect(named).not.toBeNull();
      expect({ mccMnc: c.mcc_mnc, country: c.country }).toEqual({ mccMnc: named!.mccMnc, country: named!.country });
      expect(['2G', '3G', 'LTE', 'CATM', 'NBIoT', 'undetermined']).toContain(c.rat);
      expect(['uplink', 'downlink']).toContain(c.direction);
      expect(num(c.volume_kb)).toBeGreaterThan(0);
      expect(c.duration_s).toBe(Math.round((new Date(c.end_at).getTime() - new Date(c.start_at).getTime()) / 1000));
    }
    const after = await perSim();
    // The usage draws on the SIM's bundle in use (the first steps expired the seeded bundles whose year was over).
    const inUse = new Set(
      (await suite.t.db.query<{ sim_id: string }>("SELECT DISTINCT sim_id FROM bundle_orders WHERE status = 'IN_USE'")).rows.map((r) => r.sim_id),
    );
    let drawn = 0;
    for (const [sim, kb] of bySim) {
      const b = before.get(sim)!;
      const a = after.get(sim)!;
      // A SIM's cycle counts the CDRs that started in it (the rule of server/bundles/bundle-engine.ts rollCycles): the
      // first interim CDR of a session covers up to the hour before T0, so when the steps run in the last hour of a UTC
      // day it can start before a 24-hour cycle that began at the seed's minute and is left out of that cycle. When the
      // cycle rolled over during the steps (a 24-hour or 31-day cycle counts from its activation's time of day) the new
      // cycle holds exactly the CDRs that started in it.
      const since = new Date(a.cycleStart!).getTime();
      const inCycle = cdrs.filter((c) => c.sim_id === sim && new Date(c.start_at).getTime() >= since).reduce((sum, c) => sum + num(c.volume_kb), 0);
      const sameCycle = a.cycleStart === b.cycleStart;
      expect({ sim, daily: a.daily - b.daily, cycle: sameCycle ? a.cycle - b.cycle : a.cycle }).toEqual({ sim, daily: kb, cycle: inCycle });
      // (A bundle's use across a rollover is tests/api/bundle-cycles.test.ts's.)
      if (inUse.has(sim) && sameCycle && inCycle === kb) {
        expect(a.bundle - b.bundle).toBe(kb);
        drawn += 1;
      }
    }
    expect(drawn).toBeGreaterThan(0);
    // SIMs without new CDRs did not move.
    for (const [sim, b] of before) if (!bySim.has(sim)) expect(after.get(sim)!.daily).toBe(b.daily);
    const total = [...bySim.values()].reduce((s, v) => s + v, 0);
    expect((await hourlyTotal()) - hourlyBefore).toBe(total);
    // From T0 on there are only the simulator's CDRs: each hour's active SIMs are the SIMs with a CDR in it.
    const hours = (
      await suite.t.db.query<{ hour: string; active: number; distinct: number }>(
        `SELECT h.hour::text AS hour, h.active_sims AS active,
                (SELECT count(DISTINCT sim_id)::int FROM cdrs c WHERE c.org_id = h.org_id AND c.start_at >= h.hour AND c.start_at < h.hour + interval '1 hour') AS distinct
           FROM usage_hourly h WHERE h.hour >= $1`,
        [T0.toISOString()],
      )
    ).rows;
    expect(hours.length).toBeGreaterThan(0);
    for (const h of hours) expect(h.active).toBe(h.distinct);
  });

  it('counts a CDR at 23:59:59 UTC and one at 00:00:01 UTC on different days', async () => {
    const sim = await simRef(DEMO_SIMS.active);
    const reports = networkReports(suite.t.db);
    const late = new Date(T0.getTime() + DAY - 1000);
    const early = new Date(T0.getTime() + DAY + 1000);
    const day = async (d: Date) =>
      num(
        (
          await one<{ v: string }>('SELECT coalesce(sum(volume_kb), 0) AS v FROM usage_daily WHERE sim_id = $1 AND day = $2::date', [
            sim.simId,
            d.toISOString().slice(0, 10),
          ])
        ).v,
      );
    const hour = async (d: Date) =>
      num(
        (
          await one<{ v: string }>(
            "SELECT coalesce(sum(volume_kb), 0) AS v FROM usage_hourly WHERE org_id = $1 AND hour = date_trunc('hour', $2::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'",
            [sim.orgId, d.toISOString()],
          )
        ).v,
      );
    const [d1, d2, h1, h2] = [await day(late), await day(early), await hour(late), await hour(early)];
    const network = networkNamed('Vodafone DE 262-02')!;
    await reports.usage({
      sim,
      network,
      planCode: 'EU-BAS-100M',
      rat: 'LTE',
      direction: 'uplink',
      volumeKb: 7,
      start: late,
      end: new Date(late.getTime() + 30_000),
    });
    await reports.usage({
      sim,
      network,
      planCode: 'EU-BAS-100M',
      rat: 'LTE',
      direction: 'downlink',
      volumeKb: 11,
      start: early,
      end: new Date(early.getTime() + 30_000),
    });
    expect([(await day(late)) - d1, (await day(early)) - d2]).toEqual([7, 11]);
    expect([(await hour(late)) - h1, (await hour(early)) - h2]).toEqual([7, 11]);
    const uplink = await one<{ up: string; down: string }>(
      'SELECT uplink_kb AS up, downlink_kb AS down FROM usage_daily WHERE sim_id = $1 AND day = $2::date',
      [sim.simId, late.toISOString().slice(0, 10)],
    );
    expect(num(uplink.up)).toBeGreaterThanOrEqual(7);
  });

  it('moves active-ready SIMs to active-live, or to active-test in their test period, on first usage, with a network event', async () => {
    const [live, test] = (
      await suite.t.db.query<{ iccid: string }>(
        "SELECT iccid FROM sims WHERE status = 'active' AND sub_status = 'active_live' AND operation IS NULL ORDER BY iccid LIMIT 2",
      )
    ).rows.map((r) => r.iccid);
    const sessionStart = new Date(clock - 10 * MINUTE).toISOString();
    await suite.t.db.query(
      "UPDATE sims SET sub_status = 'active_ready', connection_status = 'online', last_session_at = $2, test_data_status = 'ended' WHERE iccid = $1",
      [live, sessionStart],
    );
    await suite.t.db.query(
      "UPDATE sims SET sub_status = 'active_ready', connection_status = 'online', last_session_at = $2, test_data_status = 'in_test' WHERE iccid = $1",
      [test, sessionStart],
    );
    await network().step(tick());
    const sub = async (iccid: string) => (await one<{ s: string }>('SELECT sub_status AS s FROM sims WHERE iccid = $1', [iccid])).s;
    expect([await sub(live), await sub(test)]).toEqual(['active_live', 'active_test']);
    const ev = await one<{ source: string; detail: { action: string; fromSub: string; toSub: string } }>(
      "SELECT source, detail FROM sim_events WHERE iccid = $1 AND type = 'status_change' ORDER BY id DESC LIMIT 1",
      [live],
    );
    expect(ev).toMatchObject({ source: 'network', detail: { action: 'detectUsage', fromSub: 'active_ready', toSub: 'active_live' } });
    // The change of state is in the audit trail too, by the system.
    const trail = await one<{ account_id: string | null; after: { subStatus: string; source: string } }>(
      "SELECT account_id, after FROM audit_log WHERE entity = 'sim' AND entity_id = $1 AND action = 'detectUsage' ORDER BY id DESC LIMIT 1",
      [live],
    );
    expect(trail).toMatchObject({ account_id: null, after: { subStatus: 'active_live', source: 'network' } });
  });

  it('expires bundles past their expected expiry and SIMs whose service ended', async () => {
    const now = tick();
    const bundle = await one<{ id: string; iccid: string }>("SELECT id, iccid FROM bundle_orders WHERE status = 'IN_USE' ORDER BY id LIMIT 1");
    await suite.t.db.query('UPDATE bundle_orders SET expected_expire_at = $2 WHERE id = $1', [bundle.id, new Date(now.getTime() - 3_600_000).toISOString()]);
    const sim = await one<{ iccid: string }>("SELECT iccid FROM sims WHERE status = 'paused' AND operation IS NULL ORDER BY iccid LIMIT 1");
    await suite.t.db.query('UPDATE sims SET expires_at = $2 WHERE iccid = $1', [sim.iccid, new Date(now.getTime() - MINUTE).toISOString()]);
    const summary = await network().step(now);
    expect(summary.bundlesExpired).toBeGreaterThanOrEqual(1);
    expect(await one('SELECT status, expired_at FROM bundle_orders WHERE id = $1', [bundle.id])).toEqual({ status: 'EXPIRED', expired_at: now });
    expect(
      await countRows(suite.t.db, 'sim_events', "iccid = $1 AND type = 'bundle_change' AND source = 'network' AND detail->>'bundleId' = $2", [
        bundle.iccid,
        bundle.id,
      ]),
    ).toBe(1);
    expect(await one('SELECT status, sub_status FROM sims WHERE iccid = $1', [sim.iccid])).toEqual({ status: 'expired', sub_status: 'expired' });
    expect(
      await one("SELECT from_status, to_status, source FROM sim_events WHERE iccid = $1 AND type = 'status_change' ORDER BY id DESC LIMIT 1", [sim.iccid]),
    ).toEqual({
      from_status: 'paused',
      to_status: 'expired',
      source: 'network',
    });
  });

  it('delivers an MT SMS and the device answers with an MO one', async () => {
    const sim = await simRef(DEMO_SIMS.active);
    await suite.t.db.query("UPDATE sims SET status = 'active', sub_status = 'active_live' WHERE iccid = $1", [sim.iccid]);
    const moBefore = num((await one<{ n: string }>('SELECT coalesce(sum(sms_mo), 0) AS n FROM usage_daily WHERE sim_id = $1', [sim.simId])).n);
    const mt = await sendMtSms(suite.t.db, network(), sim, { content: 'PING', accountId: 'acc-operator' });
    expect(mt.status).toBe('sent');
    const summary = await network({ moReplyChance: 1 }).step(tick());
    expect(summary.smsDelivered).toBeGreaterThanOrEqual(1);
    expect((await one<{ status: string }>('SELECT status FROM sms_records WHERE id = $1', [mt.id])).status).toBe('delivered');
    expect(await one('SELECT direction, content, status, iccid FROM sms_records WHERE reply_to_id = $1', [mt.id])).toEqual({
      direction: 'MO',
      content: 'PONG',
      status: 'received',
      iccid: sim.iccid,
    });
    expect(num((await one<{ n: string }>('SELECT coalesce(sum(sms_mo), 0) AS n FROM usage_daily WHERE sim_id = $1', [sim.simId])).n)).toBeGreaterThan(moBefore);
  });

  it('leaves SIMs of every other state alone', async () => {
    const end = clock + 6 * MINUTE;
    const snapshot = async () =>
      (
        await suite.t.db.query<Record<string, unknown>>(
          `SELECT s.*, (SELECT count(*)::int FROM cdrs c WHERE c.sim_id = s.id) AS cdrs, (SELECT count(*)::int FROM sim_events e WHERE e.sim_id = s.id) AS events
             FROM sims s WHERE s.status NOT IN ('active') AND NOT (s.status = 'paused' AND s.expires_at <= $1) ORDER BY s.id`,
          [new Date(end).toISOString()],
        )
      ).rows;
    const before = await snapshot();
    expect(new Set(before.map((r) => r.status))).toEqual(new Set(['inactive', 'pre_activated', 'paused', 'expired', 'terminated']));
    const net = network();
    for (let i = 0; i < 5; i++) await net.step(tick());
    expect(await snapshot()).toEqual(before);
  });

  it('does nothing when SIMULATOR is off', async () => {
    expect(suite.t.app.network.enabled).toBe(false);
    const now = tick();
    await suite.t.db.query(
      "UPDATE bundle_orders SET expected_expire_at = $1 WHERE id = (SELECT id FROM bundle_orders WHERE status = 'IN_USE' ORDER BY id LIMIT 1)",
      [new Date(now.getTime() - MINUTE).toISOString()],
    );
    const counts = async () => [
      await countRows(suite.t.db, 'cdrs'),
      await countRows(suite.t.db, 'sim_events'),
      await countRows(suite.t.db, 'sms_records'),
      await countRows(suite.t.db, 'bundle_orders', "status = 'EXPIRED'"),
    ];
    const before = await counts();
    const summary = await suite.t.app.network.step(now);
    expect(Object.values(summary).every((v) => v === 0)).toBe(true);
    expect(await counts()).toEqual(before);
  });
});
