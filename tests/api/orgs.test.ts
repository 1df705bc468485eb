import { describe, expect, it } from 'vitest';
import { call, countRows, DB_KINDS, DEMO, type Session, sessionHeaders, signedInSuite } from '../helper.js';

describe.each(DB_KINDS)('organisations on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, superadmin: DEMO.superadmin, other: 'admin@other.example.com' });

  const create = (s: Session, payload: unknown, language = 'en-US') =>
    call(suite.t.app, s, { method: 'POST', url: '/api/main/orgs', payload: payload as object, headers: { language } });

  it('lists my organisations with role and default', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/orgs' });
    expect(res.statusCode).toBe(200);
    const codes = res.json().data.map((o: { code: string }) => o.code);
    expect(codes).toEqual(expect.arrayContaining(['DEMO', 'DEMO-NORTH', 'DEMO-SOUTH']));
    expect(codes).not.toContain('OTHER');
  });

  describe('create refuses bad input and writes nothing', () => {
    it.each([
      ['a 4-character name', { name: 'Abcd', country: 'DE', smsQuota: 10 }, 'Name must be 5 to 40 characters long'],
      ['a 41-character name', { name: 'A'.repeat(41), country: 'DE', smsQuota: 10 }, 'Name must be at most 40 characters long'],
      ['a name of spaces', { name: '     x   ', country: 'DE', smsQuota: 10 }, 'Name must be at least 5 characters long'],
      ['an SMS quota of 0', { name: 'Quota Zero Org', country: 'DE', smsQuota: 0 }, 'SMS quota must be between 1 and 1,000,000,000'],
      ['an SMS quota over the cap', { name: 'Quota Over Org', country: 'DE', smsQuota: 10001 }, 'SMS quota must be at most 10,000'],
      ['a text SMS quota', { name: 'Quota Text Org', country: 'DE', smsQuota: '10' }, 'SMS quota must be a whole number'],
      ['a bad country', { name: 'Country Org', country: 'Germany', smsQuota: 10 }, 'Country has the wrong format'],
      ['an unassigned country code', { name: 'Country Org', country: 'XX', smsQuota: 10 }, 'Country must be an ISO 3166-1 alpha-2 country code'],
      ['an unknown field', { name: 'Unknown Org', country: 'DE', smsQuota: 10, level: 1 }, 'level is not an accepted field'],
      ['a taken name', { name: 'demo logistics north', country: 'DE', smsQuota: 10 }, 'The organisation name already exists.'],
    ])('%s', async (_n, payload, message) => {
      const orgs = await countRows(suite.t.db, 'organisations');
      const audits = await countRows(suite.t.db, 'audit_log');
      const res = await create(suite.admin, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toBe(message);
      expect(await countRows(suite.t.db, 'organisations')).toBe(orgs);
      expect(await countRows(suite.t.db, 'audit_log')).toBe(audits);
    });

    it('answers in Spanish', async () => {
      const res = await create(suite.admin, { name: 'Abcd', country: 'DE', smsQuota: 10 }, 'es-ES');
      expect(res.json().status.message).toBe('El campo «Nombre» debe tener entre 5 y 40 caracteres');
    });
  });

  it('creates at the boundaries (5 and 40 characters, quota 1 and the cap), adds oversight holders, audits', async () => {
    const a = await create(suite.admin, { name: 'Fives', country: 'DE', smsQuota: 1 });
    expect(a.statusCode).toBe(200);
    const b = await create(suite.admin, { name: 'B'.repeat(40), country: 'ES', smsQuota: 10000 });
    expect(b.statusCode).toBe(200);
    const id = a.json().data.id;
    const members = (
      await suite.t.db.query<{ account_id: string; role: string }>('SELECT account_id, role FROM memberships WHERE org_id = $1 ORDER BY account_id', [id])
    ).rows;
    // The creator (admin) and the superadmin (oversight inherent); not the operator or user.
    expect(members).toEqual([
      { account_id: 'acc-admin', role: 'admin' },
      { account_id: 'acc-superadmin', role: 'superadmin' },
    ]);
    expect(await countRows(suite.t.db, 'audit_log', "entity = 'organisation' AND entity_id = $1 AND action = 'create'", [id])).toBe(1);
  });

  it('refuses a new organisation when the cap is reached', async () => {
    await suite.t.db.query("UPDATE organisations SET org_cap = (SELECT count(*) FROM organisations WHERE parent_id = 'org-demo') WHERE id = 'org-demo'");
    const res = await create(suite.admin, { name: 'Over The Cap', country: 'DE', smsQuota: 1 });
    expect(res.json().status.message).toBe('The maximum number of organisations has been reached.');
    const seats = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/org/user/config/user_surplus/DEMO' });
    expect(seats.json().data).toMatchObject({ orgsLeft: 0, accountCap: 50, accountsUsed: 4, accountsLeft: 46 });
    await suite.t.db.query("UPDATE organisations SET org_cap = NULL WHERE id = 'org-demo'");
  });

  describe('rename', () => {
    it('an admin cannot rename the first-level organisation (0131)', async () => {
      const res = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/orgs/org-demo', payload: { name: 'New Demo Name' } });
      expect(res.statusCode).toBe(403);
      expect(res.json().status.code).toBe('0131');
      expect((await suite.t.db.query("SELECT name FROM organisations WHERE id = 'org-demo'")).rows[0].name).toBe('Demo Logistics GmbH');
    });

    it('a superadmin can, and a taken name answers 0135', async () => {
      const taken = await call(suite.t.app, suite.superadmin, { method: 'POST', url: '/api/main/orgs/org-demo', payload: { name: 'Demo Logistics South' } });
      expect(taken.json().status.code).toBe('0135');
      const ok = await call(suite.t.app, suite.superadmin, { method: 'POST', url: '/api/main/orgs/org-demo', payload: { name: 'Demo Logistics AG' } });
      expect(ok.statusCode).toBe(200);
      expect(
        await countRows(suite.t.db, 'audit_log', "action = 'rename' AND before->>'name' = 'Demo Logistics GmbH' AND after->>'name' = 'Demo Logistics AG'"),
      ).toBe(1);
    });

    it('an admin renames a sub-organisation', async () => {
      const res = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/orgs/org-demo-north', payload: { name: 'Demo North Hub' } });
      expect(res.statusCode).toBe(200);
    });

    it('a settlement customer keeps its name (0133)', async () => {
      await suite.t.db.query("UPDATE organisations SET settlement = true WHERE id = 'org-demo-south'");
      const res = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/orgs/org-demo-south', payload: { name: 'Demo South Hub' } });
      expect(res.json().status.code).toBe('0133');
    });
  });

  describe('someone else’s organisation', () => {
    it('is 404 by id under my own partnerCode', async () => {
      const res = await call(suite.t.app, suite.other, { method: 'POST', url: '/api/main/orgs/org-demo-north', payload: { name: 'Hijacked Name' } });
      expect(res.statusCode).toBe(404);
      expect((await call(suite.t.app, suite.other, { method: 'GET', url: '/api/main/org/user/config/DEMO' })).statusCode).toBe(404);
    });

    it('is 403 when I name its partnerCode', async () => {
      const res = await suite.t.app.inject({ method: 'GET', url: '/api/main/orgs', headers: sessionHeaders(suite.other.token, 'DEMO') });
      expect(res.statusCode).toBe(403);
    });
  });
});

