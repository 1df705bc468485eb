import { describe, expect, it } from 'vitest';
import { call, countRows, DB_KINDS, DEMO, signedInSuite, signIn } from '../helper.js';

const INVITE = '/api/identity/info/cube/invites';

describe.each(DB_KINDS)('invitations on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin });

  const tokenMailedTo = async (email: string) => {
    const body = (await suite.t.db.query<{ body: string }>('SELECT body FROM outbox WHERE to_address = $1 ORDER BY id DESC LIMIT 1', [email])).rows[0].body;
    return /token=([\w-]+)/.exec(body)![1];
  };

  it('a new person is invited, sets a password from the link and is signed in as a member', async () => {
    const res = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: INVITE,
      payload: { email: 'New.Person@Example.com', firstName: 'Nina', lastName: 'New', role: 'operator' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ email: 'new.person@example.com', role: 'operator', orgCode: 'DEMO', status: 'pending' });
    const token = await tokenMailedTo('new.person@example.com');
    const weak = await suite.t.app.inject({ method: 'POST', url: '/api/identity/sso/signin/direct/cube/invited', payload: { token, password: 'weak' } });
    expect(weak.json().status.message).toBe('Password must be 6-12 digits and include letter, number and symbol!');
    const ok = await suite.t.app.inject({ method: 'POST', url: '/api/identity/sso/signin/direct/cube/invited', payload: { token, password: 'Nina#2026' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.customData.partner_code).toBe('DEMO');
    expect(ok.json().data.roles[0]).toMatchObject({ code: 'DEMO', role: 'operator', pending_invitation: false });
    await signIn(suite.t.app, 'new.person@example.com', 'Nina#2026');
    // The link works once.
    const again = await suite.t.app.inject({ method: 'POST', url: '/api/identity/sso/signin/direct/cube/invited', payload: { token, password: 'Nina#2027' } });
    expect(again.json().status.message).toBe('The invitation does not exist or was already answered.');
  });

  it('an existing account accepts after signing in', async () => {
    const other = await signIn(suite.t.app, 'admin@other.example.com');
    const res = await call(suite.t.app, suite.admin, { method: 'POST', url: INVITE, payload: { email: 'admin@other.example.com', role: 'user' } });
    expect(res.statusCode).toBe(200);
    const token = await tokenMailedTo('admin@other.example.com');
    const wrong = await call(suite.t.app, other, { method: 'POST', url: '/api/identity/accept/info/cube/invites', payload: { token: 'x'.repeat(40) } });
    expect(wrong.json().status.code).toBe('CB-01-0015');
    const ok = await call(suite.t.app, other, { method: 'POST', url: '/api/identity/accept/info/cube/invites', payload: { token } });
    expect(ok.json().data).toMatchObject({ orgCode: 'DEMO', role: 'user', status: 'active' });
  });

  it('refuses a member: Already a member in this organisation!', async () => {
    const before = await countRows(suite.t.db, 'memberships');
    const res = await call(suite.t.app, suite.admin, { method: 'POST', url: INVITE, payload: { email: DEMO.user, role: 'user' } });
    expect(res.json().status.message).toBe('Already a member in this organisation!');
    expect(await countRows(suite.t.db, 'memberships')).toBe(before);
  });

  it('refuses a role above the inviter’s', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'POST', url: INVITE, payload: { email: 'boss@example.com', role: 'superadmin' } });
    expect(res.statusCode).toBe(403);
    expect(await countRows(suite.t.db, 'accounts', "email = 'boss@example.com'")).toBe(0);
  });

  it.each([
    [{ email: 'bad', role: 'user' }, 'E-mail has the wrong format'],
    [{ email: 'x@example.com', role: 'owner' }, 'Role must be one of: user, operator, admin, superadmin'],
    [{ email: 'x@example.com', role: 'user', firstName: 'F'.repeat(31) }, 'First name must be at most 30 characters long'],
    [{ email: 'x@example.com', role: 'user', firstName: '' }, 'First name is required'],
    [{ email: 'x@example.com' }, 'Role is required'],
  ])('refuses %j', async (payload, message) => {
    const res = await call(suite.t.app, suite.admin, { method: 'POST', url: INVITE, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().status.message).toBe(message);
    expect(await countRows(suite.t.db, 'accounts', "email = 'x@example.com'")).toBe(0);
  });

  it('accepts a first name of 30 characters', async () => {
    const res = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: INVITE,
      payload: { email: 'thirty@example.com', role: 'user', firstName: 'F'.repeat(30) },
    });
    expect(res.statusCode).toBe(200);
  });

  it('refuses when no account seat is left', async () => {
    await suite.t.db.query(
      "UPDATE organisations SET account_cap = (SELECT count(*) FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE m.org_id = 'org-demo' AND NOT a.back_office) WHERE id = 'org-demo'",
    );
    const res = await call(suite.t.app, suite.admin, { method: 'POST', url: INVITE, payload: { email: 'late@example.com', role: 'user' } });
    expect(res.json().status.message).toBe('The maximum number of accounts has been reached.');
    expect(await countRows(suite.t.db, 'accounts', "email = 'late@example.com'")).toBe(0);
    await suite.t.db.query("UPDATE organisations SET account_cap = NULL WHERE id = 'org-demo'");
  });

  it('revokes a pending invitation, and the account made for it', async () => {
    await call(suite.t.app, suite.admin, { method: 'POST', url: INVITE, payload: { email: 'maybe@example.com', role: 'user' } });
    const res = await call(suite.t.app, suite.admin, { method: 'DELETE', url: `${INVITE}?email=maybe@example.com` });
    expect(res.statusCode).toBe(200);
    expect(await countRows(suite.t.db, 'accounts', "email = 'maybe@example.com'")).toBe(0);
    const again = await call(suite.t.app, suite.admin, { method: 'DELETE', url: `${INVITE}?email=maybe@example.com` });
    expect(again.json().status.code).toBe('CB-01-0015');
  });

  it('a superadmin cannot be removed; an operator can', async () => {
    const sa = await call(suite.t.app, suite.admin, { method: 'DELETE', url: '/api/identity/permission/info/cube/permissions/DEMO/acc-superadmin' });
    expect(sa.statusCode).toBe(403);
    expect(sa.json().status.message).toBe('Superadmin cannot be removed');
    const superadmin = await signIn(suite.t.app, DEMO.superadmin);
    expect(
      (await call(suite.t.app, superadmin, { method: 'DELETE', url: '/api/identity/permission/info/cube/permissions/DEMO/acc-superadmin' })).json().status
        .message,
    ).toBe('Superadmin cannot be removed');
    const op = await call(suite.t.app, suite.admin, { method: 'DELETE', url: '/api/identity/permission/info/cube/permissions/DEMO/acc-operator' });
    expect(op.statusCode).toBe(200);
    expect(await countRows(suite.t.db, 'memberships', "org_id = 'org-demo' AND account_id = 'acc-operator'")).toBe(0);
    expect(await countRows(suite.t.db, 'audit_log', "action = 'removeMember' AND entity_id = 'acc-operator'")).toBe(1);
  });

  it('cannot remove members of another organisation', async () => {
    const res = await call(suite.t.app, suite.admin, { method: 'DELETE', url: '/api/identity/permission/info/cube/permissions/OTHER/acc-other-admin' });
    expect(res.statusCode).toBe(404);
  });
});

