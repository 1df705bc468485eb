import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../../server/config.js';
import { call, countRows, DB_KINDS, DEMO, DEMO_PASSWORD, signedInSuite, signIn, TEST_CODE, type TestApp } from '../helper.js';

const CHANGE = '/api/identity/crud/admin/cube/users/user/cube/password/reset';
const SEND = '/api/identity/sso/signin/forget/cube/password/send';
const RESET = '/api/identity/sso/signin/forget/cube/password/reset';
const RULE = 'Password must be 6-12 digits and include letter, number and symbol!';

const hashOf = async (t: TestApp, email: string) =>
  (await t.db.query<{ h: string }>('SELECT password_hash AS h FROM accounts WHERE email = $1', [email])).rows[0].h;

describe.each(DB_KINDS)('passwords on %s', (kind) => {
  // The forgot-password tests call it more often in a minute than the default limit allows one address.
  const suite = signedInSuite({ kind, config: { rateLimits: { ...DEFAULT_RATE_LIMITS, passwordReset: 1000 } } });

  describe('change password', () => {
    it.each([
      ['5 characters', 'Ab#12'],
      ['13 characters', 'Abcdef#123456'],
      ['no letter', '123456#'],
      ['no digit', 'Abcdef#'],
      ['no symbol', 'Abc1234'],
    ])('refuses a new password with %s and keeps the old one', async (_n, password) => {
      const s = await signIn(suite.t.app, DEMO.user);
      const before = await hashOf(suite.t, DEMO.user);
      const res = await call(suite.t.app, s, { method: 'POST', url: CHANGE, payload: { oldPassword: DEMO_PASSWORD, password } });
      expect(res.statusCode).toBe(400);
      expect(res.json().status.message).toBe(RULE);
      expect(await hashOf(suite.t, DEMO.user)).toBe(before);
    });

    it('refuses a wrong old password', async () => {
      const s = await signIn(suite.t.app, DEMO.user);
      const before = await hashOf(suite.t, DEMO.user);
      const res = await call(suite.t.app, s, { method: 'POST', url: CHANGE, payload: { oldPassword: 'Wrong#123', password: 'Good#1234' } });
      expect(res.json().status).toMatchObject({ code: 'CB-01-0006', message: 'The old password is wrong.' });
      expect(await hashOf(suite.t, DEMO.user)).toBe(before);
    });

    it('refuses missing fields and unknown fields', async () => {
      const s = await signIn(suite.t.app, DEMO.user);
      expect((await call(suite.t.app, s, { method: 'POST', url: CHANGE, payload: { password: 'Good#1234' } })).json().status.message).toBe(
        'Old password is required',
      );
      expect(
        (
          await call(suite.t.app, s, { method: 'POST', url: CHANGE, payload: { oldPassword: DEMO_PASSWORD, password: 'Good#1234', userId: 'acc-admin' } })
        ).json().status.message,
      ).toBe('userId is not an accepted field');
    });

    it('needs a signed-in caller', async () => {
      const res = await suite.t.app.inject({ method: 'POST', url: CHANGE, payload: { oldPassword: DEMO_PASSWORD, password: 'Good#1234' } });
      expect(res.statusCode).toBe(401);
    });

    it('changes it with CB-00-0000, ends every session, and the new password signs in (6 and 12 characters)', async () => {
      for (const next of ['Ab#123', 'Abcdef#12345']) {
        const current = next === 'Ab#123' ? DEMO_PASSWORD : 'Ab#123';
        const s = await signIn(suite.t.app, DEMO.operator, current);
        const res = await call(suite.t.app, s, { method: 'POST', url: CHANGE, payload: { oldPassword: current, password: next } });
        expect(res.statusCode).toBe(200);
        expect(res.json().status.code).toBe('CB-00-0000');
        expect((await call(suite.t.app, s, { method: 'GET', url: `/api/identity/info/cube/users/${s.accountId}/permissions` })).statusCode).toBe(401);
        await signIn(suite.t.app, DEMO.operator, next);
      }
      expect(await countRows(suite.t.db, 'audit_log', "action = 'changePassword'")).toBe(2);
      expect(JSON.stringify((await suite.t.db.query("SELECT after FROM audit_log WHERE action = 'changePassword'")).rows)).not.toContain('Ab#123');
    });
  });

  describe('forgot password', () => {
    const latestCode = async (email: string) => {
      const r = await suite.t.db.query<{ body: string }>('SELECT body FROM outbox WHERE to_address = $1 ORDER BY id DESC LIMIT 1', [email]);
      return /(\d{6})/.exec(r.rows[0].body)![1];
    };

    it('mails a code that resets the password once', async () => {
      const mails = await countRows(suite.t.db, 'outbox');
      const send = await suite.t.app.inject({ method: 'POST', url: SEND, payload: { username: DEMO.admin, verificationCode: TEST_CODE } });
      expect(send.statusCode).toBe(200);
      expect(await countRows(suite.t.db, 'outbox')).toBe(mails + 1);
      const code = await latestCode(DEMO.admin);
      const reset = await suite.t.app.inject({ method: 'POST', url: RESET, payload: { username: DEMO.admin, code, password: 'Reset#2026' } });
      expect(reset.statusCode).toBe(200);
      await signIn(suite.t.app, DEMO.admin, 'Reset#2026');
      const again = await suite.t.app.inject({ method: 'POST', url: RESET, payload: { username: DEMO.admin, code, password: 'Other#2026' } });
      expect(again.json().status.code).toBe('CB-01-0007');
    });

    it('answers alike for an unknown e-mail and sends nothing', async () => {
      const mails = await countRows(suite.t.db, 'outbox');
      const res = await suite.t.app.inject({ method: 'POST', url: SEND, payload: { username: 'ghost@demo.example.com', verificationCode: TEST_CODE } });
      expect(res.statusCode).toBe(200);
      expect(await countRows(suite.t.db, 'outbox')).toBe(mails);
    });

    it('refuses a wrong verification code and sends nothing', async () => {
      const mails = await countRows(suite.t.db, 'outbox');
      const res = await suite.t.app.inject({ method: 'POST', url: SEND, payload: { username: DEMO.user, verificationCode: 'nope' } });
      expect(res.json().status.code).toBe('CB-01-0002');
      expect(await countRows(suite.t.db, 'outbox')).toBe(mails);
    });

    it('refuses a wrong code, a weak password, and gives up after 5 wrong codes', async () => {
      await suite.t.app.inject({ method: 'POST', url: SEND, payload: { username: DEMO.user, verificationCode: TEST_CODE } });
      const code = await latestCode(DEMO.user);
      const before = await hashOf(suite.t, DEMO.user);
      const weak = await suite.t.app.inject({ method: 'POST', url: RESET, payload: { username: DEMO.user, code, password: 'weak' } });
      expect(weak.json().status.message).toBe(RULE);
      const wrong = code === '000000' ? '111111' : '000000';
      for (let i = 0; i < 5; i++) {
        expect(
          (await suite.t.app.inject({ method: 'POST', url: RESET, payload: { username: DEMO.user, code: wrong, password: 'Reset#2026' } })).json().status.code,
        ).toBe('CB-01-0007');
      }
      const right = await suite.t.app.inject({ method: 'POST', url: RESET, payload: { username: DEMO.user, code, password: 'Reset#2026' } });
      expect(right.json().status.code).toBe('CB-01-0007');
      expect(await hashOf(suite.t, DEMO.user)).toBe(before);
    });
  });
});
