/**
 * Generated from the declared rules: every registered route x every role (and a member of another
 * organisation) answers exactly what common/permissions.ts allows, and nothing else.
 */
import Fastify from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { defineAbilityFor } from '../../common/ability.js';
import { ROLES } from '../../common/roles.js';
import { translate } from '../../common/i18n.js';
import { refusalOf } from '../../server/http/context.js';
import { fullPath, registerRoutes, type RouteDef } from '../../server/http/route.js';
import path from 'node:path';
import { genericRoutes, loadResources } from '../../server/schema/schema-routes.js';
import { ALL_ROUTES as BUILT_IN_ROUTES } from '../../server/routes.js';
import { call, DEMO, type Session, sessionHeaders, signedInSuite, signIn } from '../helper.js';

/**
 * Every route the server registers: the built-in ones and those of the resources of schemas/ and SCHEMAS_DIR (the
 * fixture folder when none is set), so that a schema's rights are walked like the file's, with no test code of its own.
 */
const SCHEMAS_DIR = process.env.SCHEMAS_DIR ?? path.resolve(__dirname, '../fixtures/schemas');
const RESOURCES = loadResources(SCHEMAS_DIR);
const ALL_ROUTES = [...BUILT_IN_ROUTES, ...RESOURCES.filter((r) => r['x-admin'].storage === 'generic').flatMap(genericRoutes)];

/** A URL for the route with placeholder params. */
const urlOf = (r: RouteDef) => fullPath(r).replace(/:(\w+)/g, 'x1');

describe('permission matrix', () => {
  const suite = signedInSuite({ config: { schemasDir: SCHEMAS_DIR } });
  const sessions = {} as Record<(typeof ROLES)[number], Session>;
  let other: Session;

  beforeAll(async () => {
    for (const role of ROLES) sessions[role] = await signIn(suite.t.app, DEMO[role]);
    other = await signIn(suite.t.app, 'admin@other.example.com');
  });

  it('covers every registered route', () => {
    expect(suite.t.app.routeDefs.length).toBe(ALL_ROUTES.length);
    expect(ALL_ROUTES.length).toBeGreaterThan(BUILT_IN_ROUTES.length);
  });

  const guarded = ALL_ROUTES.filter((r) => typeof r.permission === 'object');
  describe.each(ROLES)('as %s', (role) => {
    it.each(guarded.map((r) => [`${r.method} ${fullPath(r)}`, r] as const))('%s answers 403 exactly when the rules deny it', async (_name, r) => {
      const p = r.permission as Exclude<RouteDef['permission'], string>;
      const allowed = defineAbilityFor(role, RESOURCES).can(p.action, p.subject);
      const res = await call(suite.t.app, sessions[role], {
        method: r.method,
        url: urlOf(r),
        payload: r.method === 'GET' || r.method === 'DELETE' ? undefined : {},
      });
      // A denied call answers its refusal (403 "Permission denied"; an autoflow write SPEC.md section 8's 400).
      const refusal = refusalOf(p.action, p.subject);
      // An allowed call may answer a file (a template, a download), which has no envelope to read a code from.
      const json = String(res.headers['content-type'] ?? '').startsWith('application/json');
      if (allowed && json) expect(res.json().status.code, res.body).not.toBe(refusal.code);
      if (allowed) expect(res.statusCode, res.body).not.toBe(403);
      else {
        expect(res.statusCode, res.body).toBe(refusal.statusCode);
        expect(res.json().status.message).toBe(translate('en-US', refusal.messageKey));
      }
    });
  });

  it.each(ALL_ROUTES.filter((r) => r.permission !== 'public').map((r) => [`${r.method} ${fullPath(r)}`, r] as const))(
    '%s answers 401 without a token',
    async (_n, r) => {
      const res = await suite.t.app.inject({ method: r.method, url: urlOf(r), payload: r.method === 'GET' || r.method === 'DELETE' ? undefined : {} });
      expect(res.statusCode).toBe(401);
    },
  );

  // The session fetch answers 401 when there is no refresh cookie: that is its answer, not an access check.
  const SESSION_FETCH = '/sso/signin/direct/cube/refresh';
  it.each(ALL_ROUTES.filter((r) => r.permission === 'public').map((r) => [`${r.method} ${fullPath(r)}`, r] as const))(
    '%s (public) never asks for a token or a right',
    async (_n, r) => {
      const res = await suite.t.app.inject({ method: r.method, url: urlOf(r), payload: r.method === 'GET' ? undefined : {} });
      expect(res.statusCode).not.toBe(403);
      if (r.path !== SESSION_FETCH) expect(res.statusCode).not.toBe(401);
    },
  );

  it.each(guarded.map((r) => [`${r.method} ${fullPath(r)}`, r] as const))('%s refuses a member of another organisation naming DEMO', async (_n, r) => {
    // Through call(): a public API route is signed with the other member's API key, and names DEMO all the same.
    const res = await call(
      suite.t.app,
      { ...other, headers: sessionHeaders(other.token, 'DEMO') },
      { method: r.method, url: urlOf(r), payload: r.method === 'GET' || r.method === 'DELETE' ? undefined : {} },
    );
    expect(res.statusCode).toBe(403);
  });

  it('a route without a permission or a response schema is not registered', () => {
    const app = Fastify();
    const base = { service: 'main', method: 'GET', path: '/fixture', handler: async () => null } as const;
    expect(() => registerRoutes(app, [{ ...base, schema: { response: {} } } as unknown as RouteDef])).toThrow(/declares no permission/);
    expect(() => registerRoutes(app, [{ ...base, permission: 'public', schema: {} } as unknown as RouteDef])).toThrow(/no response schema/);
  });

  it('the response schema decides what leaves the server: an undeclared field is dropped', async () => {
    const app = Fastify();
    app.decorate('envelope', (_req: unknown, data: unknown) => ({ status: { code: 'CB-00-0000', success: true, message: 'Success' }, data }));
    registerRoutes(app, [
      {
        service: 'main',
        method: 'GET',
        path: '/fixture',
        permission: 'public',
        schema: { response: { type: 'object', properties: { name: { type: 'string' }, at: { type: 'string' } } } },
        handler: async () => ({ name: 'kept', at: new Date('2026-01-02T03:04:05Z'), password_hash: 'secret' }),
      },
    ]);
    const res = await app.inject({ method: 'GET', url: '/api/main/fixture' });
    expect(res.json()).toEqual({ status: { code: 'CB-00-0000', success: true, message: 'Success' }, data: { name: 'kept', at: '2026-01-02T03:04:05.000Z' } });
    await app.close();
  });
});
