import { describe, expect, it } from 'vitest';
import { call, countRows, DB_KINDS, DEMO, signedInSuite, signIn } from '../helper.js';

describe.each(DB_KINDS)('accounts and the audit trail on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, other: 'admin@other.example.com' });

  it('lists the current organisation’s accounts, paged, without secrets', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/partner/DEMO/accounts?page=1&pageSize=2' });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.total).toBe(4);
    expect(data.items).toHaveLength(2);
    expect(res.body).not.toContain('password');
    const search = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/partner/DEMO/accounts?search=olivia' });
    expect(search.json().data.items.map((a: { email: string }) => a.email)).toEqual([DEMO.operator]);
  });

  it.each([
    ['pageSize=0', 'Page size must be between 1 and 100'],
    ['pageSize=101', 'Page size must be between 1 and 100'],
    ['page=0', 'page must be between 1 and 100,000'],
    ['page=abc', 'page must be a whole number'],
    ['sort=email', 'sort is not an accepted field'],
  ])('refuses %s', async (query, message) => {
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: `/api/main/partner/DEMO/accounts?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toBe(message);
  });

  it('accepts pageSize 1 and 100', async () => {
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/partner/DEMO/accounts?pageSize=1' })).json().data.items).toHaveLength(1);
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/partner/DEMO/accounts?pageSize=100' })).json().data.items).toHaveLength(4);
  });

  it('answers 404 for another organisation’s code or account', async () => {
    expect((await call(suite.t.app, suite.other, { method: 'GET', url: '/api/main/partner/DEMO/accounts' })).statusCode).toBe(404);
    expect((await call(suite.t.app, suite.other, { method: 'GET', url: '/api/main/partner/OTHER/accounts/acc-admin' })).statusCode).toBe(404);
    expect(
      (await call(suite.t.app, suite.other, { method: 'PATCH', url: '/api/main/change_status/accounts/acc-user', payload: { status: 'disabled' } })).statusCode,
    ).toBe(404);
    expect((await suite.t.db.query("SELECT status FROM accounts WHERE id = 'acc-user'")).rows[0].status).toBe('active');
  });

  it('an admin cannot disable a superadmin, nor itself', async () => {
    const res = await call(suite.t.app, suite.admin, {
      method: 'PATCH',
      url: '/api/main/change_status/accounts/acc-superadmin',
      payload: { status: 'disabled' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().status.message).toBe('Permission denied');
    expect(
      (await call(suite.t.app, suite.admin, { method: 'PATCH', url: '/api/main/change_status/accounts/acc-admin', payload: { status: 'disabled' } }))
        .statusCode,
    ).toBe(400);
    expect(await countRows(suite.t.db, 'accounts', "status = 'disabled'")).toBe(0);
  });

  it('refuses an unknown status', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'PATCH', url: '/api/main/change_status/accounts/acc-user', payload: { status: 'banned' } });
    expect(res.json().status.message).toBe('Status must be one of: active, disabled');
  });

  it('disabling an operator ends its sessions and is audited with before and after', async () => {
    const op = await signIn(suite.t.app, DEMO.operator);
    const res = await call(suite.t.app, suite.admin, {
      method: 'PATCH',
      url: '/api/main/change_status/accounts/acc-operator',
      payload: { status: 'disabled' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.status).toBe('disabled');
    expect((await call(suite.t.app, op, { method: 'GET', url: '/api/main/orgs' })).statusCode).toBe(401);
    const logs = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/audit/logs?entity=account' });
    const entry = logs.json().data.items.find((l: { action: string }) => l.action === 'changeStatus');
    expect(entry).toMatchObject({
      accountId: 'acc-admin',
      email: DEMO.admin,
      entityId: 'acc-operator',
      before: { status: 'active' },
      after: { status: 'disabled' },
    });
    await call(suite.t.app, suite.admin, { method: 'PATCH', url: '/api/main/change_status/accounts/acc-operator', payload: { status: 'active' } });
  });

  it('the audit trail is append-only in the database', async () => {
    await expect(suite.t.db.query('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
    await expect(suite.t.db.query("UPDATE audit_log SET action = 'x'")).rejects.toThrow(/append-only/);
  });

  it('the audit trail shows only the current organisation', async () => {
    const mine = await call(suite.t.app, suite.other, { method: 'GET', url: '/api/main/audit/logs' });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().data.items.every((l: { entityId: string }) => l.entityId !== 'acc-operator')).toBe(true);
  });
});
