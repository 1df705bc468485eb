/** Reports: the organisation's list and its preference columns, enabled or disabled, at least one kept. */
import { describe, expect, it } from 'vitest';
import { call, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('reports on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, user: DEMO.user, other: 'admin@other.example.com' });

  const prefs = (s: Session) => call(suite.t.app, s, { method: 'POST', url: '/api/main/report/config/list' });
  const save = (s: Session, columns: unknown) => call(suite.t.app, s, { method: 'POST', url: '/api/main/report/config/cube', payload: { columns } });

  it("lists the organisation's reports; another organisation's code is not found", async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/report/reports/DEMO', payload: {} });
    expect(res.statusCode).toBe(200);
    const direct = (await suite.t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM reports WHERE org_id = 'org-demo'")).rows[0].n;
    expect(res.json().data.total).toBe(direct);
    expect((await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/report/reports/OTHER', payload: {} })).statusCode).toBe(404);
    const filtered = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/report/reports/DEMO', payload: { report: 'sim_inventory' } });
    expect(filtered.json().data.items.every((r: { report: string }) => r.report === 'sim_inventory')).toBe(true);
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/report/config/hasReportConfig/DEMO' })).json().data).toBe(true);
    expect((await call(suite.t.app, suite.user, { method: 'POST', url: '/api/main/report/reports/DEMO', payload: {} })).statusCode).toBe(403);
  });

  it('enables and disables preference columns, for the organisation only', async () => {
    const before = (await prefs(suite.admin)).json().data.items as Array<{ columnKey: string; enabled: boolean }>;
    expect(before.map((c) => c.columnKey).slice(0, 3)).toEqual(['iccid', 'imsi', 'msisdn']);
    const res = await save(suite.admin, [
      { columnKey: 'imei', enabled: true },
      { columnKey: 'msisdn', enabled: false },
    ]);
    expect(res.statusCode).toBe(200);
    const after = Object.fromEntries((res.json().data.items as Array<{ columnKey: string; enabled: boolean }>).map((c) => [c.columnKey, c.enabled]));
    expect(after).toMatchObject({ imei: true, msisdn: false });
    const theirs = Object.fromEntries(
      ((await prefs(suite.other)).json().data.items as Array<{ columnKey: string; enabled: boolean }>).map((c) => [c.columnKey, c.enabled]),
    );
    expect(theirs).toMatchObject({ imei: false, msisdn: true });
  });

  it.each([
    ['every column disabled', 'all', 'At least one column must stay enabled'],
    ['an unknown column', [{ columnKey: 'salary', enabled: true }], 'must be one of'],
    ['no columns', [], 'Columns must have at least 1 entry'],
    ['a text flag', [{ columnKey: 'iccid', enabled: 'yes' }], 'Enabled must be yes or no'],
  ])('refuses %s and changes nothing', async (_n, columns, message) => {
    const before = (await prefs(suite.admin)).json().data.items;
    const body = columns === 'all' ? before.map((c: { columnKey: string }) => ({ columnKey: c.columnKey, enabled: false })) : columns;
    const res = await save(suite.admin, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toContain(message);
    expect((await prefs(suite.admin)).json().data.items).toEqual(before);
  });

  it('a user may not change the columns', async () => {
    expect((await save(suite.user, [{ columnKey: 'iccid', enabled: false }])).statusCode).toBe(403);
  });
});
