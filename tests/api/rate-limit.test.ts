import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { DEFAULT_RATE_LIMITS, loadConfig } from '../../server/config.js';
import { buildTestApp, countRows, DEMO, DEMO_PASSWORD, sessionHeaders, signedInSuite, TEST_CODE } from '../helper.js';
import { deleteKeys, PER_CALL_STORES, REDIS_URL, testPrefix } from '../redis.js';

const SIGN_IN = '/api/identity/sso/signin/direct/cube/offline-access';
const CAPTCHA = '/api/identity/captcha';
const LIMITS = { api: 5, signIn: 3, captcha: 3, passwordReset: 2, telemetry: 3 };

describe.each(PER_CALL_STORES)('rate limits in $name', ({ kind, redis }) => {
  const prefix = testPrefix();
  const suite = signedInSuite({ kind, config: { rateLimits: LIMITS, ...(redis ? { redisUrl: REDIS_URL, redisPrefix: prefix } : { redisUrl: undefined }) } });
  const peek = redis ? new Redis(REDIS_URL) : null;
  afterAll(async () => {
    peek?.disconnect();
    if (redis) await deleteKeys(REDIS_URL, prefix);
  });

  /** What the store holds: challenges made, a counter's hits, the counters whose key ends so; and ending a window. */
  const challengesMade = async () => (peek ? (await peek.keys(`${prefix}challenge:*`)).length : countRows(suite.t.db, 'challenges'));
  const hitsOf = async (key: string) =>
    peek
      ? Number(await peek.get(`${prefix}rate:${key}`))
      : Number((await suite.t.db.query<{ hits: number }>('SELECT hits FROM rate_limits WHERE key = $1', [key])).rows[0]?.hits ?? 0);
  const countersEndingWith = async (end: string) =>
    peek ? (await peek.keys(`${prefix}rate:*${end}`)).length : countRows(suite.t.db, 'rate_limits', 'key LIKE $1', [`%${end}`]);
  const endWindow = async (key: string) => {
    if (peek) await peek.del(`${prefix}rate:${key}`);
    else await suite.t.db.query("UPDATE rate_limits SET reset_at = now() - interval '1 second' WHERE key = $1", [key]);
  };

  const from = (
    remoteAddress: string,
    opts: { method?: 'GET' | 'POST'; url: string; payload?: object; headers?: Record<string, string> },
    app: FastifyInstance = suite.t.app,
  ) => app.inject({ method: opts.method ?? 'GET', url: opts.url, payload: opts.payload, headers: opts.headers, remoteAddress });

  /** Sign in from an address (the sign-in limit counts per address, so each test signs in from its own). */
  async function signInFrom(remoteAddress: string, email: string) {
    const res = await from(remoteAddress, {
      method: 'POST',
      url: SIGN_IN,
      payload: { username: email, password: DEMO_PASSWORD, verificationCode: TEST_CODE, agreeTerms: true },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    return sessionHeaders(body.data.user.token, body.data.customData.partner_code);
  }

  it('the challenge: past its limit an address gets 429 with Retry-After and a message in its language', async () => {
    for (let i = 0; i < LIMITS.captcha; i++) {
      const ok = await from('192.0.2.1', { url: CAPTCHA });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['x-ratelimit-remaining']).toBe(String(LIMITS.captcha - i - 1));
    }
    const messages: Record<string, RegExp> = {
      'en-US': /^Too many requests\. Try again in (\d+) seconds\.$/,
      'zh-CN': /^请求过于频繁，请 (\d+) 秒后再试。$/,
      'zh-TW': /^請求過於頻繁，請 (\d+) 秒後再試。$/,
      'es-ES': /^Demasiadas solicitudes\. Inténtelo de nuevo en (\d+) segundos\.$/,
    };
    const challenges = await challengesMade();
    for (const [language, message] of Object.entries(messages)) {
      const refused = await from('192.0.2.1', { url: CAPTCHA, headers: { language } });
      expect(refused.statusCode).toBe(429);
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      const { status, data } = refused.json();
      expect(status).toMatchObject({ code: 'CB-00-0429', success: false });
      expect(status.message).toMatch(message);
      expect(Number(message.exec(status.message)![1])).toBe(retryAfter);
      expect(data).toBeNull();
    }
    // Refused before the handler: no challenge was made.
    expect(await challengesMade()).toBe(challenges);
    // Another address has its own count.
    expect((await from('192.0.2.2', { url: CAPTCHA })).statusCode).toBe(200);
  });

  it('two instances on the same database share one count', async () => {
    const second = await buildApp({ config: suite.t.config, db: suite.t.db, logger: false });
    await second.ready();
    try {
      expect((await from('192.0.2.10', { url: CAPTCHA })).statusCode).toBe(200);
      expect((await from('192.0.2.10', { url: CAPTCHA }, second)).statusCode).toBe(200);
      expect((await from('192.0.2.10', { url: CAPTCHA })).statusCode).toBe(200);
      const refused = await from('192.0.2.10', { url: CAPTCHA }, second);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBeDefined();
      expect(await hitsOf('captcha:address:192.0.2.10')).toBe(4);
    } finally {
      await second.close();
    }
  });

  it('a new window starts when the last one has passed', async () => {
    for (let i = 0; i < LIMITS.captcha; i++) await from('192.0.2.20', { url: CAPTCHA });
    expect((await from('192.0.2.20', { url: CAPTCHA })).statusCode).toBe(429);
    await endWindow('captcha:address:192.0.2.20');
    expect((await from('192.0.2.20', { url: CAPTCHA })).statusCode).toBe(200);
  });

  it('sign-in: past its limit even the right password is refused from that address', async () => {
    const wrong = { username: DEMO.user, password: DEMO_PASSWORD, verificationCode: '000000', agreeTerms: true };
    for (let i = 0; i < LIMITS.signIn; i++)
      expect((await from('192.0.2.30', { method: 'POST', url: SIGN_IN, payload: wrong })).json().status.code).toBe('CB-01-0002');
    const refused = await from('192.0.2.30', { method: 'POST', url: SIGN_IN, payload: { ...wrong, verificationCode: TEST_CODE } });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    await signInFrom('192.0.2.31', DEMO.user);
  });

  it('forgot-password: sending the code and resetting share one limit per address', async () => {
    const send = {
      method: 'POST' as const,
      url: '/api/identity/sso/signin/forget/cube/password/send',
      payload: { username: DEMO.user, verificationCode: TEST_CODE },
    };
    const reset = {
      method: 'POST' as const,
      url: '/api/identity/sso/signin/forget/cube/password/reset',
      payload: { username: DEMO.user, code: '000000', password: 'New#Pass1' },
    };
    expect((await from('192.0.2.40', send)).statusCode).toBe(200);
    expect((await from('192.0.2.40', reset)).statusCode).toBe(400);
    const refused = await from('192.0.2.40', send);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await from('192.0.2.40', reset)).statusCode).toBe(429);
  });

  it('telemetry: page views and error reports are limited per client address', async () => {
    for (let i = 0; i < LIMITS.telemetry; i++)
      expect((await from('192.0.2.50', { method: 'POST', url: '/api/public/errors', payload: { message: `m${i}` } })).statusCode).toBe(200);
    expect((await from('192.0.2.50', { method: 'POST', url: '/api/public/errors', payload: { message: 'one more' } })).statusCode).toBe(429);
    expect((await from('192.0.2.50', { method: 'POST', url: '/api/public/analytics/pageview', payload: { path: '/x' } })).statusCode).toBe(429);
    expect(await countRows(suite.t.db, 'error_reports', "message = 'one more'")).toBe(0);
  });

  it('the API as a whole: per account when signed in, from any address', async () => {
    const user = await signInFrom('192.0.2.60', DEMO.user);
    const url = '/api/identity/info/cube/users/acc-user/permissions';
    for (let i = 0; i < LIMITS.api; i++) expect((await from('192.0.2.60', { url, headers: user })).statusCode).toBe(200);
    // The same account from another address is over its limit too ...
    const refused = await from('192.0.2.61', { url, headers: user });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    // ... while another account at the first address has its own.
    const operator = await signInFrom('192.0.2.62', DEMO.operator);
    expect((await from('192.0.2.60', { url: '/api/identity/info/cube/users/acc-operator/permissions', headers: operator })).statusCode).toBe(200);
  });

  it('the API as a whole: per client address without a token, and a forged token does not buy a new count', async () => {
    const url = '/api/main/brand/logo?url=localhost';
    for (let i = 0; i < LIMITS.api; i++) expect((await from('192.0.2.70', { url })).statusCode).toBe(200);
    expect((await from('192.0.2.70', { url })).statusCode).toBe(429);
    expect((await from('192.0.2.70', { url, headers: { authorization: 'Bearer forged.token.here' } })).statusCode).toBe(429);
  });

  it('the health check and unknown paths are not counted', async () => {
    for (let i = 0; i < LIMITS.api + 2; i++) expect((await from('192.0.2.80', { url: '/api/health' })).statusCode).toBe(200);
    expect(await countersEndingWith('192.0.2.80')).toBe(0);
  });

  it.runIf(redis)('in Redis: two instances on two databases share one count, and no call writes a counter to the database', async () => {
    // Another instance with a database of its own: only Redis is shared.
    const other = await buildTestApp({ seed: false, config: { rateLimits: LIMITS, redisUrl: REDIS_URL, redisPrefix: prefix } });
    try {
      expect((await from('192.0.2.90', { url: CAPTCHA })).statusCode).toBe(200);
      expect((await from('192.0.2.90', { url: CAPTCHA }, other.app)).statusCode).toBe(200);
      expect((await from('192.0.2.90', { url: CAPTCHA })).statusCode).toBe(200);
      expect((await from('192.0.2.90', { url: CAPTCHA }, other.app)).statusCode).toBe(429);
      expect(await hitsOf('captcha:address:192.0.2.90')).toBe(4);
      for (const db of [suite.t.db, other.db]) expect(await countRows(db, 'rate_limits')).toBe(0);
    } finally {
      await other.close();
    }
  });
});

