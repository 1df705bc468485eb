/**
 * Test helper (like fastify/demo's test/helper.ts): a fresh database per file with the real
 * migrations and the demo seed, the real app through fastify.inject, and sign-in by role.
 * With TEST_DATABASE_URL set, each file gets its own fresh PostgreSQL database instead of PGlite.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../server/app.js';
import { loadConfig, type Config } from '../server/config.js';
import { migrate, openDb, openPglite, openPostgres, type Db } from '../server/db/db.js';
import { newId } from '../server/db/ids.js';
import { seedDemo } from '../server/db/seed.js';
import { pgliteFromTemplate, postgresTemplate } from './db-template.js';
import type { SeedSize } from '../server/db/seed-fleet.js';
import { filesIn } from '../server/job/storage.js';
import type { RouteDef } from '../server/http/route.js';
import { importPKCS8, SignJWT } from 'jose';
import { afterAll, beforeAll } from 'vitest';
import { newKeyPair } from '../server/developer/api-key-routes.js';

export const TEST_CODE = '246810';
export const DEMO_PASSWORD = 'Demo#2026';
export const DEMO = {
  superadmin: 'superadmin@demo.example.com',
  admin: 'admin@demo.example.com',
  operator: 'operator@demo.example.com',
  user: 'user@demo.example.com',
} as const;
export type DemoRole = keyof typeof DEMO;
/** The provider's back-office account (server/db/seed.ts): it alone makes, corrects, credits and settles invoices. */
export const BACK_OFFICE = 'billing@provider.example.com';

/**
 * Request limits for files that sign in or call far more often than a person could from one address (127.0.0.1 for
 * every inject); the limits themselves are proven at their real size in tests/api/rate-limit.test.ts.
 */
export const HAMMER_RATE_LIMITS = { api: 100_000, signIn: 10_000, captcha: 10_000, passwordReset: 10_000, telemetry: 10_000 };

export type DbKind = 'pglite' | 'postgres';
/** The database kinds this run covers: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const DB_KINDS: DbKind[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  config: Config;
  close(): Promise<void>;
}

/**
 * Open a fresh, migrated database of the given kind (on PostgreSQL with its url, for a second connection), with the
 * demo data of `seed` (its files written under dataDir). Migrated only, or with the small seed of now, it is a copy of
 * the run's template (tests/db-template.ts) where the run keeps them; another size or moment is seeded here.
 */
export async function freshDb(
  kind: DbKind = 'pglite',
  opts: { seed?: { size: SeedSize; now?: Date }; dataDir?: string } = {},
): Promise<{ db: Db; drop: () => Promise<void>; url?: string }> {
  const { seed, dataDir } = opts;
  if (!seed || (seed.size === 'small' && !seed.now)) {
    const what = seed ? 'seeded' : 'migrated';
    if (kind === 'pglite') {
      const db = await pgliteFromTemplate(what, dataDir);
      if (db) return { db, drop: () => db.close() };
    } else {
      const template = await postgresTemplate(what, dataDir);
      if (template) return postgresDb(await createPostgresDatabase(template));
    }
  }
  const fresh = await emptyDb(kind);
  await migrate(fresh.db);
  if (seed) await seedDemo(fresh.db, { size: seed.size, now: seed.now, files: dataDir ? filesIn(dataDir) : undefined });
  return fresh;
}

async function postgresDb({ url, drop }: { url: string; drop: () => Promise<void> }) {
  const db = await openPostgres(url);
  return {
    db,
    url,
    drop: async () => {
      await db.close();
      await drop();
    },
  };
}

/** Open a new database of the given kind with nothing in it, not even the migrations (tests of a migration). */
export async function emptyDb(kind: DbKind = 'pglite'): Promise<{ db: Db; drop: () => Promise<void>; url?: string }> {
  if (kind === 'pglite') {
    const db = await openPglite('memory://');
    return { db, drop: () => db.close() };
  }
  return postgresDb(await createPostgresDatabase());
}

