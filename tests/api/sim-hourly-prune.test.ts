/**
 * Pruning of usage_sim_hourly (server/job/maintenance.ts) on a fixed clock: hours before now − SIM_HOURLY_KEEP_DAYS
 * go, the cut-off hour and later stay, the other rollups stay whole, and the dashboard's week rank is unchanged.
 */
import { describe, expect, it, vi } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { pruneSimHourly, SIM_HOURLY_KEEP_DAYS, startMaintenance } from '../../server/job/maintenance.js';
import { bucketsOf } from '../../server/dashboard/dashboard-routes.js';
import { recordUsage } from '../../server/network-reports/network-reports.js';
import { call, DB_KINDS, DEMO, signedInSuite } from '../helper.js';

/** 20:00 in UTC+8 on 20 November 2026. */
const NOW = new Date('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;
const CUTOFF = new Date(NOW.getTime() - SIM_HOURLY_KEEP_DAYS * 24 * HOUR);

describe.each(DB_KINDS)('pruning usage_sim_hourly on %s', (kind) => {
  const suite = signedInSuite({ kind, config: { clock: () => NOW } }, { user: DEMO.user });

  const sims = async (org: string, n: number) =>
    (
      await suite.t.db.query<{ id: string; iccid: string; imsi: string | null; msisdn: string | null }>(
        'SELECT id, iccid, imsi, msisdn FROM sims WHERE org_id = $1 ORDER BY iccid LIMIT $2',
        [org, n],
      )
    ).rows;
  /** Usage through the network's own writer, so every rollup gets its row as in production. */
  const use = (org: string, s: { id: string; iccid: string; imsi: string | null; msisdn: string | null }, at: Date, kb: number) =>
    suite.t.db.tx((q) =>
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
  const rows = async (sql: string) => (await suite.t.db.query(sql)).rows;
  const fingerprint = () =>
    Promise.all([
      rows('SELECT org_id, month, sim_id, volume_kb FROM usage_sim_monthly ORDER BY 1, 2, 3'),
      rows('SELECT org_id, hour, volume_kb, sms_mo, sms_mt FROM usage_hourly ORDER BY 1, 2'),
    ]);
  const count = async (where: string, params: unknown[] = []) =>
    (await suite.t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM usage_sim_hourly WHERE ${where}`, params)).rows[0].n;

  it('deletes the hours before the cut-off in batches and keeps the cut-off hour, later hours and the other rollups', async () => {
    const [demo, other] = [await sims('org-demo', 12), await sims('org-other', 3)];
    // Old hours in two organisations, more of them than one batch; the hour just before the cut-off among them.
    for (const [i, s] of demo.entries()) await use('org-demo', s, new Date(CUTOFF.getTime() - (1 + i * 30) * HOUR), 100 + i);
    for (const s of other) await use('org-other', s, new Date(CUTOFF.getTime() - 5 * 24 * HOUR), 7);
    // The cut-off hour itself (one minute in), the hour after it, and the week the dashboard shows.
    await use('org-demo', demo[0], new Date(CUTOFF.getTime() + 60_000), 11);
    await use('org-demo', demo[1], new Date(CUTOFF.getTime() + HOUR), 12);
    await use('org-demo', demo[2], new Date(NOW.getTime() - 2 * 24 * HOUR), 13);
    const old = await count('hour < $1', [CUTOFF.toISOString()]);
    const kept = await rows(`SELECT org_id, hour, sim_id, volume_kb FROM usage_sim_hourly WHERE hour >= '${CUTOFF.toISOString()}' ORDER BY 1, 2, 3`);
    expect(old).toBeGreaterThanOrEqual(15);
    expect(kept.length).toBeGreaterThanOrEqual(3);
    const others = await fingerprint();

    expect(await pruneSimHourly(suite.t.db, NOW, { batch: 4 })).toBe(old);
    expect(await count('hour < $1', [CUTOFF.toISOString()])).toBe(0);
    expect(await rows('SELECT org_id, hour, sim_id, volume_kb FROM usage_sim_hourly ORDER BY 1, 2, 3')).toEqual(kept);
    expect(await fingerprint()).toEqual(others);
    // Nothing left to do: a second run (or another instance's) deletes nothing.
    expect(await pruneSimHourly(suite.t.db, NOW)).toBe(0);
  });

  it('leaves the week rank as it was', async () => {
    const [s] = await sims('org-demo', 1);
    // Usage in the oldest hour of the week view and just before it, plus an old hour to prune.
    const weekStart = bucketsOf('week', NOW)[0].start;
    await use('org-demo', s, weekStart, 5_000_000);
    await use('org-demo', s, new Date(weekStart.getTime() - 60_000), 9_000_000);
    await use('org-demo', s, new Date(CUTOFF.getTime() - 24 * HOUR), 8_000_000);
    const rank = async () => {
      const res = await call(suite.t.app, suite.user, { method: 'GET', url: '/api/main/dashboard/rank?view=week' });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.items;
    };
    const before = await rank();
    expect(before[0]).toMatchObject({ iccid: s.iccid, volumeKb: 5_000_000 });
    expect(await pruneSimHourly(suite.t.db, NOW)).toBeGreaterThan(0);
    expect(await rank()).toEqual(before);
  });

  it('runs from startMaintenance on the given clock and stops', async () => {
    const [s] = await sims('org-demo', 1);
    await use('org-demo', s, new Date(CUTOFF.getTime() - 2 * HOUR), 1);
    const log = { info: vi.fn(), error: vi.fn() } as unknown as FastifyBaseLogger;
    const stop = startMaintenance(suite.t.db, log, () => NOW, 60 * 60_000);
    await vi.waitFor(async () => expect(await count('hour < $1', [CUTOFF.toISOString()])).toBe(0));
    await stop();
    expect(log.error).not.toHaveBeenCalled();
    expect(await count('hour >= $1', [CUTOFF.toISOString()])).toBeGreaterThan(0);
  });
});
