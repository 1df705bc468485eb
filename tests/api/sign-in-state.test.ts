/**
 * The picture challenges and the throttling of failed sign-ins, on each store they can live in: the database (PGlite,
 * PostgreSQL) and Redis (REDIS_URL). The same calls give the same answers on each; the tests read and seed the store
 * through its own interface (app.challenges, app.signInFailures), never its tables or keys.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../server/db/ids.js';
import { pairPauseSeconds } from '../../server/identity/sign-in-throttle.js';
import { DEMO, DEMO_PASSWORD, HAMMER_RATE_LIMITS, signedInSuite, TEST_CODE } from '../helper.js';
import { deleteKeys, PER_CALL_STORES, REDIS_URL, testPrefix } from '../redis.js';

const SIGN_IN = '/api/identity/sso/signin/direct/cube/offline-access';
const good = { username: DEMO.operator, password: DEMO_PASSWORD, verificationCode: TEST_CODE, agreeTerms: true };

describe.each(PER_CALL_STORES)('sign-in state in $name', ({ kind, redis }) => {
  const prefix = testPrefix();
  // This file signs in far more often than a person could; the per-minute request limits are proven in rate-limit.test.ts.
  const suite = signedInSuite({
    kind,
    config: { rateLimits: HAMMER_RATE_LIMITS, ...(redis ? { redisUrl: REDIS_URL, redisPrefix: prefix } : { redisUrl: undefined }) },
  });
  afterAll(async () => {
    if (redis) await deleteKeys(REDIS_URL, prefix);
  });

  const post = (payload: unknown, headers: Record<string, string> = {}, remoteAddress?: string) =>
    suite.t.app.inject({ method: 'POST', url: SIGN_IN, payload: payload as object, headers, ...(remoteAddress ? { remoteAddress } : {}) });
  const challenge = async () => (await suite.t.app.inject({ method: 'GET', url: '/api/identity/captcha' })).json().data as { challengeId: string; svg: string };
  const failures = () => suite.t.app.signInFailures;

  describe('picture challenges', () => {
    it('checks a real image challenge once: a wrong answer spends it', async () => {
      const { challengeId, svg } = await challenge();
      expect(svg).toMatch(/^<svg /);
      const wrong = await post({ ...good, verificationCode: 'ZZZZ', challengeId });
      expect(wrong.json().status.code).toBe('CB-01-0002');
      expect(await suite.t.app.challenges.take(challengeId)).toBeNull();
    });

    it('stores the answer hashed', async () => {
      const { challengeId } = await challenge();
      expect(await suite.t.app.challenges.take(challengeId)).toMatch(/^[0-9a-f]{64}$/);
    });

    it('draws the challenge as paths with noise: no <text>, and no reading of the SVG as text finds the answer', async () => {
      for (let i = 0; i < 20; i++) {
        const { challengeId, svg } = await challenge();
        const answerHash = await suite.t.app.challenges.take(challengeId);
        expect(svg).not.toMatch(/<text|<tspan|<use|<image|font-family/i);
        // Only the picture's own elements, and nothing but whitespace between tags (an SVG's readable text).
        expect(new Set([...svg.matchAll(/<([a-z]+)/g)].map((m) => m[1]))).toEqual(new Set(['svg', 'rect', 'path']));
        expect(svg.replace(/<[^>]*>/g, '').trim()).toBe('');
        // The paths' data is geometry only (commands and numbers) and the colours are hex, where no text can hide: a
        // run of four characters in them ("9L93" of "22.19L93.97", "345D" of "#345dd9") matches a random answer now
        // and then, by chance, not by reading.
        const paths = [...svg.matchAll(/ d="([^"]*)"/g)].map((m) => m[1]);
        expect(paths.length).toBeGreaterThan(0);
        for (const d of paths) expect(d).toMatch(/^[MLHVQTCSAZmlhvqtcsaz0-9.,\s-]*$/);
        for (const [, colour] of svg.matchAll(/(?:fill|stroke)="([^"]*)"/g)) expect(colour).toMatch(/^(#[0-9a-f]{3}|#[0-9a-f]{6}|none)$/i);
        // The solver that read the old picture (its glyphs in order), and every run of four answer characters in the
        // rest of the markup, miss the answer.
        const oldSolver = [...svg.matchAll(/<text[^>]*>([A-Z0-9])<\/text>/g)].map((m) => m[1]).join('');
        const rest = svg.replace(/ d="[^"]*"/g, '').replace(/(fill|stroke)="#[0-9a-f]+"/gi, '$1=""');
        const runs = [...rest.toUpperCase().matchAll(/(?=([2-9A-HJ-NP-Z]{4}))/g)].map((m) => m[1]);
        for (const guess of [oldSolver, ...runs]) expect(sha256(guess)).not.toBe(answerHash);
      }
    });

    it('a solved challenge passes once, in any case: the same answer again is refused', async () => {
      const id = `cap-known-${kind}-${redis}`;
      await suite.t.app.challenges.put(id, sha256('K7WX'), 5 * 60_000);
      expect((await post({ ...good, verificationCode: 'k7wx', challengeId: id })).statusCode).toBe(200);
      expect((await post({ ...good, verificationCode: 'K7WX', challengeId: id })).json().status.code).toBe('CB-01-0002');
    });

    it('an expired challenge is refused', async () => {
      const id = `cap-expired-${kind}-${redis}`;
      await suite.t.app.challenges.put(id, sha256('K7WX'), 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await post({ ...good, verificationCode: 'K7WX', challengeId: id })).json().status.code).toBe('CB-01-0002');
    });
  });

  describe('throttling failed sign-ins without a lever to lock owners out (ASVS 2.2.1)', () => {
    it('50 wrong passwords for user@ from one address pause that address (429, Retry-After) while the right password signs in from another', async () => {
      const attacker = '198.51.100.7';
      const codes = new Set<string>();
      for (let i = 0; i < 50; i++) {
        const res = await post({ ...good, username: DEMO.user, password: `Wrong#${i}` }, {}, attacker);
        codes.add(res.json().status.code);
        if (i >= 5) {
          expect(res.statusCode).toBe(429);
          expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        }
      }
      expect([...codes].sort()).toEqual(['CB-01-0001', 'CB-01-0004']);
      // Only the attempts that were checked count: 5, not 50.
      expect((await failures().counts(DEMO.user, attacker)).byPair).toBe(5);
      // Even the right password is refused from the attacker's address while it is paused ...
      const there = await post({ ...good, username: DEMO.user }, { language: 'es-ES' }, attacker);
      expect(there.statusCode).toBe(429);
      expect(there.json().status.code).toBe('CB-01-0004');
      expect(there.json().status.message).toMatch(/^Demasiados inicios de sesión fallidos para esta cuenta desde aquí\. Inténtelo de nuevo en \d+ segundos\.$/);
      // ... and the owner, with the right password and a solved challenge, signs in from elsewhere.
      const owner = await post({ ...good, username: DEMO.user }, {}, '203.0.113.20');
      expect(owner.statusCode).toBe(200);
      expect(owner.json().data.user.email).toBe(DEMO.user);
    });

    it('pauses one account at one address after 5 failures, before checking the password', async () => {
      const here = '198.51.100.8';
      for (let i = 0; i < 5; i++)
        expect((await post({ ...good, username: DEMO.admin, password: 'Wrong#123' }, {}, here)).json().status.code).toBe('CB-01-0001');
      const paused = await post({ ...good, username: DEMO.admin }, {}, here);
      expect(paused.statusCode).toBe(429);
      expect(Number(paused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(paused.headers['retry-after'])).toBeLessThanOrEqual(30);
      expect(paused.json().status).toMatchObject({
        code: 'CB-01-0004',
        message: expect.stringMatching(/^Too many failed sign-ins for this account from here\. Try again in \d+ seconds\.$/),
      });
      // Another account from the same address is not paused by this one's failures.
      expect((await post({ ...good, username: DEMO.operator }, {}, here)).statusCode).toBe(200);
    });

    it("once the pause has passed, the right password signs in and forgets that address's failures for the account", async () => {
      const here = '198.51.100.11';
      for (let i = 0; i < 5; i++) await failures().record(DEMO.admin, here, new Date(Date.now() - 31_000));
      await failures().record(DEMO.operator, here);
      expect((await post({ ...good, username: DEMO.admin }, {}, here)).statusCode).toBe(200);
      // The account's failures there are gone; another account's at the same address stay counted.
      expect(await failures().counts(DEMO.admin, here)).toMatchObject({ byPair: 0, byAddress: 1 });
    });

    it('a successful sign-in from one address leaves the failures counted at another', async () => {
      for (let i = 0; i < 5; i++) await failures().record(DEMO.operator, '198.51.100.9');
      expect((await post(good, {}, '198.51.100.10')).statusCode).toBe(200);
      expect((await post(good, {}, '198.51.100.9')).statusCode).toBe(429);
    });

    it('failures older than the window count for nothing', async () => {
      for (let i = 0; i < 5; i++) await failures().record(DEMO.operator, '198.51.100.12', new Date(Date.now() - 16 * 60_000));
      expect(await failures().counts(DEMO.operator, '198.51.100.12')).toMatchObject({ byPair: 0, byAddress: 0 });
      expect((await post(good, {}, '198.51.100.12')).statusCode).toBe(200);
    });

    it('each further failure doubles the pause, up to 15 minutes', () => {
      expect([4, 5, 6, 7, 8, 9, 10, 50].map(pairPauseSeconds)).toEqual([0, 30, 60, 120, 240, 480, 900, 900]);
    });

    it('limits failures per address across accounts, until the 20th latest leaves the window', async () => {
      for (let g = 1; g <= 20; g++) await failures().record(`x${g}@y.com`, '10.9.9.9', new Date(Date.now() - (21 - g) * 1000));
      const res = await post(good, {}, '10.9.9.9');
      expect(res.statusCode).toBe(429);
      expect(res.json().status.code).toBe('CB-00-0429');
      // The oldest of the 20 was 20 s ago: free in 15 minutes less those 20 s.
      const wait = Number(res.headers['retry-after']);
      expect(wait).toBeGreaterThan(14 * 60 + 30);
      expect(wait).toBeLessThanOrEqual(15 * 60 - 19);
      // Other addresses are not affected.
      expect((await post(good, {}, '10.9.9.10')).statusCode).toBe(200);
    });
  });
});