/** A new database on TEST_DATABASE_URL's server, empty or a copy of a template database; drop() removes it. */
export async function createPostgresDatabase(template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL!;
  const name = `t_${newId(12).toLowerCase()}`;
  const admin = await openPostgres(base, 1);
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

/**
 * Where a server that a test starts as a process of its own keeps its data: a fresh data folder and, on PostgreSQL, a
 * database of its own, both removed by `cleanups` when the test ends. `open` opens it from the test, to prepare it
 * before any server holds it; `env` is what the server is started with.
 */
export async function processStore(
  kind: DbKind,
  name: string,
  cleanups: Array<() => Promise<void> | void>,
): Promise<{ dataDir: string; databaseUrl?: string; env: { DATA_DIR: string; DATABASE_URL?: string }; open: () => Promise<Db> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  let databaseUrl: string | undefined;
  if (kind === 'postgres') {
    const pg = await createPostgresDatabase();
    databaseUrl = pg.url;
    cleanups.push(pg.drop);
  }
  const env = { DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
  return { dataDir, databaseUrl, env, open: () => openDb(loadConfig(env as NodeJS.ProcessEnv)) };
}

/** What every server a test starts as a process is given: loopback, the tests' sign-in code, no simulator, test mode. */
export const PROCESS_ENV = { HOST: '127.0.0.1', VERIFICATION_CODE: TEST_CODE, SIMULATOR: 'off', NODE_ENV: 'test' } as const;

/** How a test app is built: the database kind, config overrides, fixture routes, the seed. */
export interface BuildOptions {
  kind?: DbKind;
  config?: Partial<Config>;
  routes?: RouteDef[];
  seed?: boolean;
  seedSize?: SeedSize;
  /** The moment the seed dates its data from (a test that checks the seed against the time it was made); unset, now. */
  seedNow?: Date;
}

/** Build the real app on a fresh database seeded with the small demo data set (or the full one: seedSize 'demo'). */
export async function buildTestApp(opts: BuildOptions = {}): Promise<TestApp> {
  const shared = sharedServices();
  const config = loadConfig({ VERIFICATION_CODE: TEST_CODE, NODE_ENV: 'test' } as NodeJS.ProcessEnv, {
    // Stored files (exports) of this app only; the database itself is in memory or its own PostgreSQL database.
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'iot-console-test-')),
    consoleDir: '/nonexistent',
    simulator: false,
    // Jobs run when a test says so (t.app.jobs.runOnce()).
    jobs: false,
    ...shared.config,
    ...opts.config,
  });
  // The files the seed lists (reports, finished exports) are where this app reads them.
  const seed = opts.seed === false ? undefined : { size: opts.seedSize ?? 'small', now: opts.seedNow };
  const { db, drop } = await freshDb(opts.kind ?? 'pglite', { seed, dataDir: config.dataDir });
  // TEST_LOGGER=1 prints the apps' logs (to find why a test of background work failed); quiet otherwise.
  const app = await buildApp({ config, db, routes: opts.routes, logger: process.env.TEST_LOGGER === '1' });
  await app.ready();
  return {
    app,
    db,
    config,
    close: async () => {
      await app.close();
      await drop();
      await shared.cleanUp(config);
    },
  };
}

/**
 * TEST_NATS_URL and TEST_REDIS_URL run every test app on those services (a stream and a key prefix of its own, removed
 * when it closes), so the whole API suite can be run once on the path several instances take:
 *   TEST_NATS_URL=nats://127.0.0.1:4222 TEST_REDIS_URL=redis://127.0.0.1:6379 npm run test:api
 * A suite's own natsUrl/redisUrl (or its choice of none) still wins. Unset, apps run on the database alone.
 */
function sharedServices(): { config: Partial<Config>; cleanUp: (config: Config) => Promise<void> } {
  const nats = process.env.TEST_NATS_URL;
  const redis = process.env.TEST_REDIS_URL;
  const id = newId(10).replace(/[^A-Za-z0-9]/g, 'x');
  return {
    config: {
      ...(nats ? { natsUrl: nats, natsStream: `TEST_${id}` } : {}),
      ...(redis ? { redisUrl: redis, redisPrefix: `test:${id}:` } : {}),
    },
    cleanUp: async (config) => {
      if (nats && config.natsUrl === nats) {
        const { deleteStreamAt } = await import('./nats.js');
        await deleteStreamAt(nats, config.natsStream);
      }
      if (redis && config.redisUrl === redis) {
        const { deleteKeys } = await import('./redis.js');
        await deleteKeys(redis, config.redisPrefix);
      }
    },
  };
}

export interface Session {
  token: string;
  refreshCookie: string;
  accountId: string;
  partnerCode: string;
  /** Headers of SPEC.md section 7 for this session. */
  headers: Record<string, string>;
}

/** The same session acting in another organisation of its account (the partnerCode header names it). */
export const inOrg = (s: Session, partnerCode: string): Session => ({ ...s, partnerCode, headers: sessionHeaders(s.token, partnerCode) });

/** Sign in through the real sign-in call. */
export async function signIn(app: FastifyInstance, email: string, password = DEMO_PASSWORD): Promise<Session> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/identity/sso/signin/direct/cube/offline-access',
    payload: { username: email, password, verificationCode: TEST_CODE, agreeTerms: true },
  });
  if (res.statusCode !== 200) throw new Error(`sign-in of ${email} failed: ${res.statusCode} ${res.body}`);
  const body = res.json();
  const cookie = res.cookies.find((c) => c.name === 'refresh_token');
  const partnerCode = body.data.customData.partner_code as string;
  return {
    token: body.data.user.token,
    refreshCookie: cookie ? `refresh_token=${cookie.value}` : '',
    accountId: body.data.user.id,
    partnerCode,
    headers: sessionHeaders(body.data.user.token, partnerCode),
  };
}

