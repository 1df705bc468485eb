/**
 * API keys and the public API, on PGlite and PostgreSQL: a key made in the console hands its
 * private key over once; a JWT signed with it calls /api/public/v1 with the developer's current role; another key, an
 * expired or future token, a token living too long, a deleted key, another organisation's key and a user's suspend are
 * refused with their own messages; every call is in the API log with its trace id, Authorization redacted; one key's
 * calls are limited per minute.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEMO_SIMS, OTHER_SIM_ICCID } from '../../server/db/seed-fleet.js';
import { API_KEYS_PER_DEVELOPER } from '../../server/developer/api-key-routes.js';
import { buildTestApp, call, DB_KINDS, DEMO, type Session, signApiToken, signedInSuite, signIn } from '../helper.js';

describe.each(DB_KINDS)('public API on %s', (kind) => {
  const suite = signedInSuite(
    { kind, config: { rateLimits: { api: 1000, signIn: 1000, captcha: 1000, passwordReset: 1000, telemetry: 1000 } } },
    { admin: DEMO.admin },
  );
  let key: { id: string; keyId: string; privateKey: string };

  /** A public API call signed with the given token (no console headers). */
  const publicCall = (token: string, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>, headers: Record<string, string> = {}) =>
    suite.t.app.inject({ method, url: `/api/public/v1${url}`, payload, headers: { authorization: `Bearer ${token}`, ...headers } });
  const tokenOf = (k = key, claims: { iat?: number; exp?: number } = {}) => signApiToken(k.keyId, k.privateKey, claims);
  const makeKey = async (who: Session, name?: string) => {
    const res = await call(suite.t.app, who, { method: 'POST', url: '/api/main/developer/key/api', payload: name === undefined ? {} : { name } });
    return res;
  };

  it('a key is made with a name of 1 to 60 characters or none; its private key (PEM, 2048-bit RSA) is in that answer only', async () => {
    for (const bad of ['', ' ', 'x'.repeat(61)]) {
      const res = await makeKey(suite.admin, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().status.message).toMatch(/^Name/);
    }
    const res = await makeKey(suite.admin, 'x'.repeat(60));
    expect(res.statusCode, res.body).toBe(200);
    const made = res.json().data;
    expect(made.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const pem = (await suite.t.db.query<{ public_key: string }>('SELECT public_key FROM api_keys WHERE id = $1', [made.id])).rows[0].public_key;
    const { createPublicKey } = await import('node:crypto');
    expect(createPublicKey(pem).asymmetricKeyDetails?.modulusLength).toBe(2048);
    key = { id: made.id, keyId: made.keyId, privateKey: made.privateKey };
    const listed = await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/developer/key/api' });
    expect(listed.body).not.toContain('PRIVATE KEY');
    expect(listed.json().data.find((k: { id: string }) => k.id === made.id)).toMatchObject({ name: 'x'.repeat(60), lastUsedAt: null });
    expect((await makeKey(suite.admin)).json().data.name).toBeNull();
  });

  it('a JWT signed with the key lists the organisation’s SIMs and answers one, as the console does', async () => {
    const res = await publicCall(await tokenOf(), 'POST', '/sims/list', { pageSize: 5 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.items).toHaveLength(5);
    expect(res.headers['x-trace-id']).toMatch(/^[\w-]+$/);
    const one = await publicCall(await tokenOf(), 'GET', `/sims/detail?iccid=${DEMO_SIMS.active}`);
    expect(one.json().data.iccid).toBe(DEMO_SIMS.active);
    // The same refusals and messages as the console: another organisation's SIM does not exist here.
    const theirs = await publicCall(await tokenOf(), 'GET', `/sims/detail?iccid=${OTHER_SIM_ICCID}`);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().status.message).toBe(`SIM ${OTHER_SIM_ICCID} does not exist.`);
  });

  it('refuses each bad token with its own message', async () => {
    const now = Math.floor(Date.now() / 1000);
    const otherPair = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const cases: Array<[string, Promise<string> | string, RegExp]> = [
      ['no token', '', /Sign the call/],
      ['a console token', suite.admin.token, /not a JWT signed with RS256/],
      ['another key’s signature', signApiToken(key.keyId, otherPair.privateKey), /signature does not match API key/],
      ['an unknown key', signApiToken('A'.repeat(24), otherPair.privateKey), /does not exist or was deleted/],
      ['expired', tokenOf(key, { iat: now - 200, exp: now - 100 }), /has expired/],
      ['issued in the future', tokenOf(key, { iat: now + 120, exp: now + 180 }), /in the future/],
      ['living 301 seconds', tokenOf(key, { iat: now, exp: now + 301 }), /at most 300 seconds/],
    ];
    for (const [name, token, message] of cases) {
      const res = await suite.t.app.inject({
        method: 'POST',
        url: '/api/public/v1/sims/list',
        payload: {},
        headers: (await token) ? { authorization: `Bearer ${await token}` } : {},
      });
      expect(res.statusCode, name).toBe(401);
      expect(res.json().status.message, name).toMatch(message);
    }
    // Exactly 300 seconds is allowed.
    expect((await publicCall(await tokenOf(key, { iat: now, exp: now + 300 }), 'POST', '/sims/list', {})).statusCode).toBe(200);
  });

  it('a deleted key stops at once; a key acts with its developer’s role now, never more', async () => {
    const made = (await makeKey(suite.admin, 'short-lived')).json().data;
    const k = { id: made.id, keyId: made.keyId, privateKey: made.privateKey };
    const token = await tokenOf(k);
    expect((await publicCall(token, 'POST', '/sims/list', {})).statusCode).toBe(200);
    expect((await call(suite.t.app, suite.admin, { method: 'DELETE', url: `/api/main/developer/key/api/${k.id}` })).statusCode).toBe(200);
    const gone = await publicCall(token, 'POST', '/sims/list', {});
    expect(gone.statusCode).toBe(401);
    expect(gone.json().status.message).toMatch(/does not exist or was deleted/);
    // Someone else's key cannot be deleted by its id.
    const superadmin = await signIn(suite.t.app, DEMO.superadmin);
    expect((await call(suite.t.app, superadmin, { method: 'DELETE', url: `/api/main/developer/key/api/${key.id}` })).statusCode).toBe(404);

    // The admin becomes a user: their key may read, but no longer suspend.
    const demoted = (await makeKey(suite.admin, 'demoted')).json().data;
    await suite.t.db.query(`UPDATE memberships SET role = 'user' WHERE account_id = $1 AND org_id = 'org-demo'`, [suite.admin.accountId]);
    try {
      const dk = { id: demoted.id, keyId: demoted.keyId, privateKey: demoted.privateKey };
      expect((await publicCall(await tokenOf(dk), 'POST', '/sims/list', {})).statusCode).toBe(200);
      const suspend = await publicCall(await tokenOf(dk), 'POST', '/sims/suspend', { iccids: [DEMO_SIMS.active] });
      expect(suspend.statusCode).toBe(403);
      expect(suspend.json().status.message).toBe('Permission denied');
      expect((await suite.t.db.query<{ status: string }>('SELECT status FROM sims WHERE iccid = $1', [DEMO_SIMS.active])).rows[0].status).toBe('active');
    } finally {
      await suite.t.db.query(`UPDATE memberships SET role = 'admin' WHERE account_id = $1 AND org_id = 'org-demo'`, [suite.admin.accountId]);
    }
  });

  it('another organisation’s key sees only its own organisation, and may not name another', async () => {
    const other = await signIn(suite.t.app, 'admin@other.example.com');
    const made = (await makeKey(other, 'ERP')).json().data;
    const ok = { id: made.id, keyId: made.keyId, privateKey: made.privateKey };
    const list = await publicCall(await tokenOf(ok), 'POST', '/sims/list', { pageSize: 100 });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(DEMO_SIMS.active);
    expect((await publicCall(await tokenOf(ok), 'GET', `/sims/detail?iccid=${DEMO_SIMS.active}`)).statusCode).toBe(404);
    expect((await publicCall(await tokenOf(ok), 'POST', '/sims/list', {}, { partnercode: 'DEMO' })).statusCode).toBe(403);
    const suspend = await publicCall(await tokenOf(ok), 'POST', '/sims/suspend', { iccids: [DEMO_SIMS.active] });
    expect(suspend.json().data.results[0]).toMatchObject({ iccid: DEMO_SIMS.active, ok: false });
  });

  it('suspends and resumes with the console’s rules and messages', async () => {
    const s = await publicCall(await tokenOf(), 'POST', '/sims/suspend', { iccids: [DEMO_SIMS.active, DEMO_SIMS.terminated] });
    expect(s.statusCode).toBe(200);
    expect(s.json().data).toMatchObject({ accepted: 1, refused: 1 });
    const events = await suite.t.db.query<{ source: string }>(
      `SELECT source FROM sim_events WHERE iccid = $1 AND type = 'status_change' ORDER BY id DESC LIMIT 1`,
      [DEMO_SIMS.active],
    );
    expect(events.rows[0].source).toBe('console');
    expect((await publicCall(await tokenOf(), 'POST', '/sims/resume', { iccids: [DEMO_SIMS.active] })).json().data.accepted).toBe(1);
  });

  it('every call is in the API log with its trace id, Authorization redacted; the log filters by trace id, code and method', async () => {
    const res = await publicCall(await tokenOf(), 'POST', '/sims/list', { pageSize: 1 }, { 'x-request-id': 'trace-public-1' });
    expect(res.headers['x-trace-id']).toBe('trace-public-1');
    const byTrace = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/developer/log/api', payload: { traceId: 'trace-public-1' } });
    expect(byTrace.statusCode, byTrace.body).toBe(200);
    const [row] = byTrace.json().data.items;
    expect(row).toMatchObject({
      traceId: 'trace-public-1',
      httpCode: 200,
      method: 'POST',
      path: '/api/public/v1/sims/list',
      apiKeyId: key.id,
      body: '{"pageSize":1}',
    });
    expect(row.headers.authorization).toBe('[redacted]');
    expect(JSON.stringify(row)).not.toContain((await tokenOf()).slice(0, 40));
    expect(row.response).toContain('"items"');
    expect(row.durationMs).toBeGreaterThanOrEqual(0);
    const refused = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/developer/log/api', payload: { httpCode: 404 } });
    expect(refused.json().data.items.every((l: { httpCode: number }) => l.httpCode === 404)).toBe(true);
    expect(refused.json().data.total).toBeGreaterThan(0);
    const gets = await call(suite.t.app, suite.admin, { method: 'POST', url: '/api/main/developer/log/api', payload: { method: 'GET', pageSize: 100 } });
    expect(gets.json().data.items.every((l: { method: string }) => l.method === 'GET')).toBe(true);
    // The key's last use is kept; another organisation's admin sees none of these calls.
    const listed = (await call(suite.t.app, suite.admin, { method: 'GET', url: '/api/main/developer/key/api' }))
      .json()
      .data.find((k: { id: string }) => k.id === key.id);
    expect(listed.lastUsedAt).not.toBeNull();
    const other = await signIn(suite.t.app, 'admin@other.example.com');
    expect(
      (await call(suite.t.app, other, { method: 'POST', url: '/api/main/developer/log/api', payload: { traceId: 'trace-public-1' } })).json().data.total,
    ).toBe(0);
  });

  it(`a developer has at most ${API_KEYS_PER_DEVELOPER} keys`, async () => {
    const superadmin = await signIn(suite.t.app, DEMO.superadmin);
    const have = (await call(suite.t.app, superadmin, { method: 'GET', url: '/api/main/developer/key/api' })).json().data.length;
    for (let i = have; i < API_KEYS_PER_DEVELOPER; i++) expect((await makeKey(superadmin, `k${i}`)).statusCode).toBe(200);
    const over = await makeKey(superadmin, 'one too many');
    expect(over.statusCode).toBe(409);
    expect(over.json().status.message).toBe(
      `You have ${API_KEYS_PER_DEVELOPER} API keys, the most one developer may have. Delete one you no longer use first.`,
    );
  });
});