describe.each(DB_KINDS)('membership settings on %s', (kind) => {
  const suite = signedInSuite(kind);

  it('sets my default organisation, which the next sign-in lands in', async () => {
    const op = await signIn(suite.t.app, DEMO.operator);
    const res = await call(suite.t.app, op, { method: 'PUT', url: `/api/identity/permission/info/cube/${op.accountId}/current/DEMO-NORTH` });
    expect(res.statusCode).toBe(200);
    expect((await signIn(suite.t.app, DEMO.operator)).partnerCode).toBe('DEMO-NORTH');
    expect((await call(suite.t.app, op, { method: 'PUT', url: `/api/identity/permission/info/cube/${op.accountId}/current/OTHER` })).statusCode).toBe(404);
    expect((await call(suite.t.app, op, { method: 'PUT', url: '/api/identity/permission/info/cube/acc-user/current/DEMO' })).statusCode).toBe(403);
  });

  it('renames myself within 1-30 characters', async () => {
    const u = await signIn(suite.t.app, DEMO.user);
    expect(
      (await call(suite.t.app, u, { method: 'PUT', url: '/api/identity/permission/info/cube/permissions/name', payload: { firstName: 'Ulla' } })).json().data
        .name,
    ).toBe('Ulla User');
    expect(
      (await call(suite.t.app, u, { method: 'PUT', url: '/api/identity/permission/info/cube/permissions/name', payload: { firstName: 'U'.repeat(31) } }))
        .statusCode,
    ).toBe(400);
  });

  it('refreshes the rules of the current organisation', async () => {
    const op = await signIn(suite.t.app, DEMO.operator);
    const res = await call(suite.t.app, op, { method: 'PUT', url: '/api/identity/permission/info/cube/permission/refresh' });
    expect(res.json().data).toMatchObject({ role: 'operator', partner_code: op.partnerCode });
  });

  it('removes several members at once, or none when a superadmin is among them', async () => {
    const admin = await signIn(suite.t.app, DEMO.admin);
    const url = '/api/identity/permission/info/cube/permissions/DEMO/x/batch';
    const refused = await call(suite.t.app, admin, { method: 'DELETE', url, payload: { ids: ['acc-user', 'acc-superadmin'] } });
    expect(refused.json().status.message).toBe('Superadmin cannot be removed');
    expect(await countRows(suite.t.db, 'memberships', "org_id = 'org-demo' AND account_id = 'acc-user'")).toBe(1);
    const ok = await call(suite.t.app, admin, { method: 'DELETE', url, payload: { ids: ['acc-user', 'acc-operator'] } });
    expect(ok.statusCode).toBe(200);
    expect(await countRows(suite.t.db, 'memberships', "org_id = 'org-demo' AND account_id IN ('acc-user', 'acc-operator')")).toBe(0);
  });
});
