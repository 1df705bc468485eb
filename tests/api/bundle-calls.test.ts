/**
 * The last bundle calls of SPEC.md section 7, each answering from the database: the SIM's service, periods, card and
 * bundle queue, a bundle's cycle, usage per cycle and per bundle with their exports, the coverage export, the
 * pre-activation check, and cancelling a bundle (the next in the queue takes over). One SIM is given known bundles and
 * CDRs: a daily bundle activated three days ago at 10:00 UTC, so today is its fourth cycle.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../server/db/ids.js';
import { defineCycles } from '../../server/bundles/bundle-engine.js';
import { call, countRows, DB_KINDS, DEMO, type Session, signedInSuite, signIn } from '../helper.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each(DB_KINDS)('bundle calls on %s', (kind) => {
  const suite = signedInSuite(kind);
  let user: Session;
  let admin: Session;
  let zh: Session;
  // Today's UTC midnight once the seed is in (taken when the file loaded, a seed that crossed midnight left the SIM in
  // its fifth cycle, not its fourth).
  let today: number;
  let anchor: Date;
  const ids = { base: newId(), next: newId(), sms: newId() };
  let sim: { orgId: string; simId: string; iccid: string };
  let otherIccid: string;
  let otherBundle: string;
  const data = (r: { json: () => unknown }) => (r.json() as { data: Record<string, unknown> }).data;
  const one = async <T>(sql: string, params: unknown[] = []) => (await suite.t.db.query<T>(sql, params)).rows[0];

  beforeAll(async () => {
    today = Math.floor(Date.now() / DAY) * DAY;
    anchor = new Date(today - 3 * DAY + 10 * HOUR);
    [user, admin] = await Promise.all([signIn(suite.t.app, DEMO.user), signIn(suite.t.app, DEMO.admin)]);
    zh = { ...user, headers: { ...user.headers, language: 'zh-CN' } };
    sim = await one(
      `SELECT org_id AS "orgId", id AS "simId", iccid FROM sims WHERE org_id = 'org-demo' AND status = 'active' AND technology = 'ONE_IMSI' AND operation IS NULL AND pool_id IS NULL ORDER BY id LIMIT 1`,
    );
    ({ iccid: otherIccid } = await one<{ iccid: string }>(`SELECT iccid FROM sims WHERE org_id = 'org-other' LIMIT 1`));
    ({ id: otherBundle } = await one<{ id: string }>(`SELECT id FROM bundle_orders WHERE org_id = 'org-demo' AND sim_id <> $1 LIMIT 1`, [sim.simId]));
    await suite.t.db.tx(async (q) => {
      await q.query(`UPDATE bundle_orders SET status = 'CANCELLED', expired_at = $2 WHERE sim_id = $1 AND status IN ('PENDING', 'IN_USE')`, [
        sim.simId,
        anchor.toISOString(),
      ]);
      await q.query('DELETE FROM cdrs WHERE sim_id = $1', [sim.simId]);
      await q.query(
        `UPDATE sims SET cycle_reset = NULL, cycle_started_at = NULL, cycle_ends_at = NULL, overage_control = 'none', flow_control_policy = 'none', coverage_barred = false,
                            rule_control = 'none', out_of_coverage_at = NULL, policy_unsent = false WHERE id = $1`,
        [sim.simId],
      );
      const order = (
        id: string,
        status: string,
        orderedAt: number,
        extra: { service?: string; reset?: string; activated?: Date | null; expires?: Date | null },
      ) =>
        q.query(
          `INSERT INTO bundle_orders (org_id, id, sim_id, iccid, type, payment_mode, name, sku, service_type, ordered_at, activated_at, expected_expire_at, quota_kb, reset_cycle,
                                      overage_policy, out_of_coverage, coverage_countries, status)
           VALUES ($1, $2, $3, $4, 'BEFORE_BASIC', 'prepaid', $5, $6, $7, $8, $9, $10, 1000, $11, 'stop', 'shut_down', '{DE,FR}', $12)`,
          [
            sim.orgId,
            id,
            sim.simId,
            sim.iccid,
            `Plan ${id.slice(0, 4)}`,
            `TST-${id.slice(0, 6)}`,
            extra.service ?? 'data',
            new Date(orderedAt).toISOString(),
            extra.activated?.toISOString() ?? null,
            extra.expires?.toISOString() ?? null,
            extra.reset ?? 'DAY',
            status,
          ],
        );
      await order(ids.base, 'IN_USE', anchor.getTime(), { activated: anchor, expires: new Date(anchor.getTime() + 365 * DAY) });
      await order(ids.next, 'PENDING', anchor.getTime() + HOUR, { reset: 'DAY_24H' });
      await order(ids.sms, 'PENDING', anchor.getTime() + 2 * HOUR, { service: 'sms' });
      const cdr = (at: number, kb: number, direction: string) =>
        q.query(
          `INSERT INTO cdrs (org_id, sim_id, iccid, network, direction, rat, volume_kb, start_at, end_at, duration_s) VALUES ($1, $2, $3, 'Test 001-01', $4, 'LTE', $5, $6, $6, 0)`,
          [sim.orgId, sim.simId, sim.iccid, direction, kb, new Date(at).toISOString()],
        );
      // Cycle 1 (the activation day): 100 KB; cycle 2: 300 KB; cycle 3: none; cycle 4 (today): 1,500 KB, over the 1,000 KB allowance.
      await cdr(anchor.getTime() + HOUR, 100, 'uplink');
      await cdr(today - 2 * DAY + 5 * HOUR, 200, 'uplink');
      await cdr(today - 2 * DAY + 6 * HOUR, 100, 'downlink');
      await cdr(today + 1000, 1500, 'downlink');
      await defineCycles(q, [sim], new Date());
    });
  });

  it('GET /sim/service: the cycle the SIM counts now, its usage against the limit, the policy in force and the queue', async () => {
    const r = await call(suite.t.app, user, { method: 'GET', url: `/api/main/sim/service?iccid=${sim.iccid}` });
    expect(r.statusCode, r.body).toBe(200);
    expect(data(r)).toMatchObject({
      iccid: sim.iccid,
      status: 'active',
      data: true,
      sms: false,
      inUse: 1,
      pending: 2,
      next: { id: ids.next },
      control: 'stop',
      cycle: {
        bundleId: ids.base,
        resetCycle: 'DAY',
        number: 4,
        start: new Date(today).toISOString(),
        end: new Date(today + DAY).toISOString(),
        usageKb: 1500,
        limitKb: 1000,
        remainingKb: 0,
        overageKb: 500,
      },
    });
    expect((await call(suite.t.app, user, { method: 'GET', url: `/api/main/sim/service?iccid=${otherIccid}` })).statusCode).toBe(404);
    const bad = await call(suite.t.app, user, { method: 'GET', url: '/api/main/sim/service?iccid=12345' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().status.message).toContain('ICCID');
  });

  it('POST /device/cycle: every cycle of the bundle, newest first and paged, each the sum of its CDRs', async () => {
    const r = await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle', payload: { iccid: sim.iccid } });
    expect(r.statusCode, r.body).toBe(200);
    const d = data(r) as {
      total: number;
      bundleId: string;
      items: Array<{ number: number; usageKb: number; limitKb: number; overageKb: number; current: boolean; start: string }>;
    };
    expect(d.bundleId).toBe(ids.base);
    expect(d.total).toBe(4);
    expect(d.items.map((c) => [c.number, c.usageKb, c.limitKb, c.overageKb, c.current])).toEqual([
      [4, 1500, 1000, 500, true],
      [3, 0, 1000, 0, false],
      [2, 300, 1000, 0, false],
      [1, 100, 1000, 0, false],
    ]);
    // Calendar days: cycle 1 is the activation's day from 00:00 UTC.
    expect(d.items[3].start).toBe(new Date(today - 3 * DAY).toISOString());
    for (const c of d.items) {
      const sum = await one<{ kb: number }>(
        `SELECT coalesce(sum(volume_kb), 0)::float8 AS kb FROM cdrs WHERE sim_id = $1 AND start_at >= $2 AND start_at < $3::timestamptz + interval '1 day'`,
        [sim.simId, c.start, c.start],
      );
      expect(c.usageKb).toBe(sum.kb);
    }
    // The current cycle is the SIM's own count.
    expect(d.items[0].usageKb).toBe(Number((await one<{ n: string }>('SELECT cycle_usage_kb AS n FROM sims WHERE id = $1', [sim.simId])).n));
    const page2 = data(
      await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle', payload: { iccid: sim.iccid, pageSize: 3, page: 2 } }),
    ) as { items: Array<{ number: number }> };
    expect(page2.items.map((c) => c.number)).toEqual([1]);
    const page3 = data(
      await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle', payload: { iccid: sim.iccid, pageSize: 3, page: 3 } }),
    ) as { items: unknown[]; total: number };
    expect(page3).toMatchObject({ items: [], total: 4 });
    // A pending bundle has no cycle yet.
    expect(
      data(await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle', payload: { iccid: sim.iccid, bundleId: ids.next } })),
    ).toMatchObject({ total: 0, items: [] });
    // Page size 100 is taken, 101 refused naming the field; someone else's SIM or another SIM's bundle is not found.
    expect((await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle', payload: { iccid: sim.iccid, pageSize: 100 } })).statusCode).toBe(
      200,
    );
    const big = await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle', payload: { iccid: sim.iccid, pageSize: 101 } });
    expect(big.statusCode).toBe(400);
    expect(big.json().status.message).toMatch(/pageSize|page size/i);
    expect((await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle', payload: { iccid: otherIccid } })).statusCode).toBe(404);
    expect(
      (await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle', payload: { iccid: sim.iccid, bundleId: otherBundle } })).statusCode,
    ).toBe(404);
    expect((await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle', payload: { iccid: 8949 } })).statusCode).toBe(400);
  });

  it('GET /sim/bundle/detail/{iccid}/{bundleId}/{cycle}: one cycle of one bundle, its bounds, CDRs and radios; cycles outside it refused', async () => {
    const url = (b: string, n: string | number, iccid = sim.iccid) => `/api/main/sim/bundle/detail/${iccid}/${b}/${n}`;
    const r = await call(suite.t.app, user, { method: 'GET', url: url(ids.base, 2) });
    expect(r.statusCode, r.body).toBe(200);
    expect(data(r)).toMatchObject({
      bundle: { id: ids.base, status: 'IN_USE', cycles: 4, coverageCountries: ['DE', 'FR'] },
      cycle: {
        number: 2,
        start: new Date(today - 2 * DAY).toISOString(),
        end: new Date(today - DAY).toISOString(),
        current: false,
        usageKb: 300,
        uplinkKb: 200,
        downlinkKb: 100,
        cdrs: 2,
        limitKb: 1000,
        overageKb: 0,
        byRat: [{ rat: 'LTE', volumeKb: 300 }],
      },
    });
    expect(data(await call(suite.t.app, user, { method: 'GET', url: url(ids.base, 4) }))).toMatchObject({
      cycle: { current: true, usageKb: 1500, overageKb: 500 },
    });
    // Cycle 1 is the first; the last is the one running now; a pending bundle has none.
    for (const [n, message] of [
      [0, /between 1 and/],
      [5, /at most 4/],
      ['x', /integer|whole number/],
    ] as const) {
      const bad = await call(suite.t.app, user, { method: 'GET', url: url(ids.base, n) });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().status.message).toMatch(message);
    }
    expect((await call(suite.t.app, user, { method: 'GET', url: url(ids.next, 1) })).statusCode).toBe(400);
    expect((await call(suite.t.app, user, { method: 'GET', url: url(otherBundle, 1) })).statusCode).toBe(404);
    expect((await call(suite.t.app, user, { method: 'GET', url: url(ids.base, 1, otherIccid) })).statusCode).toBe(404);
  });

  it('GET /sim/getAllPackageService/{iccid}: the bundles in queue order, each pending one with when it would start', async () => {
    const r = await call(suite.t.app, user, { method: 'GET', url: `/api/main/sim/getAllPackageService/${sim.iccid}` });
    expect(r.statusCode, r.body).toBe(200);
    const d = data(r) as {
      inUse: Array<{ id: string; base: boolean }>;
      pending: Array<{ id: string; position: number; startsAt: string | null }>;
      ended: Array<{ status: string }>;
    };
    expect(d.inUse.map((b) => [b.id, b.base])).toEqual([[ids.base, true]]);
    expect(d.pending.map((b) => [b.id, b.position, b.startsAt])).toEqual([
      [ids.next, 1, new Date(anchor.getTime() + 365 * DAY).toISOString()],
      [ids.sms, 0, null],
    ]);
    expect(d.ended.length).toBeGreaterThan(0);
    expect(d.ended.every((b) => b.status === 'EXPIRED' || b.status === 'CANCELLED')).toBe(true);
    expect((await call(suite.t.app, user, { method: 'GET', url: `/api/main/sim/getAllPackageService/${otherIccid}` })).statusCode).toBe(404);
  });

  it('GET /sim/details and /sim/spec/{iccid}: the periods with when each ends, the card and whether it could be activated', async () => {
    const quiet = await one<{ iccid: string; ends: Date; technology: string }>(
      `SELECT iccid, pre_activated_at + make_interval(days => pre_activated_period_days) AS ends, technology FROM sims
        WHERE org_id = 'org-demo' AND sub_status = 'quiet' AND pre_activated_at IS NOT NULL AND pre_activated_period_days IS NOT NULL ORDER BY id LIMIT 1`,
    );
    const details = data(await call(suite.t.app, user, { method: 'GET', url: `/api/main/sim/details?iccid=${quiet.iccid}` }));
    expect(details).toMatchObject({
      status: 'pre_activated',
      subStatus: 'quiet',
      preActivated: { running: true, endsAt: new Date(quiet.ends).toISOString() },
      test: { running: false },
    });
    const spec = data(await call(suite.t.app, user, { method: 'GET', url: `/api/main/sim/spec/${sim.iccid}` }));
    expect(spec).toMatchObject({ iccid: sim.iccid, activatable: false, activateRefusal: 'onlyPreActivated' });
    const ota = await one<{ iccid: string }>(`SELECT iccid FROM sims WHERE org_id = 'org-demo' AND technology = 'OTA' LIMIT 1`);
    expect(data(await call(suite.t.app, user, { method: 'GET', url: `/api/main/sim/spec/${ota.iccid}` }))).toMatchObject({ ota: true, activatable: false });
    expect((await call(suite.t.app, user, { method: 'GET', url: `/api/main/sim/spec/${otherIccid}` })).statusCode).toBe(404);
    expect((await call(suite.t.app, user, { method: 'GET', url: `/api/main/sim/details?iccid=${otherIccid}` })).statusCode).toBe(404);
  });

  it('POST /sim/preActiveValidated: the activate rules SIM by SIM, nothing taken or written; for those who may activate', async () => {
    const ready = await one<{ iccid: string }>(
      `SELECT s.iccid FROM sims s WHERE s.org_id = 'org-demo' AND s.status = 'pre_activated' AND s.technology IN ('ONE_IMSI') AND s.operation IS NULL
          AND EXISTS (SELECT 1 FROM bundle_orders b WHERE b.sim_id = s.id AND b.status IN ('PENDING', 'IN_USE')) LIMIT 1`,
    );
    const tasks = await countRows(suite.t.db, 'tasks');
    const r = await call(suite.t.app, admin, {
      method: 'POST',
      url: '/api/main/sim/preActiveValidated',
      payload: { iccids: [ready.iccid, sim.iccid, otherIccid, ready.iccid] },
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(data(r)).toMatchObject({ accepted: 1, refused: 2 });
    expect((data(r).results as Array<{ reason?: string; ok: boolean }>).map((x) => x.reason ?? x.ok)).toEqual([true, 'onlyPreActivated', 'notExist']);
    expect(await countRows(suite.t.db, 'tasks')).toBe(tasks);
    expect(await one<{ operation: string | null }>('SELECT operation FROM sims WHERE iccid = $1', [ready.iccid])).toEqual({ operation: null });
    expect((await call(suite.t.app, admin, { method: 'POST', url: '/api/main/sim/preActiveValidated', payload: { iccids: [] } })).statusCode).toBe(400);
    const many = Array.from({ length: 1001 }, (_, i) => `8949000000${String(i).padStart(9, '0')}`);
    expect(
      (await call(suite.t.app, admin, { method: 'POST', url: '/api/main/sim/preActiveValidated', payload: { iccids: many.slice(0, 1000) } })).statusCode,
    ).toBe(200);
    expect((await call(suite.t.app, admin, { method: 'POST', url: '/api/main/sim/preActiveValidated', payload: { iccids: many } })).statusCode).toBe(400);
    expect((await call(suite.t.app, user, { method: 'POST', url: '/api/main/sim/preActiveValidated', payload: { iccids: [ready.iccid] } })).statusCode).toBe(
      403,
    );
  });

  it("POST /device/bundle: the organisation's bundles by product, as the orders add up; filtered; exported", async () => {
    const all: Array<{ sku: string; inUse: number; sims: number; pending: number }> = [];
    for (let page = 1; ; page += 1) {
      const r = await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/bundle', payload: { page, pageSize: 100 } });
      expect(r.statusCode, r.body).toBe(200);
      const d = data(r) as { items: typeof all; total: number };
      all.push(...d.items);
      if (all.length >= d.total) break;
    }
    const expected = (
      await suite.t.db.query<{ sku: string; in_use: number; pending: number }>(
        `SELECT sku, count(*) FILTER (WHERE status = 'IN_USE')::int AS in_use, count(*) FILTER (WHERE status = 'PENDING')::int AS pending FROM bundle_orders WHERE org_id = 'org-demo' GROUP BY sku`,
      )
    ).rows;
    expect(all.map((b) => [b.sku, b.inUse, b.pending]).sort()).toEqual(expected.map((b) => [b.sku, b.in_use, b.pending]).sort());
    const mine = data(
      await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/bundle', payload: { search: `TST-${ids.base.slice(0, 6)}` } }),
    ) as { items: Array<Record<string, unknown>> };
    expect(mine.items).toEqual([
      expect.objectContaining({
        sku: `TST-${ids.base.slice(0, 6)}`,
        sims: 1,
        inUse: 1,
        cycleUsedKb: 0,
        overAllowance: 1,
        controlled: 1,
        resetCycle: 'DAY',
        quotaKb: 1000,
      }),
    ]);
    expect(
      (data(await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/bundle', payload: { search: '100%_\\' } })) as { total: number }).total,
    ).toBe(0);
    const bad = await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/bundle', payload: { status: 'USED' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().status.message).toContain('status');

    const ex = await call(suite.t.app, zh, { method: 'POST', url: '/api/main/device/bundle/export', payload: { format: 'csv' } });
    expect(ex.statusCode, ex.body).toBe(200);
    expect(ex.json().data.quantity).toBe(expected.length);
    expect(await suite.t.app.jobs.runOnce()).toBe(true);
    const lines = await fileOf(ex.json().data.taskId, zh);
    expect(lines).toHaveLength(expected.length + 1);
    expect(lines[0]).toContain('重置周期');
  });

  it("POST /device/cycle/export and /device/coverCountry/export: through the task center, worded in the requester's language", async () => {
    const ex = await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle/export', payload: { iccid: sim.iccid, format: 'csv' } });
    expect(ex.statusCode, ex.body).toBe(200);
    expect(ex.json().data.quantity).toBe(4);
    expect(await suite.t.app.jobs.runOnce()).toBe(true);
    const lines = await fileOf(ex.json().data.taskId, user);
    expect(lines[0]).toBe('ICCID,Bundle,Cycle,Start (UTC),End (UTC),Usage (KB),Allowance (KB),Overage (KB)');
    expect(lines.slice(1).map((l) => l.split(',').slice(2, 3).concat(l.split(',').slice(5)))).toEqual([
      ['4', '1500', '1000', '500'],
      ['3', '0', '1000', '0'],
      ['2', '300', '1000', '0'],
      ['1', '100', '1000', '0'],
    ]);
    const none = await call(suite.t.app, user, {
      method: 'POST',
      url: '/api/main/device/cycle/export',
      payload: { iccid: sim.iccid, bundleId: ids.next, format: 'csv' },
    });
    expect(none.json().status.message).toBe('No data to export');
    expect(
      (await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/cycle/export', payload: { iccid: sim.iccid, format: 'pdf' } })).statusCode,
    ).toBe(400);

    const sku = `TST-${ids.base.slice(0, 6)}`;
    const cov = await call(suite.t.app, zh, { method: 'POST', url: '/api/main/device/coverCountry/export', payload: { sku, format: 'xlsx' } });
    expect(cov.statusCode, cov.body).toBe(200);
    expect(cov.json().data.quantity).toBe(2);
    const all = await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/coverCountry/export', payload: { format: 'csv' } });
    const rows = await one<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT DISTINCT ON (sku) sku, coverage_countries AS c FROM bundle_orders WHERE org_id = 'org-demo' ORDER BY sku, ordered_at DESC) p,
              LATERAL unnest(CASE WHEN cardinality(p.c) = 0 THEN ARRAY[NULL::text] ELSE p.c END) x`,
    );
    expect(all.json().data.quantity).toBe(rows.n);
    while (await suite.t.app.jobs.runOnce());
    const covLines = await fileOf(all.json().data.taskId, user);
    expect(covLines[0]).toBe('SKU,Bundle,Country code,Country,Out-of-coverage policy,SIMs');
    expect(covLines).toContain(`${sku},Plan ${ids.base.slice(0, 4)},DE,Germany,Shut down,1`);
    const nothing = await call(suite.t.app, user, {
      method: 'POST',
      url: '/api/main/device/coverCountry/export',
      payload: { sku: 'NO-SUCH-SKU', format: 'csv' },
    });
    expect(nothing.json().status.message).toBe('No data to export');
    expect(
      (await call(suite.t.app, user, { method: 'POST', url: '/api/main/device/coverCountry/export', payload: { sku: 'x'.repeat(65), format: 'csv' } }))
        .statusCode,
    ).toBe(400);
  });

  it('POST /sim/bundle/cancel: an admin cancels a pending bundle, then the one in use, and the next in the queue takes over; an event each', async () => {
    const cancel = (s: Session, bundleId: string, iccid = sim.iccid) =>
      call(suite.t.app, s, { method: 'POST', url: '/api/main/sim/bundle/cancel', payload: { iccid, bundleId } });
    expect((await cancel(user, ids.sms)).statusCode).toBe(403);
    expect((await cancel(admin, otherBundle)).statusCode).toBe(404);
    expect((await cancel(admin, ids.sms, otherIccid)).statusCode).toBe(404);
    const events = Number((await one<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM events')).id);

    const p = await cancel(admin, ids.sms);
    expect(p.statusCode, p.body).toBe(200);
    expect(data(p)).toEqual({ bundleId: ids.sms, from: 'PENDING', status: 'CANCELLED', next: null });

    const u = await cancel(admin, ids.base);
    expect(u.statusCode, u.body).toBe(200);
    expect(data(u)).toMatchObject({ bundleId: ids.base, from: 'IN_USE', status: 'CANCELLED', next: { id: ids.next } });
    const next = await one<{ status: string; activated_at: Date }>('SELECT status, activated_at FROM bundle_orders WHERE id = $1', [ids.next]);
    expect(next.status).toBe('IN_USE');
    // The SIM counts the new bundle's 24-hour cycle from now: a new cycle, nothing used in it, the stop released.
    const s = await one<{ cycle_reset: string; cycle_started_at: Date; cycle_usage_kb: string; flow_control_policy: string; policy_unsent: boolean }>(
      'SELECT cycle_reset, cycle_started_at, cycle_usage_kb, flow_control_policy, policy_unsent FROM sims WHERE id = $1',
      [sim.simId],
    );
    expect(s).toMatchObject({ cycle_reset: 'DAY_24H', flow_control_policy: 'none', policy_unsent: true });
    expect(new Date(s.cycle_started_at)).toEqual(new Date(next.activated_at));
    expect(Number(s.cycle_usage_kb)).toBe(0);
    const logged = (
      await suite.t.db.query<{ subtype: string; to: string; from: string; reason: string }>(
        `SELECT subtype, data->'detail'->>'to' AS to, data->'detail'->>'from' AS from, data->'detail'->>'reason' AS reason FROM events WHERE id > $1 AND subject = $2 AND subtype = 'bundle_change' ORDER BY id`,
        [events, sim.iccid],
      )
    ).rows;
    expect(logged).toEqual([
      { subtype: 'bundle_change', from: 'PENDING', to: 'CANCELLED', reason: 'cancelled' },
      { subtype: 'bundle_change', from: 'IN_USE', to: 'CANCELLED', reason: 'cancelled' },
      { subtype: 'bundle_change', from: 'PENDING', to: 'IN_USE', reason: 'next_in_queue' },
    ]);
    const again = await cancel(admin, ids.base);
    expect(again.statusCode).toBe(409);
    expect(again.json().status.message).toContain('CANCELLED');
  });

  it("GET /sim/bundle/overuse_policy: a throttle held by an automation rule is told as the rule's, not as overage", async () => {
    await suite.t.db.query(
      `UPDATE sims SET rule_control = 'throttle_256', flow_control_policy = flow_control_of(coverage_barred, overage_control, 'throttle_256') WHERE id = $1`,
      [sim.simId],
    );
    const r = data(await call(suite.t.app, user, { method: 'GET', url: `/api/main/sim/bundle/overuse_policy/${sim.iccid}` }));
    expect(r).toMatchObject({ control: 'throttle_256', reason: 'rule', rule: { name: null }, releasedAt: null });
  });

  /** The lines of a finished export's file. */
  async function fileOf(taskId: string, s: Session): Promise<string[]> {
    const token = await call(suite.t.app, s, { method: 'GET', url: `/api/job/rest/job/my/oneTimeToken?id=${taskId}` });
    expect(token.statusCode, token.body).toBe(200);
    const file = await suite.t.app.inject({ method: 'GET', url: token.json().data.url });
    return file.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
  }
});
