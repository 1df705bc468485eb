/** Shared pools (data-pool API): list, detail, activity, events and rename, for the current organisation only. */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('shared pools on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, operator: DEMO.operator, user: DEMO.user, other: 'admin@other.example.com' });
  let poolId: string;
  beforeAll(async () => {
    poolId = (await suite.t.db.query<{ id: string }>("SELECT id FROM shared_pools WHERE org_id = 'org-demo' ORDER BY created_at LIMIT 1")).rows[0].id;
  });

  const get = (s: Session, url: string) => call(suite.t.app, s, { method: 'GET', url: `/api/pool${url}` });
  const rename = (s: Session, name: unknown, id = poolId) => call(suite.t.app, s, { method: 'PUT', url: `/api/pool/pool/${id}/name`, payload: { name } });

  it("lists the organisation's pools with their figures; another organisation has none", async () => {
    const res = await get(suite.user, '/shared_pool/cube/dashboard/pools');
    expect(res.statusCode).toBe(200);
    const [pool] = res.json().data.items;
    const direct = (
      await suite.t.db.query<{ n: number; used: string }>(
        'SELECT count(*)::int AS n, sum(cycle_usage_kb)::text AS used FROM pool_members WHERE pool_id = $1 AND left_at IS NULL',
        [poolId],
      )
    ).rows[0];
    expect(pool).toMatchObject({ id: poolId, name: 'EU Fleet Pool', totalSims: direct.n, usageKb: Number(direct.used), status: 'active' });
    expect(pool.cycleStart).toMatch(/^\d{4}-\d{2}-01$/);
    expect((await get(suite.other, '/shared_pool/cube/dashboard/pools')).json().data).toMatchObject({ items: [], total: 0 });
    expect((await get(suite.user, '/shared_pool/cube/dashboard/pools?status=closed')).json().data.items).toEqual([]);
    expect((await get(suite.user, '/shared_pool/cube/dashboard/pools?status=gone')).statusCode).toBe(400);
    expect((await get(suite.user, '/shared_pool/cube/dashboard/pools?pageSize=101')).statusCode).toBe(400);
  });

  it("shows one pool; someone else's or a missing one is not found", async () => {
    const res = await get(suite.user, `/shared_pool/cube/pools/${poolId}/detail`);
    expect(res.json().data).toMatchObject({
      id: poolId,
      overagePolicy: 'no_limit',
      optInMode: 'automatic',
      activationRule: 'standard',
      bundleName: expect.any(String),
    });
    expect((await get(suite.other, `/shared_pool/cube/pools/${poolId}/detail`)).statusCode).toBe(404);
    expect((await get(suite.user, '/shared_pool/cube/pools/NOSUCHPOOL/detail')).statusCode).toBe(404);
  });

  it('pages the activity and filters the events by type and state', async () => {
    const members = await get(suite.user, `/shared_pool/cube/pools/${poolId}/activity?pageSize=2`);
    expect(members.statusCode).toBe(200);
    const page = members.json().data;
    const count = (await suite.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pool_members WHERE pool_id = $1', [poolId])).rows[0].n;
    expect(page.total).toBe(count);
    expect(page.items.length).toBe(Math.min(2, count));
    expect(page.items[0].iccid).toMatch(/^89\d{17,18}$/);
    // The small seed puts 4 SIMs in this pool: a second page follows by cursor.
    expect(count).toBeGreaterThan(2);
    const next = await get(suite.user, `/shared_pool/cube/pools/${poolId}/activity?pageSize=2&cursor=${encodeURIComponent(page.nextCursor)}`);
    expect(next.json().data.items.map((m: { iccid: string }) => m.iccid)).not.toContain(page.items[0].iccid);
    const events = (await get(suite.user, `/shared_pool/cube/pools/${poolId}/events`)).json().data;
    const direct = (await suite.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pool_events WHERE pool_id = $1', [poolId])).rows[0].n;
    expect(events.total).toBe(direct);
    const setup = (await get(suite.user, `/shared_pool/cube/pools/${poolId}/events?type=setup`)).json().data.items;
    expect(setup.every((e: { type: string }) => e.type === 'setup')).toBe(true);
    expect((await get(suite.user, `/shared_pool/cube/pools/${poolId}/events?state=lost`)).statusCode).toBe(400);
    expect((await get(suite.other, `/shared_pool/cube/pools/${poolId}/events`)).statusCode).toBe(404);
    expect((await get(suite.other, `/shared_pool/cube/pools/${poolId}/activity`)).statusCode).toBe(404);
  });

  describe('rename', () => {
    it.each([
      ['an empty name', '', 'Name is required'],
      ['a name of spaces', '   ', 'Name has the wrong format'],
      ['a 101-character name', 'p'.repeat(101), 'Name must be at most 100 characters long'],
      ['a number', 42, 'Name must be text'],
    ])('refuses %s and keeps the name', async (_n, name, message) => {
      const res = await rename(suite.admin, name);
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toContain(message);
      expect((await suite.t.db.query<{ name: string }>('SELECT name FROM shared_pools WHERE id = $1', [poolId])).rows[0].name).toBe('EU Fleet Pool');
    });

    it('refuses a name another pool of the organisation has, whatever its case', async () => {
      const second = 'Second Pool';
      await suite.t.db.query(
        `INSERT INTO shared_pools (org_id, id, name, bundle_name, bundle_sku, base_bundle_kb, cycle_start, cycle_end, effective_from)
         VALUES ('org-demo', 'POOLSECOND0000000001', $1, 'Pool 1 GB', 'SKU-1', 1048576, date_trunc('month', now())::date, (date_trunc('month', now()) + interval '1 month')::date, date_trunc('month', now())::date)`,
        [second],
      );
      const res = await rename(suite.admin, 'second pool');
      expect(res.json().status.message).toBe('Name is already in use');
    });

    it("lets an admin rename (100 characters is the limit), not a user or an operator, and not someone else's pool", async () => {
      expect((await rename(suite.user, 'User name')).statusCode).toBe(403);
      expect((await rename(suite.operator, 'Operator name')).statusCode).toBe(403);
      expect((await rename(suite.other, 'Not theirs')).statusCode).toBe(404);
      const long = 'L'.repeat(100);
      const res = await rename(suite.admin, `  ${long}  `.trim());
      expect(res.statusCode).toBe(200);
      expect(res.json().data.name).toBe(long);
      expect((await rename(suite.admin, 'EU Fleet Pool')).json().data.name).toBe('EU Fleet Pool');
    });
  });
});
