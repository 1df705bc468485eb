/**
 * The facts a SIM's Service tab and a pool's page show agree with each other: a test period said to be over has the
 * start it began at (or says its state was not recorded), and ends no later than the activation it led to; a pool's
 * cycle has one end, its last day, on the pool's page and its dashboard alike. On PGlite and, with
 * TEST_DATABASE_URL, PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { call, DB_KINDS, DEMO, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('Service tab and pool facts on %s', (kind) => {
  const suite = signedInSuite(kind, { user: DEMO.user });
  const get = async (url: string) => {
    const res = await call(suite.t.app, suite.user, { method: 'GET', url });
    expect(res.statusCode, url).toBe(200);
    return res.json().data;
  };

  it('never says a test period ended without saying when it started', async () => {
    const sims = (await suite.t.db.query<{ iccid: string }>("SELECT iccid FROM sims WHERE org_id = 'org-demo' AND status <> 'inactive' ORDER BY iccid")).rows;
    expect(sims.length).toBeGreaterThan(10);
    let ended = 0;
    for (const { iccid } of sims) {
      const d = await get(`/api/main/sim/details?iccid=${iccid}`);
      if (d.test.status === 'ended' || d.test.status === 'exhausted') {
        ended++;
        expect(d.test.startedAt, iccid).not.toBeNull();
        expect(Date.parse(d.test.endsAt), iccid).toBeGreaterThan(Date.parse(d.test.startedAt));
        if (d.activatedAt) expect(Date.parse(d.test.endsAt), iccid).toBeLessThanOrEqual(Date.parse(d.activatedAt));
      }
      if (d.test.status === 'not_recorded') expect(d.test.startedAt, iccid).toBeNull();
    }
    // The demo's SIMs in use went through a test period: most of them show it.
    expect(ended).toBeGreaterThan(sims.length / 3);
  });

  it("shows a pool's cycle by its last day, the same on its page and its dashboard", async () => {
    const pools = (await suite.t.db.query<{ id: string; cycle_end: string }>("SELECT id, cycle_end::text FROM shared_pools WHERE org_id = 'org-demo'")).rows;
    expect(pools.length).toBeGreaterThan(0);
    for (const p of pools) {
      const shown = await get(`/api/pool/shared_pool/cube/pools/${p.id}/detail`);
      const lastDay = new Date(Date.parse(`${p.cycle_end}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
      expect(shown.cycleLastDay).toBe(lastDay);
      expect((await get(`/api/pool/shared_pool/cube/dashboard/real_time_data?poolId=${p.id}`)).cycleLastDay).toBe(lastDay);
    }
  });
});
