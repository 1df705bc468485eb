import { beforeAll, describe, expect, it } from 'vitest';
import { call, countRows, DB_KINDS, DEMO, type Session, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('sub-organisation SMS quotas, seats and reach over shared accounts on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, operator: DEMO.operator, other: 'admin@other.example.com' });
  let cap: number;
  beforeAll(async () => {
    cap = (await suite.t.db.query<{ sms_quota: number }>("SELECT sms_quota FROM organisations WHERE id = 'org-demo'")).rows[0].sms_quota;
  });

  const setQuota = (s: Session, payload: unknown) => call(suite.t.app, s, { method: 'PUT', url: '/api/main/orgs/smsOperService', payload: payload as object });
  const quotaOf = async (id: string) =>
    (await suite.t.db.query<{ sms_quota: number }>('SELECT sms_quota FROM organisations WHERE id = $1', [id])).rows[0].sms_quota;

  it('lists the direct sub-organisations with their quota and range', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/orgs/smsOperService' });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ code: 'DEMO', smsQuota: cap });
    expect(data.items.map((i: { code: string }) => i.code).sort()).toEqual(['DEMO-NORTH', 'DEMO-SOUTH']);
    expect(data.items[0]).toMatchObject({ min: 1, max: cap });
  });

  it('reads one sub-organisation; the organisation itself or another customer’s is 404', async () => {
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/orgs/smsOperService/org-demo-north' })).json().data.code).toBe('DEMO-NORTH');
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/orgs/smsOperService/org-demo' })).statusCode).toBe(404);
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/orgs/smsOperService/org-other' })).statusCode).toBe(404);
  });

  it.each([
    ['0', 0, 'SMS quota must be between 1 and 1,000,000,000'],
    ['the cap + 1', 'cap+1', 'SMS quota must be at most {cap}'],
    ['text', '5', 'SMS quota must be a whole number'],
  ])('refuses a quota of %s and writes nothing', async (_n, value, message) => {
    const before = await quotaOf('org-demo-north');
    const audits = await countRows(suite.t.db, 'audit_log');
    const res = await setQuota(suite.admin, { id: 'org-demo-north', smsQuota: value === 'cap+1' ? cap + 1 : value });
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toBe(message.replace('{cap}', cap.toLocaleString('en-US')));
    expect(await quotaOf('org-demo-north')).toBe(before);
    expect(await countRows(suite.t.db, 'audit_log')).toBe(audits);
  });

  it('accepts 1 and the cap, audited', async () => {
    expect((await setQuota(suite.admin, { id: 'org-demo-north', smsQuota: 1 })).json().data.smsQuota).toBe(1);
    expect((await setQuota(suite.admin, { id: 'org-demo-north', smsQuota: cap })).json().data.smsQuota).toBe(cap);
    expect(await quotaOf('org-demo-north')).toBe(cap);
    expect(await countRows(suite.t.db, 'audit_log', "action = 'setSmsQuota' AND entity_id = 'org-demo-north'")).toBe(2);
  });

  it('an operator may not set quotas; another customer’s organisation is 404', async () => {
    expect((await setQuota(suite.operator, { id: 'org-demo-north', smsQuota: 5 })).statusCode).toBe(403);
    expect((await setQuota(suite.other, { id: 'org-demo-north', smsQuota: 5 })).statusCode).toBe(404);
    expect(await quotaOf('org-demo-north')).toBe(cap);
  });

  it('says whether another sub-organisation may be created', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/sub_org_qty_setting/verify/org-demo' });
    expect(res.json().data).toMatchObject({ allowed: true, orgsUsed: 2 });
    await suite.t.db.query("UPDATE organisations SET org_cap = 2 WHERE id = 'org-demo'");
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/sub_org_qty_setting/verify/org-demo' })).json().data).toMatchObject({
      allowed: false,
      orgsLeft: 0,
    });
    await suite.t.db.query("UPDATE organisations SET org_cap = NULL WHERE id = 'org-demo'");
    expect((await call(suite.t.app, suite.other, { method: 'GET', url: '/api/main/sub_org_qty_setting/verify/org-demo' })).statusCode).toBe(404);
  });

  it('updates only the country of an organisation; an unassigned code is refused', async () => {
    const ok = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/orgs/org-demo-south', payload: { country: 'AT' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.country).toBe('AT');
    const bad = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/orgs/org-demo-south', payload: { country: 'XX' } });
    expect(bad.json().status.message).toBe('Country must be an ISO 3166-1 alpha-2 country code');
    expect((await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/orgs/org-demo-south', payload: {} })).statusCode).toBe(400);
  });

  describe('an account that also belongs to another customer', () => {
    beforeAll(async () => {
      // The other customer's admin also holds a plain membership in Demo: Demo's admin does not administer all of it.
      await suite.t.db.query(
        "INSERT INTO memberships (account_id, org_id, role, status, is_default) VALUES ('acc-other-admin', 'org-demo', 'user', 'active', false)",
      );
    });

    it.each([
      ['disable it', 'PATCH', '/api/main/change_status/accounts/acc-other-admin', { status: 'disabled' }],
      ['reset its password', 'PATCH', '/api/main/reset_password/accounts/acc-other-admin', undefined],
      ['rename it', 'PUT', '/api/main/accounts/acc-other-admin', { firstName: 'Hijacked' }],
      ['grant it oversight', 'PUT', '/api/main/accounts/oversight/acc-other-admin', { oversight: true }],
    ])('Demo’s admin may not %s', async (_n, method, url, payload) => {
      const res = await call(suite.t.app, suite.admin, { method: method as 'PUT', url, payload: payload as object | undefined });
      expect(res.statusCode).toBe(403);
      const row = (await suite.t.db.query("SELECT status, first_name, oversight FROM accounts WHERE id = 'acc-other-admin'")).rows[0];
      expect(row).toEqual({ status: 'active', first_name: 'Otto', oversight: false });
    });

    it('but may change its role in Demo, which is Demo’s own', async () => {
      const res = await call(suite.t.app, suite.admin, { method: 'PUT', url: '/api/main/accounts/acc-other-admin', payload: { role: 'operator' } });
      expect(res.statusCode).toBe(200);
      expect((await suite.t.db.query("SELECT role FROM memberships WHERE account_id = 'acc-other-admin' AND org_id = 'org-demo'")).rows[0].role).toBe(
        'operator',
      );
    });
  });
});