/** A suite's app and its sessions (by the names the suite calls them), filled in by signedInSuite's beforeAll. */
export type SignedInSuite<K extends string> = { t: TestApp } & Record<K, Session>;

/**
 * The prologue of a test suite: registers the beforeAll that builds the app (a database kind, or buildTestApp's
 * options) and signs in each account named, one after the other, under the name the suite calls its session, and the
 * afterAll that closes the app; returns the object the tests read once beforeAll has run:
 *   const suite = signedInSuite(kind, { admin: DEMO.admin, other: 'admin@other.example.com' });
 *   it('…', async () => { const res = await call(suite.t.app, suite.admin, { … }); });
 * A beforeAll the suite registers after this call runs once the app is built, an afterAll before the app is closed.
 */
export function signedInSuite<K extends string = never>(opts: DbKind | BuildOptions, who: Record<K, string> = {} as Record<K, string>): SignedInSuite<K> {
  const suite = {} as SignedInSuite<K>;
  beforeAll(async () => {
    suite.t = await buildTestApp(typeof opts === 'string' ? { kind: opts } : opts);
    for (const [name, email] of Object.entries(who) as Array<[K, string]>) (suite as Record<K, Session>)[name] = await signIn(suite.t.app, email);
  });
  afterAll(() => suite.t?.close());
  return suite;
}

/** The headers every call carries (SPEC.md section 7). */
export function sessionHeaders(token: string, partnerCode: string, language = 'en-US'): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    partnercode: partnerCode,
    timestamp: String(Date.now()),
    tenantid: partnerCode,
    timezone: 'UTC',
    language,
  };
}

/**
 * inject with a session's headers. A call of the public API (/api/public/v1/…) is signed instead with an API key of the
 * session's developer in the session's organisation (made once, straight into the database, as a key made in the
 * console and kept by someone whose role may since have changed), so every walk over the route table covers the
 * public API with the same sessions and expectations as the console's calls.
 */
export async function call(app: FastifyInstance, session: Session | null, opts: InjectOptions): Promise<LightMyRequestResponse> {
  const headers = { ...(session?.headers ?? {}), ...(opts.headers as Record<string, string> | undefined) };
  const url = typeof opts.url === 'string' ? opts.url : '';
  if (session && url.startsWith('/api/public/v1/') && !(opts.headers as Record<string, string> | undefined)?.authorization) {
    headers.authorization = `Bearer ${await apiTokenFor(app, session)}`;
  }
  return app.inject({ ...opts, headers }) as Promise<LightMyRequestResponse>;
}

const API_KEYS = new WeakMap<FastifyInstance, Map<string, { keyId: string; privateKey: string }>>();

/** An API key of the session's developer in its organisation: made on first use (kept per app). */
export async function apiKeyFor(app: FastifyInstance, session: Session): Promise<{ keyId: string; privateKey: string }> {
  const keys = API_KEYS.get(app) ?? new Map<string, { keyId: string; privateKey: string }>();
  API_KEYS.set(app, keys);
  const cacheKey = `${session.accountId}:${session.partnerCode}`;
  const known = keys.get(cacheKey);
  if (known) return known;
  const { publicKey, privateKey } = await newKeyPair();
  const keyId = newId(24);
  await app.db.query(
    `INSERT INTO api_keys (org_id, id, account_id, name, key_id, public_key) SELECT o.id, $1, $2, 'tests', $3, $4 FROM organisations o WHERE o.code = $5`,
    [newId(), session.accountId, keyId, publicKey, session.partnerCode],
  );
  keys.set(cacheKey, { keyId, privateKey });
  return { keyId, privateKey };
}

/** A public API token (RS256, iss = key id, 60 s) of the session's API key; claims may be changed to test refusals. */
export async function apiTokenFor(app: FastifyInstance, session: Session, claims: { iat?: number; exp?: number } = {}): Promise<string> {
  const { keyId, privateKey } = await apiKeyFor(app, session);
  return signApiToken(keyId, privateKey, claims);
}

export async function signApiToken(keyId: string, privateKeyPem: string, claims: { iat?: number; exp?: number } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const iat = claims.iat ?? now;
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(keyId)
    .setIssuedAt(iat)
    .setExpirationTime(claims.exp ?? iat + 60)
    .sign(await importPKCS8(privateKeyPem, 'RS256'));
}

/** What a call answered, in one object to compare: its status code, the envelope's message and the field it names (if any). */
export function answerOf(res: LightMyRequestResponse): { statusCode: number; message?: string; field?: string } {
  const body = res.json();
  return { statusCode: res.statusCode, message: body.status?.message, field: body.data?.field };
}

/** Count rows of a table (to assert that a refused call changed nothing). */
export async function countRows(db: Db, table: string, where = 'true', params: unknown[] = []): Promise<number> {
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params);
  return r.rows[0].n;
}
