import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { countRows, DB_KINDS, DEMO, DEMO_PASSWORD, signedInSuite, TEST_CODE } from '../helper.js';

const SIGN_IN = '/api/identity/sso/signin/direct/cube/offline-access';
const REFRESH = '/api/identity/sso/signin/direct/cube/refresh?user-info=true';
const good = { username: DEMO.user, password: DEMO_PASSWORD, verificationCode: TEST_CODE, agreeTerms: true };
const wrongFor = (i: number) => ({ ...good, username: `nobody${i}@demo.example.com`, password: 'Wrong#123' });

describe.each(DB_KINDS)('forwarded headers on %s', (kind) => {
  describe('without TRUST_PROXY (the default)', () => {
    // The sign-in failures are read from the database's table: the database's path, whatever TEST_REDIS_URL says.
    const suite = signedInSuite({ kind, config: { redisUrl: undefined } });

    const post = (payload: object, headers: Record<string, string> = {}, remoteAddress?: string) =>
      suite.t.app.inject({ method: 'POST', url: SIGN_IN, payload, headers, ...(remoteAddress ? { remoteAddress } : {}) });

    it('25 failures with rotating X-Forwarded-For do not escape the per-address limit', async () => {
      const answers: number[] = [];
      for (let i = 0; i < 25; i++) answers.push((await post(wrongFor(i), { 'x-forwarded-for': `203.0.113.${i + 1}` })).statusCode);
      expect(answers.slice(0, 20)).toEqual(Array(20).fill(400));
      expect(answers.slice(20)).toEqual(Array(5).fill(429));
      // Every failure was counted against the connection's address, none against the claimed ones.
      expect(await countRows(suite.t.db, 'sign_in_failures', "ip = '127.0.0.1'")).toBe(20);
      expect(await countRows(suite.t.db, 'sign_in_failures', "ip LIKE '203.0.113.%'")).toBe(0);
    });

    it("spoofing someone's address in X-Forwarded-For does not pause them", async () => {
      for (let i = 0; i < 5; i++) await post({ ...good, password: 'Wrong#123' }, { 'x-forwarded-for': '198.51.100.77' }, '192.0.2.99');
      expect((await post(good, {}, '198.51.100.77')).statusCode).toBe(200);
    });

    it('the refresh cookie is not marked Secure for a plain-HTTP call, whatever X-Forwarded-Proto claims', async () => {
      for (const headers of [{}, { 'x-forwarded-proto': 'https' }] as Array<Record<string, string>>) {
        const res = await post(good, headers, '192.0.2.100');
        expect(res.statusCode).toBe(200);
        expect(res.cookies.find((c) => c.name === 'refresh_token')?.secure).toBeFalsy();
      }
    });
  });

  describe('with TRUST_PROXY=127.0.0.1', () => {
    const suite = signedInSuite({ kind, config: { trustProxy: ['127.0.0.1'], redisUrl: undefined } });

    const post = (payload: object, headers: Record<string, string> = {}, remoteAddress?: string) =>
      suite.t.app.inject({ method: 'POST', url: SIGN_IN, payload, headers, ...(remoteAddress ? { remoteAddress } : {}) });

    it("the proxy's X-Forwarded-For is the client address: it is limited, other clients of the proxy are not", async () => {
      for (let i = 0; i < 20; i++) expect((await post(wrongFor(i), { 'x-forwarded-for': '203.0.113.5' })).statusCode).toBe(400);
      expect(await countRows(suite.t.db, 'sign_in_failures', "ip = '203.0.113.5'")).toBe(20);
      expect((await post(good, { 'x-forwarded-for': '203.0.113.5' })).statusCode).toBe(429);
      expect((await post(good, { 'x-forwarded-for': '203.0.113.6' })).statusCode).toBe(200);
    });

    it('X-Forwarded-For from an address that is not the proxy is ignored', async () => {
      await post(wrongFor(99), { 'x-forwarded-for': '203.0.113.50' }, '192.0.2.44');
      expect(await countRows(suite.t.db, 'sign_in_failures', "ip = '192.0.2.44'")).toBe(1);
      expect(await countRows(suite.t.db, 'sign_in_failures', "ip = '203.0.113.50'")).toBe(0);
    });

    it('the refresh cookie is Secure when the proxy says the call came over HTTPS, on sign-in and on refresh', async () => {
      const https = await post(good, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' });
      expect(https.statusCode).toBe(200);
      const cookie = https.cookies.find((c) => c.name === 'refresh_token')!;
      expect(cookie.secure).toBe(true);
      const refreshed = await suite.t.app.inject({
        method: 'POST',
        url: REFRESH,
        headers: { cookie: `refresh_token=${cookie.value}`, 'x-forwarded-proto': 'https' },
      });
      expect(refreshed.cookies.find((c) => c.name === 'refresh_token')?.secure).toBe(true);
      const http = await post(good, { 'x-forwarded-proto': 'http', 'x-forwarded-for': '203.0.113.7' });
      expect(http.cookies.find((c) => c.name === 'refresh_token')?.secure).toBeFalsy();
      // Not from the proxy: the claim is not believed.
      const spoofed = await post(good, { 'x-forwarded-proto': 'https' }, '192.0.2.45');
      expect(spoofed.cookies.find((c) => c.name === 'refresh_token')?.secure).toBeFalsy();
    });
  });
});

describe('TRUST_PROXY configuration', () => {
  it('trusts no proxy by default, and the listed addresses and CIDRs when set', () => {
    expect(loadConfig({} as NodeJS.ProcessEnv).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '' } as NodeJS.ProcessEnv).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8' } as NodeJS.ProcessEnv).trustProxy).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
  });
});
