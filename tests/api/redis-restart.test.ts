/**
 * Per-call state in a Redis that stops and starts again under load (docs/decisions.md, "Per-call state in Redis"). The
 * test runs its own redis-server on a free port, so stopping it touches nobody else's. While Redis is away every API call
 * is still answered, at once: the rate limits let calls through (they fail open), sign-in and the picture challenge
 * answer 503 with Retry-After and a message in the caller's language (the throttle fails closed). When Redis is back,
 * the same instance counts and signs in again without a restart.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO, DEMO_PASSWORD, signedInSuite, TEST_CODE, type BuildOptions } from '../helper.js';
import { childServer, freePort, sleep, until } from '../wait.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const hasRedisServer = fs.existsSync('/usr/bin/redis-server') || fs.existsSync('/usr/local/bin/redis-server');
if (!hasRedisServer) console.warn('tests/api/redis-restart.test.ts skipped: no redis-server binary on this machine');

const SIGN_IN = '/api/identity/sso/signin/direct/cube/offline-access';
const LIMITS = { api: 100_000, signIn: 10_000, captcha: 10_000, passwordReset: 10_000, telemetry: 3 };

/** A Redis server on `port` that keeps nothing on disk, killed outright when stopped. */
const redisServer = (port: number) =>
  childServer('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], port, 'SIGKILL');

describe.skipIf(!hasRedisServer)('per-call state across a Redis restart under load', () => {
  let redis: ReturnType<typeof redisServer>;
  const opts: BuildOptions = { config: { rateLimits: LIMITS, redisPrefix: 'restart:' } };
  // Redis first, so the app (built by the suite's beforeAll, registered after this one) connects to it.
  beforeAll(async () => {
    const port = await freePort();
    redis = redisServer(port);
    await redis.start();
    opts.config!.redisUrl = `redis://127.0.0.1:${port}`;
  });
  const suite = signedInSuite(opts, { operator: DEMO.operator });
  afterAll(async () => redis?.stop());

  const signIn = (remoteAddress: string, language = 'en-US') =>
    suite.t.app.inject({
      method: 'POST',
      url: SIGN_IN,
      remoteAddress,
      headers: { language },
      payload: { username: DEMO.user, password: DEMO_PASSWORD, verificationCode: TEST_CODE, agreeTerms: true },
    });
  const pageView = (remoteAddress: string) =>
    suite.t.app.inject({ method: 'POST', url: '/api/public/analytics/pageview', remoteAddress, payload: { path: '/x' } });
  /** The page views one address may make before 429, counted up to one past the limit. */
  const allowed = async (remoteAddress: string) => {
    for (let n = 0; n <= LIMITS.telemetry; n++) if ((await pageView(remoteAddress)).statusCode === 429) return n;
    return LIMITS.telemetry + 1;
  };

  /** Ten callers calling the SIM list side by side until `stop`, each answer's status and time kept. */
  function load() {
    const answers: { status: number; ms: number }[] = [];
    let running = true;
    const callers = Array.from({ length: 10 }, async () => {
      while (running) {
        const started = Date.now();
        const res = await suite.t.app.inject({
          method: 'POST',
          url: '/api/main/sim/list/es',
          payload: { pageSize: 10 },
          headers: suite.operator.headers,
          remoteAddress: '192.0.2.200',
        });
        answers.push({ status: res.statusCode, ms: Date.now() - started });
        await sleep(10);
      }
    });
    return {
      answers,
      async stop() {
        running = false;
        await Promise.all(callers);
      },
    };
  }

  it('answers every call while Redis is away, refuses sign-in for a moment with 503, and counts again once it is back', async () => {
    // Counting in Redis: an address has its three page views a minute, then 429.
    expect(await allowed('192.0.2.210')).toBe(LIMITS.telemetry);

    const busy = load();
    try {
      await underLoad(busy);
    } finally {
      await busy.stop();
    }
    // Every call of the load was answered, none with an error, none held for longer than a command's timeout ...
    expect(busy.answers.length).toBeGreaterThan(50);
    expect(busy.answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(Math.max(...busy.answers.map((a) => a.ms))).toBeLessThan(5000);
    // ... and calls are counted again: the restarted Redis kept nothing, so that address's count starts over.
    expect(await allowed('192.0.2.210')).toBe(LIMITS.telemetry);
  });

  async function underLoad(busy: ReturnType<typeof load>) {
    await sleep(300);
    await redis.stop();
    await sleep(1500);
    // Away: a sign-in is refused for now, in the caller's language, with when to try again.
    const refused = await signIn('192.0.2.201', 'es-ES');
    expect(refused.statusCode).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().status).toMatchObject({
      code: 'CB-00-0503',
      success: false,
      message: expect.stringMatching(/^El inicio de sesión no está disponible por un momento\. Inténtelo de nuevo en \d+ segundos\.$/),
    });
    const captcha = await suite.t.app.inject({ method: 'GET', url: '/api/identity/captcha', remoteAddress: '192.0.2.201' });
    expect(captcha.statusCode).toBe(503);
    // The limits let calls through meanwhile: the address that had used its page views makes more.
    expect(await allowed('192.0.2.210')).toBe(LIMITS.telemetry + 1);
    const during = busy.answers.length;
    await sleep(1000);
    // The load goes on being answered while Redis is away.
    expect(busy.answers.length).toBeGreaterThan(during);

    await redis.start();
    // Back: sign-in works again without restarting the instance ...
    await until('sign-in to work again', async () => ((await signIn('192.0.2.202')).statusCode === 200 ? true : undefined), 20_000, 200);
  }
});