describe('public API rate limit', () => {
  it('counts one key’s calls per minute and answers 429 with Retry-After; another key is not affected', async () => {
    const t = await buildTestApp({ config: { rateLimits: { api: 3, signIn: 100, captcha: 100, passwordReset: 100, telemetry: 100 } } });
    try {
      const admin = await signIn(t.app, DEMO.admin);
      const superadmin = await signIn(t.app, DEMO.superadmin);
      const mk = async (who: Session) =>
        (await call(t.app, who, { method: 'POST', url: '/api/main/developer/key/api', payload: {} })).json().data as { keyId: string; privateKey: string };
      const a = await mk(admin);
      const b = await mk(superadmin);
      const hit = async (k: { keyId: string; privateKey: string }) =>
        t.app.inject({
          method: 'POST',
          url: '/api/public/v1/sims/list',
          payload: {},
          headers: { authorization: `Bearer ${await signApiToken(k.keyId, k.privateKey)}` },
        });
      for (let i = 0; i < 3; i++) expect((await hit(a)).statusCode).toBe(200);
      const limited = await hit(a);
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await hit(b)).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('public API reference', () => {
  it('serves a valid OpenAPI 3.1 document of every public route, with the security scheme, schemas and error envelope', async () => {
    const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
    const { ALL_ROUTES } = await import('../../server/routes.js');
    const t = await buildTestApp();
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/public/openapi.json' });
      expect(res.statusCode).toBe(200);
      const doc = res.json();
      expect(doc.openapi).toBe('3.1.0');
      // Valid by a validator nobody here wrote (it dereferences and checks the document against the 3.1 schema).
      await SwaggerParser.validate(structuredClone(doc));
      const published = ALL_ROUTES.filter((r) => r.service === 'public' && r.path.startsWith('/v1/'));
      expect(published.length).toBeGreaterThanOrEqual(10);
      for (const r of published) {
        const path = r.path.replace(/:(\w+)/g, '{$1}');
        const op = doc.paths[path]?.[r.method.toLowerCase()];
        expect(op, `${r.method} ${path}`).toBeDefined();
        expect(op.responses['200'].content['application/json'].schema.properties.data).toBeDefined();
        expect(op.responses['401'].$ref).toBe('#/components/responses/Unauthenticated');
      }
      expect(doc.paths['/v1/sims/suspend'].post.requestBody.content['application/json'].schema.required).toContain('iccids');
      expect(doc.components.securitySchemes.apiKeyJwt).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
      expect(doc.security).toEqual([{ apiKeyJwt: [] }]);
    } finally {
      await t.close();
    }
  });
});

describe('public API reference page', () => {
  it('serves Swagger UI from this server, reading the OpenAPI document; nothing else of the package', async () => {
    const t = await buildTestApp();
    try {
      const page = await t.app.inject({ method: 'GET', url: '/api/public/reference' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('<script src="/api/public/reference/swagger-ui-bundle.js"></script>');
      expect(page.body).not.toMatch(/<script>/);
      const init = await t.app.inject({ method: 'GET', url: '/api/public/reference/init.js' });
      expect(init.body).toContain("url: '/api/public/openapi.json'");
      const bundle = await t.app.inject({ method: 'GET', url: '/api/public/reference/swagger-ui-bundle.js' });
      expect(bundle.statusCode).toBe(200);
      expect(bundle.body.length).toBeGreaterThan(100_000);
      for (const file of ['package.json', 'index.html', '..%2Fpackage.json'])
        expect((await t.app.inject({ method: 'GET', url: `/api/public/reference/${file}` })).statusCode, file).toBe(404);
    } finally {
      await t.close();
    }
  });
});
