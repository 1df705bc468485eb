/**
 * The pool engine's calls: settings (admins only, each change an event; "no limit" releases the SIMs the
 * pool stopped), quick search, one event's detail, and the dashboard's five calls from the pool's rollups.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runPoolJob } from '../../server/pool/pool-engine.js';
import { call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('shared pool calls on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, operator: DEMO.operator, user: DEMO.user, other: 'admin@other.example.com' });
  let poolId: string;
  beforeAll(async () => {
    poolId = (await suite.t.db.query<{ id: string }>("SELECT id FROM shared_pools WHERE org_id = 'org-demo' AND name = 'EU Fleet Pool'")).rows[0].id;
    await suite.t.db.query(
      `INSERT INTO shared_pools (org_id, id, name, bundle_name, bundle_sku, base_bundle_kb, cycle_start, cycle_end, effective_from)
       VALUES ('org-demo', 'POOLCALLS00000000001', 'Cold Chain Pool', 'Pool 1 GB', 'SKU-1', 1048576, date_trunc('month', now())::date, (date_trunc('month', now()) + interval '1 month')::date, date_trunc('month', now())::date)
       ON CONFLICT DO NOTHING`,
    );
    // The job's first run: enrolments, the day's recompute (the seed's pools have not been computed yet).
    await runPoolJob(suite.t.db, suite.t.app.network, new Date(), 'test');
  });

  const get = (s: Session, url: string) => call(suite.t.app, s, { method: 'GET', url: `/api/pool${url}` });
  const put = (s: Session, payload: unknown, id = poolId) =>
    call(suite.t.app, s, { method: 'PUT', url: `/api/pool/shared_pool/cube/pools/${id}/settings`, payload: payload as object });

  it('reads the settings; "10th" is shown as not supported', async () => {
    const res = await get(suite.user, `/shared_pool/cube/pools/${poolId}/settings`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      id: poolId,
      name: 'EU Fleet Pool',
      overagePolicy: 'no_limit',
      optInMode: 'automatic',
      activationRule: 'standard',
      activationRuleSupported: true,
    });
    await suite.t.db.query(`UPDATE shared_pools SET activation_rule = 'tenth' WHERE id = $1`, [poolId]);
    expect((await get(suite.user, `/shared_pool/cube/pools/${poolId}/settings`)).json().data.activationRuleSupported).toBe(false);
    await suite.t.db.query(`UPDATE shared_pools SET activation_rule = 'standard' WHERE id = $1`, [poolId]);
    expect((await get(suite.other, `/shared_pool/cube/pools/${poolId}/settings`)).statusCode).toBe(404);
  });

  it('lets an admin change the settings, each change an event and an audit row; a user, an operator and another organisation may not', async () => {
    expect((await put(suite.user, { optInMode: 'manual' })).statusCode).toBe(403);
    expect((await put(suite.operator, { optInMode: 'manual' })).statusCode).toBe(403);
    expect((await put(suite.other, { optInMode: 'manual' })).statusCode).toBe(404);
    const before = Number((await suite.t.db.query<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM events')).rows[0].id);
    const res = await put(suite.admin, { optInMode: 'manual', overagePolicy: 'stop_overage_sims' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ optInMode: 'manual', overagePolicy: 'stop_overage_sims', name: 'EU Fleet Pool' });
    const log = (
      await suite.t.db.query<{ data: { field: string; from: string; to: string } }>(
        `SELECT data FROM events WHERE id > $1 AND type = 'pool' AND subtype = 'settings_change' AND subject = $2 ORDER BY id`,
        [before, poolId],
      )
    ).rows;
    expect(log.map((l) => [l.data.field, l.data.from, l.data.to])).toEqual([
      ['overagePolicy', 'no_limit', 'stop_overage_sims'],
      ['optInMode', 'automatic', 'manual'],
    ]);
    expect((await suite.t.db.query(`SELECT 1 FROM audit_log WHERE action = 'pool_settings' AND entity_id = $1`, [poolId])).rows.length).toBe(1);
    // The same values again change nothing and log nothing.
    await put(suite.admin, { optInMode: 'manual' });
    expect((await suite.t.db.query(`SELECT 1 FROM events WHERE id > $1 AND type = 'pool' AND subtype = 'settings_change'`, [before])).rows.length).toBe(2);
  });

  it("refuses bad settings by field and rule, in the caller's language", async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'must name at least one field'],
      [{ overagePolicy: 'stop' }, 'Overage policy'],
      [{ optInMode: 'auto' }, 'Opt-in mode'],
      [{ name: '' }, 'Name is required'],
      [{ name: 'n'.repeat(101) }, 'Name must be at most 100 characters long'],
      [{ activationRule: 'pro_rata' }, 'activationRule'],
      [{ name: 'cold chain pool' }, 'Name is already in use'],
    ];
    for (const [body, message] of cases) {
      const res = await put(suite.admin, body);
      expect({ body, status: res.statusCode }).toEqual({ body, status: 400 });
      expect(res.json().status.message).toContain(message);
    }
    expect((await put(suite.admin, { name: 'n'.repeat(100) })).statusCode).toBe(200);
    expect((await put(suite.admin, { name: 'EU Fleet Pool' })).statusCode).toBe(200);
    const zh = await call(suite.t.app, suite.admin, {
      method: 'PUT',
      url: `/api/pool/shared_pool/cube/pools/${poolId}/settings`,
      payload: { optInMode: 'x' },
      headers: { language: 'zh-CN' },
    });
    expect(zh.json().status.message).toContain('加入方式');
  });

  it('"no limit" releases the SIMs the pool stopped, and the network is told', async () => {
    // The pool over its limit under "stop overage SIMs": the job stops the SIMs over their share.
    await suite.t.db.query(`UPDATE shared_pools SET limit_kb = 1, overage_policy = 'stop_overage_sims' WHERE id = $1`, [poolId]);
    await suite.t.db.query(
      `UPDATE pool_members SET cycle_usage_kb = 300000 WHERE pool_id = $1 AND left_at IS NULL AND sim_id = (SELECT min(sim_id) FROM pool_members WHERE pool_id = $1 AND left_at IS NULL)`,
      [poolId],
    );
    await suite.t.db.query(
      `UPDATE shared_pools SET usage_kb = (SELECT sum(cycle_usage_kb) FROM pool_members WHERE pool_id = $1 AND left_at IS NULL) WHERE id = $1`,
      [poolId],
    );
    await suite.t.db.query(`DELETE FROM job_leases WHERE name = 'pool_engine'`);
    const run = await runPoolJob(suite.t.db, suite.t.app.network, new Date(), 'test');
    expect(run.overages + run.stopped).toBeGreaterThanOrEqual(1);
    const stopped = (await suite.t.db.query<{ id: string }>('SELECT id FROM sims WHERE pool_id = $1 AND pool_stopped', [poolId])).rows.map((r) => r.id);
    expect(stopped.length).toBeGreaterThanOrEqual(1);
    for (const id of stopped) expect(suite.t.app.network.dataPolicyOf(id)).toBe('stop');
    const rt = (await get(suite.user, `/shared_pool/cube/dashboard/real_time_data?poolId=${poolId}`)).json().data;
    expect(rt).toMatchObject({ overage: true, stoppedSims: stopped.length, overagePolicy: 'stop_overage_sims' });
    expect((await put(suite.admin, { overagePolicy: 'no_limit' })).statusCode).toBe(200);
    expect((await suite.t.db.query('SELECT 1 FROM sims WHERE pool_id = $1 AND pool_stopped', [poolId])).rows.length).toBe(0);
    for (const id of stopped) expect(suite.t.app.network.dataPolicyOf(id)).toBe('none');
  });

  it('lets an admin add SIMs to the pool and take them out; the job enrols and lets them go', async () => {
    const manage = (s: Session, payload: unknown) =>
      call(suite.t.app, s, { method: 'POST', url: `/api/pool/shared_pool/cube/pools/${poolId}/sims`, payload: payload as object });
    const free = (
      await suite.t.db.query<{ id: string; iccid: string }>(
        `SELECT id, iccid FROM sims WHERE org_id = 'org-demo' AND status = 'active' AND pool_id IS NULL AND operation IS NULL ORDER BY id DESC LIMIT 2`,
      )
    ).rows;
    const member = (await suite.t.db.query<{ iccid: string }>('SELECT iccid FROM sims WHERE pool_id = $1 LIMIT 1', [poolId])).rows[0].iccid;
    expect((await manage(suite.user, { action: 'add', iccids: [free[0].iccid] })).statusCode).toBe(403);
    expect((await manage(suite.operator, { action: 'add', iccids: [free[0].iccid] })).statusCode).toBe(403);
    expect((await manage(suite.other, { action: 'add', iccids: [free[0].iccid] })).statusCode).toBe(404);
    expect((await manage(suite.admin, { action: 'add', iccids: [] })).statusCode).toBe(400);
    expect(
      (await manage(suite.admin, { action: 'add', iccids: Array.from({ length: 1001 }, (_, i) => `8949${String(i).padStart(15, '0')}`) })).statusCode,
    ).toBe(400);
    expect((await manage(suite.admin, { action: 'join', iccids: [free[0].iccid] })).statusCode).toBe(400);
    const added = await manage(suite.admin, { action: 'add', iccids: [...free.map((f) => f.iccid), member, '8949000000000000000'] });
    expect(added.json().data).toEqual({ changed: 2, unchanged: 1, inOtherPool: [], notFound: ['8949000000000000000'] });
    await suite.t.db.query(`DELETE FROM job_leases WHERE name = 'pool_engine'`);
    expect((await runPoolJob(suite.t.db, suite.t.app.network, new Date(), 'test')).enrolled).toBe(2);
    const removed = await manage(suite.admin, { action: 'remove', iccids: [free[0].iccid] });
    expect(removed.json().data.changed).toBe(1);
    expect((await runPoolJob(suite.t.db, suite.t.app.network, new Date(), 'test')).exited).toBe(1);
    const exit = (
      await suite.t.db.query<{ state: string; detail: { reason: string } }>(
        `SELECT state, detail FROM pool_events WHERE pool_id = $1 AND type = 'sim_exit' AND detail->>'simId' = $2`,
        [poolId, free[0].id],
      )
    ).rows;
    expect(exit).toMatchObject([{ state: 'created', detail: { reason: 'removed' } }]);
    expect(
      (await suite.t.db.query(`SELECT 1 FROM pool_events WHERE pool_id = $1 AND type = 'manage_sims_add' AND state = 'created' AND sim_count = 2`, [poolId]))
        .rows.length,
    ).toBe(1);
  });

  it("finds pools by part of the name, by id, or by a SIM's ICCID; only the caller's", async () => {
    const byName = (await get(suite.user, '/shared_pool/cube/pools/quick_search?keyword=fleet')).json().data;
    expect(byName.map((p: { id: string }) => p.id)).toContain(poolId);
    expect((await get(suite.user, `/shared_pool/cube/pools/quick_search?keyword=${poolId}`)).json().data[0]).toMatchObject({ id: poolId });
    const iccid = (await suite.t.db.query<{ iccid: string }>('SELECT iccid FROM sims WHERE pool_id = $1 LIMIT 1', [poolId])).rows[0].iccid;
    expect((await get(suite.user, `/shared_pool/cube/pools/quick_search?keyword=${iccid}`)).json().data).toContainEqual({
      id: poolId,
      name: 'EU Fleet Pool',
      status: 'active',
      matchedIccid: iccid,
    });
    expect((await get(suite.user, '/shared_pool/cube/pools/quick_search?keyword=%25')).json().data).toEqual([]);
    expect((await get(suite.other, '/shared_pool/cube/pools/quick_search?keyword=fleet')).json().data).toEqual([]);
    expect((await get(suite.user, '/shared_pool/cube/pools/quick_search?keyword=')).statusCode).toBe(400);
    expect((await get(suite.user, `/shared_pool/cube/pools/quick_search?keyword=${'k'.repeat(101)}`)).statusCode).toBe(400);
    expect((await get(suite.user, `/shared_pool/cube/pools/quick_search?keyword=${'k'.repeat(100)}`)).statusCode).toBe(200);
  });

  it("shows one event with its history in the log; another organisation's is not found", async () => {
    // A SIM in service joins the pool: enrolled by the job (created), effected by the next day's recompute.
    const sim = (
      await suite.t.db.query<{ id: string }>(
        `SELECT id FROM sims WHERE org_id = 'org-demo' AND status = 'active' AND pool_id IS NULL AND pool_enrolled_in IS NULL ORDER BY id LIMIT 1`,
      )
    ).rows[0];
    await suite.t.db.query('UPDATE sims SET pool_id = $2 WHERE id = $1', [sim.id, poolId]);
    await suite.t.db.query(`DELETE FROM job_leases WHERE name = 'pool_engine'`);
    expect((await runPoolJob(suite.t.db, suite.t.app.network, new Date(), 'test')).enrolled).toBe(1);
    const e = (
      await suite.t.db.query<{ id: string; state: string }>(
        `SELECT id::text, state FROM pool_events WHERE pool_id = $1 AND type = 'sim_enrolment' AND detail->>'simId' = $2`,
        [poolId, sim.id],
      )
    ).rows[0];
    expect(e.state).toBe('created');
    await suite.t.db.query('UPDATE shared_pools SET limit_computed_on = NULL WHERE id = $1', [poolId]);
    expect((await runPoolJob(suite.t.db, suite.t.app.network, new Date(), 'test')).recomputed).toBeGreaterThanOrEqual(1);
    const res = await get(suite.user, `/shared_pool/cube/events/${e.id}/detail`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: e.id, poolId, poolName: 'EU Fleet Pool', type: 'sim_enrolment', state: 'effected' });
    expect(res.json().data.history.map((h: { state: string }) => h.state)).toEqual(['created', 'effected']);
    expect((await get(suite.other, `/shared_pool/cube/events/${e.id}/detail`)).statusCode).toBe(404);
    expect((await get(suite.user, '/shared_pool/cube/events/999999999/detail')).statusCode).toBe(404);
    expect((await get(suite.user, '/shared_pool/cube/events/abc/detail')).statusCode).toBe(400);
  });

  it("draws the dashboard from rollups: usage against the limit, the cycle's days, bars by day and by group, top SIMs, member SIMs", async () => {
    const q = `poolId=${poolId}`;
    const pool = (
      await suite.t.db.query<{ usage_kb: string; limit_kb: string; cycle_start: string }>(
        'SELECT usage_kb, limit_kb, cycle_start::text FROM shared_pools WHERE id = $1',
        [poolId],
      )
    ).rows[0];
    const rt = (await get(suite.user, `/shared_pool/cube/dashboard/real_time_data?${q}`)).json().data;
    expect(rt).toMatchObject({ poolId, usageKb: Number(pool.usage_kb), limitKb: Number(pool.limit_kb), cycleStart: pool.cycle_start });
    const line = (await get(suite.user, `/shared_pool/cube/dashboard/line_chart?${q}`)).json().data;
    expect(line.points[0].day).toBe(pool.cycle_start);
    const rollup = (
      await suite.t.db.query<{ kb: string }>('SELECT coalesce(sum(volume_kb), 0) AS kb FROM pool_usage_daily WHERE pool_id = $1 AND day >= $2::date', [
        poolId,
        pool.cycle_start,
      ])
    ).rows[0];
    expect(line.points.at(-1).cumulativeKb).toBe(Number(rollup.kb));
    const byDay = (await get(suite.user, `/shared_pool/cube/dashboard/bar_chart?${q}`)).json().data;
    expect(byDay.bars).toHaveLength(30);
    const byGroup = (await get(suite.user, `/shared_pool/cube/dashboard/bar_chart?${q}&by=group`)).json().data;
    expect(byGroup.bars.map((b: { key: string }) => b.key)).toEqual(['none', 'under_half', 'under_share', 'over_share']);
    expect((await get(suite.user, `/shared_pool/cube/dashboard/bar_chart?${q}&by=week`)).statusCode).toBe(400);
    const rank = (await get(suite.user, `/shared_pool/cube/dashboard/sim_usage_rank?${q}&top=3`)).json().data;
    expect(rank.length).toBeLessThanOrEqual(3);
    for (let i = 1; i < rank.length; i++) expect(rank[i - 1].usageKb).toBeGreaterThanOrEqual(rank[i].usageKb);
    expect((await get(suite.user, `/shared_pool/cube/dashboard/sim_usage_rank?${q}&top=51`)).statusCode).toBe(400);
    expect((await get(suite.user, `/shared_pool/cube/dashboard/sim_usage_rank?${q}&top=50`)).statusCode).toBe(200);
    const page = (await get(suite.user, `/shared_pool/cube/dashboard/sims?${q}&pageSize=2`)).json().data;
    expect(page.items).toHaveLength(2);
    expect(page.total).toBeGreaterThan(2);
    const next = (await get(suite.user, `/shared_pool/cube/dashboard/sims?${q}&pageSize=2&cursor=${page.nextCursor}`)).json().data;
    expect(next.items[0].iccid > page.items[1].iccid).toBe(true);
    for (const path of ['real_time_data', 'line_chart', 'bar_chart', 'sim_usage_rank', 'sims']) {
      expect((await get(suite.other, `/shared_pool/cube/dashboard/${path}?${q}`)).statusCode).toBe(404);
      expect((await get(suite.user, `/shared_pool/cube/dashboard/${path}`)).statusCode).toBe(400);
    }
  });

  it("lists an organisation's pools by its id or code for its members, current or not; any other organisation is not found", async () => {
    await suite.t.db.query(
      `INSERT INTO shared_pools (org_id, id, name, bundle_name, bundle_sku, base_bundle_kb, cycle_start, cycle_end, effective_from)
       VALUES ('org-demo-north', 'POOLCALLSNORTH000001', 'North Depot Pool', 'Pool 1 GB', 'SKU-1', 1048576, date_trunc('month', now())::date, (date_trunc('month', now()) + interval '1 month')::date, date_trunc('month', now())::date)
       ON CONFLICT DO NOTHING`,
    );
    const pools = (s: Session, id: string) => get(s, `/shared_pool/cube/dashboard/${encodeURIComponent(id)}/pools`);
    // The current organisation, by code and by id: every pool, by name, each as the pool list's rows.
    const own = await pools(suite.user, 'DEMO');
    expect(own.statusCode, own.body).toBe(200);
    const names = (own.json().data as Array<{ name: string }>).map((p) => p.name);
    expect(names).toEqual(['Cold Chain Pool', 'EU Fleet Pool']);
    expect(own.json().data[1]).toMatchObject({ id: poolId, bundleName: expect.any(String), limitKb: expect.any(Number), status: 'active' });
    expect((await pools(suite.user, 'org-demo')).json().data).toEqual(own.json().data);
    // Another organisation the admin is a member of, while working in Demo: its pools only.
    const isMember = async (account: string, org: string) =>
      (await suite.t.db.query("SELECT 1 FROM memberships WHERE account_id = $1 AND org_id = $2 AND status = 'active'", [account, org])).rows.length > 0;
    expect(await isMember('acc-admin', 'org-demo-north')).toBe(true);
    const north = await pools(suite.admin, 'DEMO-NORTH');
    expect(north.statusCode, north.body).toBe(200);
    expect((north.json().data as Array<{ id: string }>).map((p) => p.id)).toEqual(['POOLCALLSNORTH000001']);
    // An organisation one is not a member of answers exactly as one that does not exist.
    const missing = await pools(suite.other, 'NOSUCHORG');
    expect(missing.statusCode).toBe(404);
    for (const id of ['DEMO', 'org-demo', 'DEMO-NORTH']) {
      const res = await pools(suite.other, id);
      expect(res.statusCode).toBe(404);
      expect(res.json().status.code).toBe(missing.json().status.code);
      expect(res.json().status.message).toBe(missing.json().status.message.replace('NOSUCHORG', id));
      expect(res.body).not.toContain('Pool');
    }
    if (!(await isMember('acc-user', 'org-demo-north'))) expect((await pools(suite.user, 'DEMO-NORTH')).statusCode).toBe(404);
    // The id's bounds: 40 characters pass validation, 41 are refused naming the field.
    expect((await pools(suite.user, 'x'.repeat(40))).statusCode).toBe(404);
    const long = await pools(suite.user, 'x'.repeat(41));
    expect(long.statusCode).toBe(400);
    expect(long.json().status.message).toMatch(/id/i);
  });
});
