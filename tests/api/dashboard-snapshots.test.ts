/**
 * Large organisations' top 10 and heatmap as snapshots (server/dashboard/dashboard-snapshots.ts): an organisation above
 * DASHBOARD_LIVE_SIMS reads the stored figures with their time, a stale snapshot is answered at once and computed
 * again in the background by one claimant, and an organisation at or under the limit is computed for each call. The
 * limit is set around the demo organisation's size, so the boundary is tested on both sides; the clock is moved by hand.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { recordUsage } from '../../server/network-reports/network-reports.js';
import { call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

const START = new Date('2026-11-20T12:00:00Z');
const TTL = 300;

describe.each(DB_KINDS)('dashboard snapshots on %s', (kind) => {
  let now = START;
  const suite = signedInSuite({ kind, config: { clock: () => now, dashboardSnapshotSeconds: TTL } }, { user: DEMO.user, other: 'admin@other.example.com' });
  let demoSims = 0;
  beforeAll(async () => {
    demoSims = Number((await suite.t.db.query<{ n: string }>("SELECT count(*) AS n FROM sims WHERE org_id = 'org-demo'")).rows[0].n);
  });

  /** The demo organisation counts as large when the limit is one SIM under its size. */
  const limit = (n: number) => void (suite.t.config.dashboardLiveSims = n);
  const get = async (s: Session, path: string) => {
    const res = await call(suite.t.app, s, { method: 'GET', url: `/api/main${path}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };
  const later = (seconds: number) => (now = new Date(now.getTime() + seconds * 1000));
  const topSim = async (org = 'org-demo') =>
    (
      await suite.t.db.query<{ id: string; iccid: string; imsi: string | null; msisdn: string | null }>(
        "SELECT id, iccid, imsi, msisdn FROM sims WHERE org_id = $1 AND status = 'active' ORDER BY iccid DESC LIMIT 1",
        [org],
      )
    ).rows[0];
  /** More than any SIM of the organisation used, an hour before the clock. */
  const useLots = async (kb: number, org = 'org-demo') => {
    const s = await topSim(org);
    const at = new Date(now.getTime() - 3_600_000);
    await suite.t.db.tx((q) =>
      recordUsage(q, {
        sim: { orgId: org, simId: s.id, iccid: s.iccid, imsi: s.imsi, msisdn: s.msisdn },
        network: { name: 'Vodafone DE 262-02', mccMnc: '26202', country: 'DE' },
        planCode: 'EU-BAS-1G',
        rat: 'LTE',
        direction: 'downlink',
        volumeKb: kb,
        start: at,
        end: new Date(at.getTime() + 60_000),
      }),
    );
    return s.iccid;
  };

  it('an organisation at the limit is computed for each call', async () => {
    limit(demoSims);
    const rank = await get(suite.user, '/dashboard/rank?view=24h');
    expect(rank).toMatchObject({ live: true, asOf: now.toISOString() });
    const iccid = await useLots(50_000_000);
    const again = await get(suite.user, '/dashboard/rank?view=24h');
    expect(again.items[0]).toMatchObject({ iccid, volumeKb: expect.any(Number) });
    expect((await suite.t.db.query("SELECT 1 FROM dashboard_snapshots WHERE org_id = 'org-demo'")).rows).toHaveLength(0);
  });

  it('one SIM over the limit reads a snapshot, computed on the first call and kept until it is older than its age limit', async () => {
    limit(demoSims - 1);
    const first = await get(suite.user, '/dashboard/rank?view=week');
    expect(first).toMatchObject({ live: false, asOf: now.toISOString() });
    const firstAt = now.toISOString();
    const before = first.items[0].volumeKb as number;
    const iccid = await useLots(60_000_000);

    // Within the age limit (to the second): the same figures and time, though the SIM now used more.
    later(TTL);
    const kept = await get(suite.user, '/dashboard/rank?view=week');
    await suite.t.app.dashboardSnapshots.idle();
    expect(kept).toMatchObject({ live: false, asOf: firstAt });
    expect(kept.items[0]).toMatchObject({ iccid, volumeKb: before });
    expect((await get(suite.user, '/dashboard/rank?view=week')).asOf).toBe(firstAt);

    // Older: answered at once with the stored figures, computed again in the background.
    later(1);
    const stale = await get(suite.user, '/dashboard/rank?view=week');
    expect(stale).toMatchObject({ live: false, asOf: firstAt });
    await suite.t.app.dashboardSnapshots.idle();
    const fresh = await get(suite.user, '/dashboard/rank?view=week');
    expect(fresh).toMatchObject({ live: false, asOf: now.toISOString() });
    expect(fresh.items[0]).toMatchObject({ iccid, volumeKb: before + 60_000_000 });
  });

  it('each view has its own snapshot, and device names are read as they are now', async () => {
    limit(demoSims - 1);
    const month = await get(suite.user, '/dashboard/rank?view=6months');
    expect(month.asOf).toBe(now.toISOString());
    const s = await topSim();
    await suite.t.db.query('UPDATE sims SET device_name = $2 WHERE id = $1', [s.id, 'renamed-after-snapshot']);
    const again = await get(suite.user, '/dashboard/rank?view=6months');
    expect(again.asOf).toBe(month.asOf);
    expect(again.items.find((r: { iccid: string }) => r.iccid === s.iccid)).toMatchObject({ deviceName: 'renamed-after-snapshot' });
    const views = await suite.t.db.query<{ view: string }>("SELECT view FROM dashboard_snapshots WHERE org_id = 'org-demo' AND kind = 'rank' ORDER BY view");
    expect(views.rows.map((r) => r.view)).toEqual(['6months', 'week']);
  });

  it('the heatmap of a large organisation is a snapshot too, refreshed when stale', async () => {
    limit(demoSims - 1);
    const first = await get(suite.user, '/dashboard/heatmap?view=24h');
    expect(first).toMatchObject({ live: false, asOf: now.toISOString() });
    const s = await topSim();
    // The SIM moves to a place no demo SIM is: a cell of its own.
    await suite.t.db.query('UPDATE sims SET lat = -33.87, lon = 151.21 WHERE id = $1', [s.id]);
    const cellOf = (a: { cells: { lat: number; lon: number; sims: number }[] }) =>
      a.cells.find((c) => Math.abs(c.lat + 33.75) < 1 && Math.abs(c.lon - 151.25) < 1);
    expect(cellOf(await get(suite.user, '/dashboard/heatmap?view=24h'))).toBeUndefined();
    later(TTL + 1);
    await get(suite.user, '/dashboard/heatmap?view=24h');
    await suite.t.app.dashboardSnapshots.idle();
    const fresh = await get(suite.user, '/dashboard/heatmap?view=24h');
    expect(fresh.asOf).toBe(now.toISOString());
    expect(cellOf(fresh)).toMatchObject({ sims: 1 });
  });

  it('a snapshot written in another layout (by another version of the server) is computed again, not served', async () => {
    limit(demoSims - 1);
    const first = await get(suite.user, '/dashboard/rank?view=24h');
    await suite.t.db.query(
      `UPDATE dashboard_snapshots SET shape = shape + 1, body = '[{"sim": "old layout"}]' WHERE org_id = 'org-demo' AND kind = 'rank' AND view = '24h'`,
    );
    later(1);
    const again = await get(suite.user, '/dashboard/rank?view=24h');
    expect(again.asOf).toBe(now.toISOString());
    expect(again.items).toEqual(first.items);
  });

  it('another organisation never reads these snapshots', async () => {
    limit(0);
    const otherOrg = (
      await suite.t.db.query<{ org_id: string }>(
        "SELECT org_id FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE a.email = 'admin@other.example.com' LIMIT 1",
      )
    ).rows[0].org_id;
    // More than any of their SIMs used in the day (the seed's SIMs use up to a few tens of MB a day).
    const theirIccid = await useLots(50_000_000, otherOrg);
    const mine = await get(suite.user, '/dashboard/rank?view=24h');
    const theirs = await get(suite.other, '/dashboard/rank?view=24h');
    const demoIccids = new Set((await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id = 'org-demo'")).rows.map((r) => r.iccid));
    expect(mine.items.every((r: { iccid: string }) => demoIccids.has(r.iccid))).toBe(true);
    expect(theirs.items[0].iccid).toBe(theirIccid);
    expect(theirs.items.every((r: { iccid: string }) => !demoIccids.has(r.iccid))).toBe(true);
    const map = await get(suite.other, '/dashboard/heatmap?view=24h');
    const theirSims = Number((await suite.t.db.query<{ n: string }>('SELECT count(*) AS n FROM sims WHERE org_id = $1', [otherOrg])).rows[0].n);
    expect(map.totalSims).toBe(theirSims);
  });

  it('one refresh at a time: the lease goes to one claimant until it runs out or the refresh ends', async () => {
    limit(demoSims - 1);
    await get(suite.user, '/dashboard/heatmap?view=week');
    const snapshots = suite.t.app.dashboardSnapshots;
    expect(await snapshots.claim('org-demo', 'heatmap', 'week')).toBe(true);
    expect(await snapshots.claim('org-demo', 'heatmap', 'week')).toBe(false);
    // A stale call while another instance holds the lease answers and leaves the snapshot to that instance.
    const held = (
      await suite.t.db.query<{ as_of: Date }>("SELECT as_of FROM dashboard_snapshots WHERE org_id = 'org-demo' AND kind = 'heatmap' AND view = 'week'")
    ).rows[0].as_of;
    later(TTL + 1);
    await get(suite.user, '/dashboard/heatmap?view=week');
    await snapshots.idle();
    const after = (
      await suite.t.db.query<{ as_of: Date }>("SELECT as_of FROM dashboard_snapshots WHERE org_id = 'org-demo' AND kind = 'heatmap' AND view = 'week'")
    ).rows[0].as_of;
    expect(new Date(after).toISOString()).toBe(new Date(held).toISOString());
    // The lease runs out (an instance that stopped): the next stale call takes the refresh over.
    await suite.t.db.query("UPDATE dashboard_snapshots SET refreshing_until = now() - interval '1 second' WHERE org_id = 'org-demo'");
    await get(suite.user, '/dashboard/heatmap?view=week');
    await snapshots.idle();
    const taken = (await get(suite.user, '/dashboard/heatmap?view=week')).asOf;
    expect(taken).toBe(now.toISOString());
    expect(await snapshots.claim('org-demo', 'heatmap', 'week')).toBe(true);
  });
});
