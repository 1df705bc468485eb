import { describe, expect, it } from 'vitest';
import { isValidPassword } from '../../common/limits.js';
import { generatePassword } from '../../common/passwords.js';
import { call, countRows, DB_KINDS, DEMO, signedInSuite, signIn } from '../helper.js';

describe('the generated password', () => {
  it('is 11 characters plus a symbol and passes the rule', () => {
    for (let i = 0; i < 200; i++) {
      const p = generatePassword();
      expect(p).toHaveLength(12);
      expect(p.slice(0, 11)).toMatch(/^[A-Za-z0-9]{11}$/);
      expect(isValidPassword(p)).toBe(true);
    }
  });
});

describe.each(DB_KINDS)('account administration on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin });

  const good = { email: 'direct@example.com', firstName: 'Dana', lastName: 'Direct', role: 'user', password: 'Dana#2026' };

  it('creates an account that signs in at once', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/accounts', payload: good });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ email: 'direct@example.com', role: 'user', status: 'active' });
    await signIn(suite.t.app, 'direct@example.com', 'Dana#2026');
  });

  it.each([
    [{ ...good, email: DEMO.user }, 'Account already registered! Proceed to invite.'],
    [{ ...good, email: 'p@example.com', password: 'short' }, 'Password must be 6-12 digits and include letter, number and symbol!'],
    // The schema's own rule (x-rule) names every broken check of the field: length both sides, the character classes.
    [{ ...good, email: 'p@example.com', password: 'Ab#45' }, 'Password must be 6-12 digits and include letter, number and symbol!'],
    [{ ...good, email: 'p@example.com', password: 'Abcdef#12345x' }, 'Password must be 6-12 digits and include letter, number and symbol!'],
    [{ ...good, email: 'p@example.com', password: 'abcdefgh1' }, 'Password must be 6-12 digits and include letter, number and symbol!'],
    [{ ...good, email: 'not-an-address' }, 'E-mail must be a valid e-mail address'],
    [{ ...good, email: 'p@example.com', password: 123456 }, 'Password must be text'],
    [{ ...good, email: 'p@example.com', lastName: 'L'.repeat(31) }, 'Last name must be at most 30 characters long'],
    [{ ...good, email: 'p@example.com', lastName: '   ' }, 'Last name has the wrong format'],
    [{ ...good, email: 'p@example.com', role: 'root' }, 'Role must be one of: user, operator, admin, superadmin'],
  ])('refuses %j and writes nothing', async (payload, message) => {
    const accounts = await countRows(suite.t.db, 'accounts');
    const res = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/accounts', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toBe(message);
    expect(await countRows(suite.t.db, 'accounts')).toBe(accounts);
  });

  it('updates names at the boundary and refuses an empty body', async () => {
    const ok = await call(suite.t.app, suite.admin, {
      method: 'PUT',
      url: '/api/main/accounts/acc-user',
      payload: { firstName: 'U'.repeat(30), lastName: 'X' },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.firstName).toBe('U'.repeat(30));
    const empty = await call(suite.t.app, suite.admin, { method: 'PUT', url: '/api/main/accounts/acc-user', payload: {} });
    expect(empty.json().status.message).toBe('Request body must name at least one field');
  });

  it('changes a role within reach, never to superadmin, never a superadmin’s', async () => {
    expect((await call(suite.t.app, suite.admin, { method: 'PUT', url: '/api/main/accounts/acc-user', payload: { role: 'operator' } })).json().data.role).toBe(
      'operator',
    );
    expect((await call(suite.t.app, suite.admin, { method: 'PUT', url: '/api/main/accounts/acc-user', payload: { role: 'superadmin' } })).statusCode).toBe(403);
    expect(
      (await call(suite.t.app, suite.admin, { method: 'PUT', url: '/api/main/accounts/acc-superadmin', payload: { firstName: 'Hacked' } })).statusCode,
    ).toBe(403);
    expect((await suite.t.db.query("SELECT first_name FROM accounts WHERE id = 'acc-superadmin'")).rows[0].first_name).toBe('Sofia');
    const audit = (
      await suite.t.db.query<{ before: { role: string }; after: { role: string } }>(
        "SELECT before, after FROM audit_log WHERE action = 'update' AND entity_id = 'acc-user' ORDER BY id DESC LIMIT 1",
      )
    ).rows[0];
    expect(audit.before.role).toBe('user');
    expect(audit.after.role).toBe('operator');
  });

  it('grants oversight in a first-level organisation', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'PUT', url: '/api/main/accounts/oversight/acc-operator', payload: { oversight: true } });
    expect(res.json().data.oversight).toBe(true);
    const sub = { ...suite.admin, headers: { ...suite.admin.headers, partnercode: 'DEMO-NORTH' } };
    expect((await call(suite.t.app, sub, { method: 'PUT', url: '/api/main/accounts/oversight/acc-operator', payload: { oversight: false } })).statusCode).toBe(
      403,
    );
  });

  it('resets a password: mailed, sessions ended, old password refused', async () => {
    const op = await signIn(suite.t.app, DEMO.operator);
    const res = await call(suite.t.app, suite.admin, { method: 'PATCH', url: '/api/main/reset_password/accounts/acc-operator' });
    expect(res.statusCode).toBe(200);
    expect((await call(suite.t.app, op, { method: 'GET', url: '/api/main/orgs' })).statusCode).toBe(401);
    const body = (await suite.t.db.query<{ body: string }>('SELECT body FROM outbox WHERE to_address = $1 ORDER BY id DESC LIMIT 1', [DEMO.operator])).rows[0]
      .body;
    const password = /password is (\S+)\./.exec(body)![1];
    await signIn(suite.t.app, DEMO.operator, password);
    expect(JSON.stringify((await suite.t.db.query("SELECT before, after FROM audit_log WHERE action = 'resetPassword'")).rows)).not.toContain(password);
  });

  it('lists a member’s organisations that I share, 404 for strangers', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/accounts/acc-operator/partners' });
    expect(res.json().data.map((o: { code: string }) => o.code)).toEqual(['DEMO', 'DEMO-NORTH']);
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/accounts/acc-other-admin/partners' })).statusCode).toBe(404);
  });
});
