/**
 * The account list's accountWide flag: per account, whether the caller may make the account-wide edits
 * (status, password, oversight, names, language). It must say what those routes answer, for an account in one
 * organisation and for the same account once it also belongs to one where the caller is not admin.
 */
import { describe, expect, it } from 'vitest';
import { call, DEMO, signedInSuite, signIn, DB_KINDS, type Session } from '../helper.js';

const OTHER_ADMIN = 'admin@other.example.com';
const TWO = 'two.orgs@example.com';

describe.each(DB_KINDS)('accountWide in the account list on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin, superadmin: DEMO.superadmin, other: OTHER_ADMIN });
  let id = '';

  const lastMailTo = async (email: string, kind = 'invitation') =>
    (await suite.t.db.query<{ body: string }>('SELECT body FROM outbox WHERE to_address = $1 AND kind = $2 ORDER BY id DESC LIMIT 1', [email, kind])).rows[0]
      .body;
  /** The flag of an account as the list and the detail answer it to a caller (the two must agree). */
  const flagOf = async (who: Session, accountId: string) => {
    const list = await call(suite.t.app, who, { method: 'GET', url: `/api/main/partner/${who.headers.partnercode}/accounts?page=1&pageSize=100` });
    expect(list.statusCode).toBe(200);
    const row = (list.json().data.items as Array<{ id: string; accountWide: boolean }>).find((r) => r.id === accountId)!;
    const detail = await call(suite.t.app, who, { method: 'GET', url: `/api/main/partner/${who.headers.partnercode}/accounts/${accountId}` });
    expect(detail.json().data.accountWide).toBe(row.accountWide);
    return row.accountWide;
  };
  /** What the account-wide routes answer the caller: status code and envelope code of each. */
  const answers = async (who: Session, accountId: string) => {
    const tried = [
      await call(suite.t.app, who, { method: 'PATCH', url: `/api/main/change_status/accounts/${accountId}`, payload: { status: 'active' } }),
      await call(suite.t.app, who, { method: 'PATCH', url: `/api/main/reset_password/accounts/${accountId}` }),
      await call(suite.t.app, who, { method: 'PUT', url: `/api/main/accounts/${accountId}`, payload: { firstName: 'Tess' } }),
    ];
    return tried.map((res) => `${res.statusCode} ${res.json().status.code}`);
  };
  const ALLOWED = ['200 CB-00-0000', '200 CB-00-0000', '200 CB-00-0000'];
  const REFUSED = ['403 0134', '403 0134', '403 0134'];

  it('is true, and the routes answer, while the account is in the caller’s organisation only', async () => {
    const made = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: '/api/main/accounts',
      payload: { email: TWO, firstName: 'Tess', lastName: 'Two', role: 'user', password: 'Tess#2026' },
    });
    expect(made.statusCode).toBe(200);
    id = made.json().data.id;
    expect(made.json().data.accountWide).toBe(true);
    expect(await flagOf(suite.admin, id)).toBe(true);
    expect(await answers(suite.admin, id)).toEqual(ALLOWED);
  });

  it('is false, and the routes answer 0134, once the account also belongs to an organisation the caller does not administer', async () => {
    const invited = await call(suite.t.app, suite.other, { method: 'POST', url: '/api/identity/info/cube/invites', payload: { email: TWO, role: 'user' } });
    expect(invited.statusCode).toBe(200);
    // Already pending, the other organisation counts; accepted, the account is a member of both.
    expect(await flagOf(suite.admin, id)).toBe(false);
    const token = /token=([\w-]+)/.exec(await lastMailTo(TWO))![1];
    // The password the reset above mailed (the lengths of common/passwords.ts: 12 characters).
    const password = /new password is (.{12})\. /.exec(await lastMailTo(TWO, 'notice'))![1];
    const tess = await signIn(suite.t.app, TWO, password);
    const accepted = await call(suite.t.app, tess, { method: 'POST', url: '/api/identity/accept/info/cube/invites', payload: { token } });
    expect(accepted.statusCode).toBe(200);

    for (const who of [suite.admin, suite.superadmin, suite.other]) {
      expect(await flagOf(who, id)).toBe(false);
      expect(await answers(who, id)).toEqual(REFUSED);
    }
    // What is the organisation's own, the role there, stays within reach.
    const role = await call(suite.t.app, suite.admin, { method: 'PUT', url: `/api/main/accounts/${id}`, payload: { role: 'operator' } });
    expect(role.statusCode).toBe(200);
    expect(role.json().data.accountWide).toBe(false);
  });

  it('is false for an invitee and true for a member of the caller’s organisations only', async () => {
    const invited = await call(suite.t.app, suite.admin, {
      method: 'POST',
      url: '/api/identity/info/cube/invites',
      payload: { email: 'pending.one@example.com', role: 'user' },
    });
    const pendingId = (await suite.t.db.query<{ id: string }>('SELECT id FROM accounts WHERE email = $1', ['pending.one@example.com'])).rows[0].id;
    expect(invited.statusCode).toBe(200);
    expect(await flagOf(suite.admin, pendingId)).toBe(false);
    expect(await flagOf(suite.admin, 'acc-user')).toBe(true);
    // An admin never reaches a superadmin account; a superadmin of all its organisations does.
    expect(await flagOf(suite.admin, 'acc-superadmin')).toBe(false);
    expect(await flagOf(suite.superadmin, 'acc-admin')).toBe(true);
  });
});
