/**
 * POST /device/tag (the organisation's tags with how many SIMs carry each) and GET /sim/belong_org/{iccid} (the
 * organisation holding a SIM, among the caller's own and its direct sub-organisations).
 */
import { describe, expect, it } from 'vitest';
import { networkReports } from '../../server/network-reports/network-reports.js';
import { networkNamed } from '../../server/network/simulator.js';
import { call, DB_KINDS, DEMO, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('device calls on %s', (kind) => {
  const suite = signedInSuite(kind, { user: DEMO.user });
  const body = (r: { json: () => unknown }) => {
    const j = r.json() as { data?: unknown };
    return (j.data ?? j) as Record<string, unknown>;
  };
  const iccidOf = async (org: string) =>
    (await suite.t.db.query<{ iccid: string }>('SELECT iccid FROM sims WHERE org_id = $1 ORDER BY iccid LIMIT 1', [org])).rows[0].iccid;

  it("lists the organisation's tags with their SIM counts, narrowed by a prefix, and refuses a prefix longer than a tag", async () => {
    const expected = (
      await suite.t.db.query<{ tag: string; sims: number }>(
        `SELECT t AS tag, count(*)::int AS sims FROM sims, unnest(tags) t WHERE org_id = 'org-demo' GROUP BY t ORDER BY t`,
      )
    ).rows;
    expect(expected.length).toBeGreaterThan(0);
    const all = await call(suite.t.app, suite.user, { method: 'POST', url: '/api/main/device/tag', payload: {} });
    expect(all.statusCode).toBe(200);
    expect(body(all).items).toEqual(expected);
    const first = expected[0].tag.slice(0, 2);
    const some = await call(suite.t.app, suite.user, { method: 'POST', url: '/api/main/device/tag', payload: { prefix: first } });
    expect(body(some).items).toEqual(expected.filter((e) => e.tag.startsWith(first)));
    // A tag is at most 10 characters (SPEC.md section 9): 10 is taken, 11 refused naming the field.
    expect((await call(suite.t.app, suite.user, { method: 'POST', url: '/api/main/device/tag', payload: { prefix: 'abcdefghij' } })).statusCode).toBe(200);
    const long = await call(suite.t.app, suite.user, { method: 'POST', url: '/api/main/device/tag', payload: { prefix: 'abcdefghijk' } });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('prefix');
  });

  it("tells which organisation holds a SIM: its own or a sub-organisation's; another customer's is not found", async () => {
    const own = await call(suite.t.app, suite.user, { method: 'GET', url: `/api/main/sim/belong_org/${await iccidOf('org-demo')}` });
    expect(body(own)).toMatchObject({ orgCode: 'DEMO', current: true });
    const child = await call(suite.t.app, suite.user, { method: 'GET', url: `/api/main/sim/belong_org/${await iccidOf('org-demo-north')}` });
    expect(body(child)).toMatchObject({ orgCode: 'DEMO-NORTH', orgName: 'Demo Logistics North', current: false });
    expect((await call(suite.t.app, suite.user, { method: 'GET', url: `/api/main/sim/belong_org/${await iccidOf('org-other')}` })).statusCode).toBe(404);
  });

  it('lists the networks and radios a SIM was seen on in its sessions, newest first', async () => {
    const sim = (
      await suite.t.db.query<{ orgId: string; simId: string; iccid: string; imsi: string | null; msisdn: string | null }>(
        `SELECT org_id AS "orgId", id AS "simId", iccid, imsi, msisdn FROM sims WHERE org_id = 'org-demo' AND status = 'active' ORDER BY id LIMIT 1`,
      )
    ).rows[0];
    await suite.t.db.query(`UPDATE sims SET connection_status = 'offline' WHERE id = $1`, [sim.simId]);
    const reports = networkReports(suite.t.db);
    const now = Date.now();
    const fr = networkNamed('Orange FR 208-01')!;
    const de = networkNamed('Telekom DE 262-01')!;
    await reports.connectionStatus({ sim, status: 'connected', network: fr, rat: 'LTE', at: new Date(now - 3_600_000) });
    await reports.sessionOpened({ sim, apn: 'iot.demo', ip: '10.1.2.3', network: fr, rat: 'LTE', at: new Date(now - 3_000_000) });
    await reports.connectionStatus({ sim, status: 'connected', network: de, rat: 'NBIoT', at: new Date(now - 60_000) });
    const r = await call(suite.t.app, suite.user, { method: 'GET', url: `/api/cdr/sims/cells?iccid=${sim.iccid}` });
    expect(r.statusCode).toBe(200);
    const items = body(r).items as Array<{ network: string; rat: string; attaches: number; sessions: number }>;
    expect(items.slice(0, 2).map((i) => [i.network, i.rat, i.attaches, i.sessions])).toEqual([
      ['Telekom DE 262-01', 'NBIoT', 1, 0],
      ['Orange FR 208-01', 'LTE', 1, 1],
    ]);
    const other = (await suite.t.db.query<{ iccid: string }>(`SELECT iccid FROM sims WHERE org_id = 'org-other' LIMIT 1`)).rows[0].iccid;
    expect((await call(suite.t.app, suite.user, { method: 'GET', url: `/api/cdr/sims/cells?iccid=${other}` })).statusCode).toBe(404);
  });
});