describe.each(DB_KINDS)('deleting an organisation on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, user: DEMO.user, other: 'admin@other.example.com' });

  const remove = (s: Session, code: string) => call(suite.t.app, s, { method: 'DELETE', url: `/api/main/enterprises/delete/cube/${code}` });

  it('deletes an empty sub-organisation, and the membership with it', async () => {
    const made = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: '/api/main/orgs',
      payload: { name: 'Short Lived Org', country: 'DE', smsQuota: 5 },
    });
    const code = made.json().data.code as string;
    const res = await remove(suite.admin, code);
    expect(res.statusCode).toBe(200);
    expect(await countRows(suite.t.db, 'organisations', 'code = $1', [code])).toBe(0);
  });

  it.each([
    ['one that holds SIMs and records (0132)', 'DEMO-NORTH', 400, 'Cannot delete: the condition is not met.'],
    ['a first-level organisation (0131)', 'DEMO', 403, 'Insufficient permission to delete a first-level customer organisation.'],
  ])('refuses %s and keeps it', async (_n, code, status, message) => {
    const res = await remove(suite.admin, code);
    expect(res.statusCode).toBe(status);
    expect(res.json().status.message).toBe(message);
    expect(await countRows(suite.t.db, 'organisations', 'code = $1', [code])).toBe(1);
  });

  it("refuses the organisation one is working in, a user, and someone else's", async () => {
    const made = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: '/api/main/orgs',
      payload: { name: 'Current Place Org', country: 'DE', smsQuota: 5 },
    });
    const code = made.json().data.code as string;
    const inside = await call(suite.t.app, suite.admin, {
      method: 'DELETE',
      url: `/api/main/enterprises/delete/cube/${code}`,
      headers: sessionHeaders(suite.admin.token, code),
    });
    expect(inside.json().status.message).toBe('Cannot delete: the condition is not met.');
    expect((await remove(suite.user, code)).statusCode).toBe(403);
    expect((await remove(suite.other, code)).statusCode).toBe(404);
    expect(await countRows(suite.t.db, 'organisations', 'code = $1', [code])).toBe(1);
  });
});