describe('rate-limit configuration', () => {
  it('reads the limits per minute from the environment, with defaults', () => {
    expect(loadConfig({} as NodeJS.ProcessEnv).rateLimits).toEqual(DEFAULT_RATE_LIMITS);
    const env = {
      RATE_LIMIT_PER_MINUTE: '1200',
      RATE_LIMIT_SIGN_IN_PER_MINUTE: '5',
      RATE_LIMIT_CAPTCHA_PER_MINUTE: '6',
      RATE_LIMIT_PASSWORD_RESET_PER_MINUTE: '7',
      RATE_LIMIT_TELEMETRY_PER_MINUTE: '8',
    };
    expect(loadConfig(env as NodeJS.ProcessEnv).rateLimits).toEqual({ api: 1200, signIn: 5, captcha: 6, passwordReset: 7, telemetry: 8 });
  });

  it('refuses a limit that is not a whole number of at least 1, naming the variable', () => {
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: 'lots' } as NodeJS.ProcessEnv)).toThrow(/RATE_LIMIT_PER_MINUTE/);
    expect(() => loadConfig({ RATE_LIMIT_SIGN_IN_PER_MINUTE: '0' } as NodeJS.ProcessEnv)).toThrow(/RATE_LIMIT_SIGN_IN_PER_MINUTE/);
  });
});
