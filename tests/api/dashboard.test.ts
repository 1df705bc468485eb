/**
 * The dashboard's figures against direct counts in the test database, on a fixed clock: cards, statistics, rank,
 * lifecycle counts and SMS usage for each view; the dashboard day ending at 23:59 UTC+8 (a CDR at 15:59 UTC and one
 * at 16:01 UTC fall on different days); "expiring soon" at 44, 45 and 46 days; nothing of another organisation.
 * Usage is written by the network's own writer (recordUsage), so the rollups are tested as they are kept.
 */
import { describe, expect, it } from 'vitest';
import { bucketsOf, VIEWS, type View } from '../../server/dashboard/dashboard-routes.js';
import { recordUsage } from '../../server/network-reports/network-reports.js';
import { call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

/** 20:00 in UTC+8 on 20 November 2026. */
const NOW = new Date('2026-11-20T12:00:00Z');
const DAY = 86_400_000;

describe.each(DB_KINDS)('dashboard on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { clock: () => NOW } }, { user: DEMO.user, other: 'admin@other.example.com' });

  const get = async (s: Session, path: string) => {
    const res = await call(suite.t.app, s, { method: 'GET', url: `/api/main${path}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };
  const one = async (sql: string, params: unknown[] = []) => Number(Object.values((await suite.t.db.query(sql, params)).rows[0] as object)[0]);
  const windowOf = (view: View) => {
    const b = bucketsOf(view, NOW);
    return [b[0].start.toISOString(), b.at(-1)!.end.toISOString()] as const;
  };
  const sim = async (org = 'org-demo', offset = 0) =>
    (
      await suite.t.db.query<{ id: string; iccid: string; imsi: string | null; msisdn: string | null }>(
        `SELECT id, iccid, imsi, msisdn FROM sims WHERE org_id = $1 AND status = 'active' ORDER BY iccid OFFSET $2 LIMIT 1`,
        [org, offset],
      )
    ).rows[0];
  const use = async (org: string, s: Awaited<ReturnType<typeof sim>>, at: string, kb: number, direction: 'uplink' | 'downlink' = 'downlink') =>
    suite.t.db.tx((q) =>
      recordUsage(q, {
        sim: { orgId: org, simId: s.id, iccid: s.iccid, imsi: s.imsi, msisdn: s.msisdn },
        network: { name: 'Vodafone DE 262-02', mccMnc: '26202', country: 'DE' },
        planCode: 'EU-BAS-1G',
        rat: 'LTE',
        direction,
        volumeKb: kb,
        start: new Date(at),
        end: new Date(new Date(at).getTime() + 60_000),
      }),
    );

  it('buckets: 24 UTC hours, 7 days and 6 months that end at 23:59 UTC+8', () => {
    const week = bucketsOf('week', NOW);
    expect(week.map((b) => b.label)).toEqual(['2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20']);
    expect(week[0].start.toISOString()).toBe('2026-11-13T16:00:00.000Z');
    expect(week[6].end.toISOString()).toBe('2026-11-20T16:00:00.000Z');
    const months = bucketsOf('6months', NOW);
    expect(months.map((b) => b.label)).toEqual(['2026-06', '2026-07', '2026-08', '2026-09', '2026-10', '2026-11']);
    expect(months[0].start.toISOString()).toBe('2026-05-31T16:00:00.000Z');
    const hours = bucketsOf('24h', NOW);
    expect(hours).toHaveLength(24);
    expect(hours[23].start.toISOString()).toBe('2026-11-20T12:00:00.000Z');
    expect(hours[0].start.toISOString()).toBe('2026-11-19T13:00:00.000Z');
  });

  it('a CDR at 15:59 UTC and one at 16:01 UTC fall on different dashboard days', async () => {
    const s = await sim();
    const before = (await get(suite.user, '/dashboard/statistics?view=week')).series as { label: string; volumeKb: number }[];
    await use('org-demo', s, '2026-11-17T15:59:00Z', 7001);
    await use('org-demo', s, '2026-11-17T16:01:00Z', 9002);
    const after = (await get(suite.user, '/dashboard/statistics?view=week')).series as { label: string; volumeKb: number }[];
    const delta = Object.fromEntries(after.map((b, i) => [b.label, b.volumeKb - before[i].volumeKb]));
    expect(delta).toEqual({ '2026-11-14': 0, '2026-11-15': 0, '2026-11-16': 0, '2026-11-17': 7001, '2026-11-18': 9002, '2026-11-19': 0, '2026-11-20': 0 });
    // The SIM pages' day is the UTC day: both land on 17 November there.
    expect(await one(`SELECT volume_kb FROM usage_daily WHERE sim_id = $1 AND day = '2026-11-17'`, [s.id])).toBeGreaterThanOrEqual(16003);
  });

  it.each(VIEWS)('the %s cards, statistics and SMS usage equal direct counts of SIMs, CDRs and SMS', async (view) => {
    // Some usage and SMS inside every view's window.
    const s = await sim('org-demo', 3);
    await use('org-demo', s, '2026-11-20T11:10:00Z', 1234, 'uplink');
    const [from, to] = windowOf(view);
    const card = await get(suite.user, `/dashboard/card?view=${view}`);
    expect(card.totalSims).toBe(await one("SELECT count(*) FROM sims WHERE org_id = 'org-demo'"));
    expect(card.activeSims).toBe(await one("SELECT count(*) FROM sims WHERE org_id = 'org-demo' AND status = 'active'"));
    expect(card.onlineSims).toBe(await one("SELECT count(*) FROM sims WHERE org_id = 'org-demo' AND connection_status IN ('online', 'connected')"));
    const cdrKb = await one("SELECT coalesce(sum(volume_kb), 0) FROM cdrs WHERE org_id = 'org-demo' AND start_at >= $1 AND start_at < $2", [from, to]);
    expect(card.usageKb).toBe(cdrKb);
    expect(card.usageKb).toBeGreaterThanOrEqual(1234);
    const sms = await one("SELECT count(*) FROM sms_records WHERE org_id = 'org-demo' AND status <> 'pending' AND created_at >= $1 AND created_at < $2", [
      from,
      to,
    ]);
    expect(card.sms).toBe(sms);
    const stats = await get(suite.user, `/dashboard/statistics?view=${view}`);
    expect(stats.series).toHaveLength(view === '24h' ? 24 : view === 'week' ? 7 : 6);
    expect(stats.series.reduce((a: number, b: { volumeKb: number }) => a + b.volumeKb, 0)).toBe(cdrKb);
    const up = await one(
      "SELECT coalesce(sum(volume_kb), 0) FROM cdrs WHERE org_id = 'org-demo' AND direction = 'uplink' AND start_at >= $1 AND start_at < $2",
      [from, to],
    );
    expect(stats.series.reduce((a: number, b: { uplinkKb: number }) => a + b.uplinkKb, 0)).toBe(up);
    const smsUsage = await get(suite.user, `/sms/usage?view=${view}`);
    expect(smsUsage.mo).toBe(
      await one(
        "SELECT count(*) FROM sms_records WHERE org_id = 'org-demo' AND direction = 'MO' AND status <> 'pending' AND created_at >= $1 AND created_at < $2",
        [from, to],
      ),
    );
    expect(smsUsage.mo + smsUsage.mt).toBe(sms);
  });

  it.each(VIEWS)('the %s rank is the top 10 SIMs by their CDRs in the window', async (view) => {
    const [from, to] = windowOf(view);
    // A clear leader in the window.
    const s = await sim('org-demo', 5);
    await use('org-demo', s, '2026-11-20T11:30:00Z', 50_000_000);
    const rank = await get(suite.user, `/dashboard/rank?view=${view}`);
    const direct = (
      await suite.t.db.query<{ iccid: string; kb: string }>(
        `SELECT min(iccid) AS iccid, sum(volume_kb) AS kb FROM cdrs WHERE org_id = 'org-demo' AND start_at >= $1 AND start_at < $2 GROUP BY sim_id ORDER BY kb DESC, sim_id LIMIT 10`,
        [from, to],
      )
    ).rows;
    expect(rank.items.map((r: { iccid: string; volumeKb: number }) => [r.iccid, r.volumeKb])).toEqual(direct.map((r) => [r.iccid, Number(r.kb)]));
    expect(rank.items[0].iccid).toBe(s.iccid);
  });

  it('expiring soon counts expiry days up to today + 45 on the dashboard clock: 44 and 45 in, 46 out', async () => {
    const ids = (
      await suite.t.db.query<{ id: string }>("SELECT id FROM sims WHERE org_id = 'org-demo' AND status = 'active' ORDER BY iccid OFFSET 20 LIMIT 3")
    ).rows.map((r) => r.id);
    await suite.t.db.query('UPDATE sims SET expires_at = NULL WHERE id = ANY($1)', [ids]);
    const before = (await get(suite.user, '/dashboard/card?view=week')).expiringSoon;
    // Noon UTC+8 on today + 44, + 45 and + 46 (today is 20 November in UTC+8).
    const noon = (days: number) => new Date(Date.UTC(2026, 10, 20) + days * DAY + 4 * 3_600_000).toISOString();
    for (const [i, d] of [44, 45, 46].entries()) await suite.t.db.query('UPDATE sims SET expires_at = $2 WHERE id = $1', [ids[i], noon(d)]);
    const after = (await get(suite.user, '/dashboard/card?view=week')).expiringSoon;
    expect(after - before).toBe(2);
    const direct = await one(
      "SELECT count(*) FROM sims WHERE org_id = 'org-demo' AND status IN ('active', 'paused') AND expires_at >= $1 AND ((expires_at AT TIME ZONE 'Asia/Shanghai')::date - DATE '2026-11-20') <= 45",
      [NOW.toISOString()],
    );
    expect(after).toBe(direct);
  });

  it('lifecycle counts follow every change of state and every transfer', async () => {
    const counts = async (s: Session) =>
      Object.fromEntries(((await get(s, '/dashboard/lifecycleCount')).items as { status: string; count: number }[]).map((x) => [x.status, x.count]));
    const direct = async (org: string) => {
      const rows = (
        await suite.t.db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM sims WHERE org_id = $1 GROUP BY status', [org])
      ).rows;
      return Object.fromEntries(
        ['inactive', 'pre_activated', 'active', 'paused', 'expired', 'terminated'].map((st) => [st, rows.find((r) => r.status === st)?.n ?? 0]),
      );
    };
    expect(await counts(suite.user)).toEqual(await direct('org-demo'));
    const s = await sim('org-demo', 7);
    await suite.t.db.query("UPDATE sims SET status = 'paused', sub_status = 'paused' WHERE id = $1", [s.id]);
    await suite.t.db.query(
      "UPDATE sims SET org_id = 'org-demo-north' WHERE id = (SELECT id FROM sims WHERE org_id = 'org-demo' AND status = 'inactive' ORDER BY iccid LIMIT 1)",
    );
    expect(await counts(suite.user)).toEqual(await direct('org-demo'));
    expect(await counts(suite.other)).toEqual(await direct('org-other'));
  });

  it('another organisation sees only its own figures', async () => {
    const s = await sim('org-other');
    await use('org-other', s, '2026-11-20T11:45:00Z', 4321);
    const [from, to] = windowOf('24h');
    const mine = await get(suite.other, '/dashboard/card?view=24h');
    expect(mine.totalSims).toBe(await one("SELECT count(*) FROM sims WHERE org_id = 'org-other'"));
    expect(mine.usageKb).toBe(
      await one("SELECT coalesce(sum(volume_kb), 0) FROM cdrs WHERE org_id = 'org-other' AND start_at >= $1 AND start_at < $2", [from, to]),
    );
    const rank = await get(suite.other, '/dashboard/rank?view=24h');
    const demoIccids = new Set((await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id <> 'org-other'")).rows.map((r) => r.iccid));
    expect(rank.items.length).toBeGreaterThan(0);
    expect(rank.items.every((r: { iccid: string }) => !demoIccids.has(r.iccid))).toBe(true);
    // And the demo organisation's usage does not include it.
    const demo = await get(suite.user, '/dashboard/card?view=24h');
    expect(demo.usageKb).toBe(
      await one("SELECT coalesce(sum(volume_kb), 0) FROM cdrs WHERE org_id = 'org-demo' AND start_at >= $1 AND start_at < $2", [from, to]),
    );
  });

  it('refuses an unknown view, naming it', async () => {
    const res = await call(suite.t.app, suite.user, { method: 'GET', url: '/api/main/dashboard/card?view=month' });
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toContain('must be one of: 24h, week, 6months');
  });
});
