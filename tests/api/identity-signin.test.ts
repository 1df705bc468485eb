import { describe, expect, it } from 'vitest';
import { call, countRows, DB_KINDS, DEMO, DEMO_PASSWORD, HAMMER_RATE_LIMITS, signedInSuite, signIn, TEST_CODE } from '../helper.js';

const SIGN_IN = '/api/identity/sso/signin/direct/cube/offline-access';
const REFRESH = '/api/identity/sso/signin/direct/cube/refresh?user-info=true';
const SIGN_OUT = '/api/identity/sso/signin/signout/cube';
const good = { username: DEMO.operator, password: DEMO_PASSWORD, verificationCode: TEST_CODE, agreeTerms: true };

describe.each(DB_KINDS)('sign-in on %s', (kind) => {
  // This file signs in far more often than a person could; the per-minute request limits are proven in rate-limit.test.ts.
  const suite = signedInSuite({ kind, config: { rateLimits: HAMMER_RATE_LIMITS } });

  const post = (payload: unknown, headers: Record<string, string> = {}, remoteAddress?: string) =>
    suite.t.app.inject({ method: 'POST', url: SIGN_IN, payload: payload as object, headers, ...(remoteAddress ? { remoteAddress } : {}) });

  it('signs each demo account in with the session answer of SPEC.md section 7', async () => {
    for (const [role, email] of Object.entries(DEMO)) {
      const res = await post({ ...good, username: email });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.status).toMatchObject({ code: 'CB-00-0000', success: true });
      expect(body.data.user).toMatchObject({ email, id: expect.any(String), token: expect.any(String), logins_count: expect.any(Number) });
      expect(body.data.customData.partner_code).toBe('DEMO');
      expect(body.data.roles.find((r: { code: string }) => r.code === 'DEMO').role).toBe(role);
      expect(Array.isArray(body.data.permissions)).toBe(true);
      const cookie = res.cookies.find((c) => c.name === 'refresh_token');
      expect(cookie?.httpOnly).toBe(true);
      expect(cookie?.sameSite).toBe('Strict');
      expect(JSON.stringify(body)).not.toContain('scrypt$');
    }
  });

  it('counts sign-ins', async () => {
    const before = (await suite.t.db.query<{ n: number }>('SELECT logins_count AS n FROM accounts WHERE email = $1', [DEMO.user])).rows[0].n;
    await signIn(suite.t.app, DEMO.user);
    const after = (await suite.t.db.query<{ n: number }>('SELECT logins_count AS n FROM accounts WHERE email = $1', [DEMO.user])).rows[0].n;
    expect(after).toBe(before + 1);
  });

  it('takes the e-mail in any case and with spaces around it', async () => {
    expect((await post({ ...good, username: '  OPERATOR@Demo.Example.com ' })).statusCode).toBe(400);
    expect((await post({ ...good, username: 'OPERATOR@Demo.Example.com' })).statusCode).toBe(200);
  });

  describe('refuses bad input and creates no session', () => {
    const cases: Array<[string, unknown, number, string, string]> = [
      ['a missing username', { password: 'x', verificationCode: TEST_CODE, agreeTerms: true }, 400, 'CB-00-0422', 'E-mail is required'],
      ['a missing password', { username: DEMO.user, verificationCode: TEST_CODE, agreeTerms: true }, 400, 'CB-00-0422', 'Password is required'],
      ['a missing verification code', { username: DEMO.user, password: 'x', agreeTerms: true }, 400, 'CB-00-0422', 'Verification code is required'],
      ['a missing terms agreement', { username: DEMO.user, password: 'x', verificationCode: TEST_CODE }, 400, 'CB-00-0422', 'Terms agreement is required'],
      ['terms not agreed', { ...good, agreeTerms: false }, 400, 'CB-01-0003', 'Please agree to the terms of use and the privacy policy.'],
      ['a numeric password', { ...good, password: 123456 }, 400, 'CB-00-0422', 'Password must be text'],
      ['agreeTerms as an object', { ...good, agreeTerms: { yes: true } }, 400, 'CB-00-0422', 'Terms agreement must be yes or no'],
      ['a malformed e-mail', { ...good, username: 'not-an-email' }, 400, 'CB-00-0422', 'E-mail has the wrong format'],
      ['an e-mail of 255 characters', { ...good, username: `${'a'.repeat(243)}@example.com` }, 400, 'CB-00-0422', 'E-mail must be at most 254 characters long'],
      ['a password of 129 characters', { ...good, password: 'a'.repeat(129) }, 400, 'CB-00-0422', 'Password must be at most 128 characters long'],
      ['an unknown field', { ...good, admin: true }, 400, 'CB-00-0422', 'admin is not an accepted field'],
      ['SQL with spaces in the e-mail', { ...good, username: "a';DROP TABLE accounts;--@x.com" }, 400, 'CB-00-0422', 'E-mail has the wrong format'],
      ['SQL in the e-mail', { ...good, username: "a';DROP--@x.com" }, 400, 'CB-01-0001', 'Wrong e-mail or password.'],
      ['SQL in the password', { ...good, password: "' OR '1'='1" }, 400, 'CB-01-0001', 'Wrong e-mail or password.'],
      ['a wrong verification code', { ...good, verificationCode: '000000' }, 400, 'CB-01-0002', 'The verification code is wrong or has expired.'],
      ['an unknown account', { ...good, username: 'nobody@demo.example.com' }, 400, 'CB-01-0001', 'Wrong e-mail or password.'],
    ];
    it.each(cases)('%s', async (_name, payload, status, code, message) => {
      const sessions = await countRows(suite.t.db, 'sessions');
      const res = await post(payload);
      expect(res.statusCode).toBe(status);
      expect(res.json().status).toMatchObject({ success: false, code, message });
      expect(await countRows(suite.t.db, 'sessions')).toBe(sessions);
      expect(await countRows(suite.t.db, 'accounts')).toBeGreaterThan(0);
    });
  });

  it('answers in the language header', async () => {
    const res = await post({ ...good, agreeTerms: false }, { language: 'zh-CN' });
    expect(res.json().status.message).toBe('请同意使用条款和隐私政策。');
  });

  it('refuses a disabled account', async () => {
    await suite.t.db.query("UPDATE accounts SET status = 'disabled' WHERE email = $1", [DEMO.user]);
    const res = await post({ ...good, username: DEMO.user });
    expect(res.json().status.code).toBe('CB-01-0005');
    await suite.t.db.query("UPDATE accounts SET status = 'active' WHERE email = $1", [DEMO.user]);
  });

  describe('tokens', () => {
    it('an expired access token answers 400 "token unauthorised"', async () => {
      const s = await signIn(suite.t.app, DEMO.operator);
      const sid = (await suite.t.db.query<{ id: string }>('SELECT id FROM sessions WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1', [s.accountId]))
        .rows[0].id;
      const expired = await suite.t.app.tokens.sign({ sub: s.accountId, sid }, -10);
      const res = await suite.t.app.inject({
        method: 'GET',
        url: `/api/identity/info/cube/users/${s.accountId}/permissions`,
        headers: { authorization: `Bearer ${expired}` },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().status.code).toBe('CB-00-0401');
    });

    it('a tampered token answers 401', async () => {
      const s = await signIn(suite.t.app, DEMO.operator);
      const [h, p, sig] = s.token.split('.');
      const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
      payload.sub = 'acc-superadmin';
      const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`;
      const res = await suite.t.app.inject({
        method: 'GET',
        url: '/api/identity/info/cube/users/acc-superadmin/permissions',
        headers: { authorization: `Bearer ${forged}` },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().status.code).toBe('CB-00-0410');
    });

    describe('a forged, tampered or garbled token says "Invalid token", never "Token expired"', () => {
      const INVALID = {
        'en-US': 'Invalid token, please sign in again.',
        'zh-CN': '令牌无效，请重新登录。',
        'zh-TW': '權杖無效，請重新登入。',
        'es-ES': 'Token no válido, inicie sesión de nuevo.',
      };
      const forgeries: Array<[string, (token: string, sid: string, accountId: string) => Promise<string>]> = [
        ['a changed signature', async (token) => `${token.slice(0, -4)}${token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`],
        [
          'a token signed with another secret',
          async (_token, sid, accountId) => {
            const { SignJWT } = await import('jose');
            return new SignJWT({ sid })
              .setProtectedHeader({ alg: 'HS256' })
              .setSubject(accountId)
              .setIssuedAt()
              .setExpirationTime('10m')
              .setIssuer('iot-console')
              .sign(new TextEncoder().encode('not-the-server-secret-at-all-0123456789'));
          },
        ],
        [
          'an expired token with a changed signature',
          async (_token, sid, accountId) => `${(await suite.t.app.tokens.sign({ sub: accountId, sid }, -10)).slice(0, -4)}AAAA`,
        ],
        ['garbage', async () => 'garbage'],
        ['three dots of base64', async () => 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'],
      ];
      it.each(forgeries)('%s answers 401 "Invalid token" in each language', async (_name, forge) => {
        const s = await signIn(suite.t.app, DEMO.operator);
        const sid = (await suite.t.db.query<{ id: string }>('SELECT id FROM sessions WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1', [s.accountId]))
          .rows[0].id;
        const bad = await forge(s.token, sid, s.accountId);
        for (const [language, message] of Object.entries(INVALID)) {
          const res = await suite.t.app.inject({
            method: 'GET',
            url: `/api/identity/info/cube/users/${s.accountId}/permissions`,
            headers: { authorization: `Bearer ${bad}`, language },
          });
          expect(res.statusCode).toBe(401);
          expect(res.json().status).toEqual({ code: 'CB-00-0410', success: false, message });
        }
      });
    });

    it('no token answers 401 on a signed-in route', async () => {
      const res = await suite.t.app.inject({ method: 'GET', url: '/api/identity/info/cube/users/x/permissions' });
      expect(res.statusCode).toBe(401);
    });

    it('the session fetch works from the refresh cookie alone and rotates it', async () => {
      const s = await signIn(suite.t.app, DEMO.user);
      const res = await suite.t.app.inject({ method: 'POST', url: REFRESH, headers: { cookie: s.refreshCookie } });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.user.email).toBe(DEMO.user);
      const next = res.cookies.find((c) => c.name === 'refresh_token');
      expect(next?.value).toBeTruthy();
      expect(`refresh_token=${next?.value}`).not.toBe(s.refreshCookie);
      const again = await suite.t.app.inject({ method: 'POST', url: REFRESH, headers: { cookie: `refresh_token=${next?.value}` } });
      expect(again.statusCode).toBe(200);
    });

    it('a replayed refresh token revokes its whole family', async () => {
      const s = await signIn(suite.t.app, DEMO.user);
      const first = await suite.t.app.inject({ method: 'POST', url: REFRESH, headers: { cookie: s.refreshCookie } });
      const newToken = first.json().data.user.token;
      // Presented again a minute later: a replay, not a race between two tabs.
      await suite.t.db.query("UPDATE refresh_tokens SET used_at = now() - interval '1 minute' WHERE used_at IS NOT NULL AND account_id = $1", [s.accountId]);
      const replay = await suite.t.app.inject({ method: 'POST', url: REFRESH, headers: { cookie: s.refreshCookie } });
      expect(replay.statusCode).toBe(401);
      expect(replay.json().status.code).toBe('CB-01-0016');
      // The rotated token of the same family is dead too, and so are its access tokens.
      const rotated = first.cookies.find((c) => c.name === 'refresh_token')!.value;
      expect((await suite.t.app.inject({ method: 'POST', url: REFRESH, headers: { cookie: `refresh_token=${rotated}` } })).statusCode).toBe(401);
      const use = await suite.t.app.inject({
        method: 'GET',
        url: `/api/identity/info/cube/users/${s.accountId}/permissions`,
        headers: { authorization: `Bearer ${newToken}` },
      });
      expect(use.statusCode).toBe(401);
    });

    it('two tabs refreshing with the same token at once both get a token of the same live session', async () => {
      const s = await signIn(suite.t.app, DEMO.user);
      const [a, b] = await Promise.all([
        suite.t.app.inject({ method: 'POST', url: REFRESH, headers: { cookie: s.refreshCookie } }),
        suite.t.app.inject({ method: 'POST', url: REFRESH, headers: { cookie: s.refreshCookie } }),
      ]);
      expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
      const use = await suite.t.app.inject({
        method: 'GET',
        url: `/api/identity/info/cube/users/${s.accountId}/permissions`,
        headers: { authorization: `Bearer ${b.json().data.user.token}` },
      });
      expect(use.statusCode).toBe(200);
    });

    it('refresh without or with a garbage cookie answers 401', async () => {
      expect((await suite.t.app.inject({ method: 'POST', url: REFRESH })).statusCode).toBe(401);
      expect((await suite.t.app.inject({ method: 'POST', url: REFRESH, headers: { cookie: "refresh_token=' OR 1=1 --" } })).statusCode).toBe(401);
    });

    it('refresh stores tokens hashed', async () => {
      const s = await signIn(suite.t.app, DEMO.user);
      const raw = s.refreshCookie.split('=')[1];
      expect(await countRows(suite.t.db, 'refresh_tokens', 'token_hash = $1', [raw])).toBe(0);
    });
  });

  describe('sign-out', () => {
    it('revokes the session: its access and refresh tokens stop working', async () => {
      const s = await signIn(suite.t.app, DEMO.user);
      const res = await suite.t.app.inject({ method: 'POST', url: SIGN_OUT, headers: { authorization: `Bearer ${s.token}`, cookie: s.refreshCookie } });
      expect(res.statusCode).toBe(200);
      expect((await call(suite.t.app, s, { method: 'GET', url: `/api/identity/info/cube/users/${s.accountId}/permissions` })).statusCode).toBe(401);
      expect((await suite.t.app.inject({ method: 'POST', url: REFRESH, headers: { cookie: s.refreshCookie } })).statusCode).toBe(401);
    });

    it.each([
      ['no token', {}],
      ['a garbage token', { authorization: 'Bearer garbage' }],
      ['a garbage cookie', { cookie: 'refresh_token=nope' }],
    ])('answers 200 with %s', async (_n, headers) => {
      const res = await suite.t.app.inject({ method: 'POST', url: SIGN_OUT, headers });
      expect(res.statusCode).toBe(200);
    });

    it('answers 200 with an expired token and still ends the session', async () => {
      const s = await signIn(suite.t.app, DEMO.user);
      const sid = (await suite.t.db.query<{ id: string }>('SELECT id FROM sessions WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1', [s.accountId]))
        .rows[0].id;
      const expired = await suite.t.app.tokens.sign({ sub: s.accountId, sid }, -10);
      expect((await suite.t.app.inject({ method: 'POST', url: SIGN_OUT, headers: { authorization: `Bearer ${expired}` } })).statusCode).toBe(200);
      expect(await countRows(suite.t.db, 'sessions', 'id = $1 AND revoked_at IS NOT NULL', [sid])).toBe(1);
    });
  });
});
