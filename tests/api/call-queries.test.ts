/**
 * What a signed-in call asks of the database on its way to its handler, and that a read writes nothing:
 * - with REDIS_URL, a GET or a list call (console or public API) makes no INSERT, UPDATE or DELETE and opens no
 *   transaction before it is answered (its rate-limit count is in Redis, the public API's call log is batched);
 * - who the caller is costs one query (a console session) or two (an API key and its developer) at most once a second,
 *   none on the calls in between;
 * - a rights change or a signed-out session made on another instance holds on every call that starts a second after
 *   it was answered, and at once on the instance that made it.
 * The statements are those the app sends on the call's own asynchronous path (AsyncLocalStorage), not the background
 * loops' (live events, jobs) which run beside it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import type { Db, Queryable } from '../../server/db/db.js';
import { AUTH_CACHE_MS } from '../../server/http/auth-cache.js';
import { apiKeyFor, call, DB_KINDS, DEMO, type Session, signedInSuite, signIn } from '../helper.js';
import { deleteKeys, REDIS_URL, redisAnswers, testPrefix } from '../redis.js';

type Recording = { statements: string[]; open: boolean };
const path = new AsyncLocalStorage<Recording>();

/** Make db record every statement sent on a recorded call's path (transactions as BEGIN, then their statements). */
function recordStatements(db: Db): void {
  const note = (sql: string) => {
    const r = path.getStore();
    if (r?.open) r.statements.push(sql.replace(/\s+/g, ' ').trim());
  };
  const wrap = (q: Queryable): Queryable => ({ ...q, query: (sql: string, params?: unknown[]) => (note(sql), q.query(sql, params)) }) as Queryable;
  const query = db.query.bind(db);
  const tx = db.tx.bind(db);
  db.query = ((sql: string, params?: unknown[]) => (note(sql), query(sql, params))) as Db['query'];
  db.tx = ((fn: (q: Queryable) => Promise<unknown>) => (note('BEGIN'), tx((q) => fn(wrap(q))))) as Db['tx'];
}

/** The statements a call sent until it was answered. */
async function statementsOf(app: FastifyInstance, session: Session, opts: InjectOptions): Promise<{ statusCode: number; statements: string[] }> {
  const recording: Recording = { statements: [], open: true };
  const res = await path.run(recording, () => call(app, session, opts));
  recording.open = false;
  return { statusCode: res.statusCode, statements: recording.statements };
}

const WRITES = /^(BEGIN|INSERT|UPDATE|DELETE|MERGE|COPY)\b|\b(INSERT INTO|DELETE FROM|FOR UPDATE|nextval|pg_advisory)\b/i;
/** The statements that find out who the caller is (its session or API key, account and membership). */
const WHO = /\bFROM (accounts a|api_keys WHERE key_id)\b/;

const READS: Array<{ name: string; opts: InjectOptions }> = [
  { name: 'the SIM list (a list call)', opts: { method: 'POST', url: '/api/main/sim/list/es', payload: { page: 1, pageSize: 20 } } },
  { name: 'one’s tasks', opts: { method: 'GET', url: '/api/job/rest/job/my' } },
  { name: 'the public API’s SIM list', opts: { method: 'POST', url: '/api/public/v1/sims/list', payload: { page: 1, pageSize: 20 } } },
  { name: 'the public API’s tasks', opts: { method: 'GET', url: '/api/public/v1/tasks' } },
];

describe.each(DB_KINDS)('what a call asks of the database on %s', (kind) => {
  const prefix = testPrefix();
  const suite = signedInSuite({ kind, config: redisAnswers ? { redisUrl: REDIS_URL, redisPrefix: prefix } : {} }, { operator: DEMO.operator });
  beforeAll(async () => {
    recordStatements(suite.t.db);
    // The operator's API key exists before any call is recorded (the helper makes it on first use).
    await apiKeyFor(suite.t.app, suite.operator);
  });
  afterAll(async () => {
    if (redisAnswers) await deleteKeys(REDIS_URL, prefix);
  });

  it.runIf(redisAnswers).each(READS)('$name writes nothing before it is answered, with REDIS_URL', async ({ opts }) => {
    for (let i = 0; i < 3; i++) {
      const { statusCode, statements } = await statementsOf(suite.t.app, suite.operator, opts);
      expect(statusCode).toBe(200);
      expect(statements.filter((s) => WRITES.test(s))).toEqual([]);
    }
  });

  it.each(READS)('$name asks who the caller is once, then not again within the second', async ({ opts }) => {
    const publicApi = String(opts.url).startsWith('/api/public/');
    suite.t.app.authCache.clear();
    const first = await statementsOf(suite.t.app, suite.operator, opts);
    expect(first.statusCode).toBe(200);
    // A console session: its account, session and membership in one query. An API key: the key, then its developer.
    expect(first.statements.filter((s) => WHO.test(s))).toHaveLength(publicApi ? 2 : 1);
    const asked = Date.now();
    const next = await statementsOf(suite.t.app, suite.operator, opts);
    // The second call came within the second (as it does unless the machine stalls): it asked nothing about the caller.
    if (Date.now() - asked < AUTH_CACHE_MS) expect(next.statements.filter((s) => WHO.test(s))).toEqual([]);
  });
});

describe.each(DB_KINDS)('a change of rights on another instance, on %s', (kind) => {
  const suite = signedInSuite(kind, { admin: DEMO.admin });
  let other: FastifyInstance;
  beforeAll(async () => {
    // A second instance of the product on the same database, as behind a load balancer.
    other = await buildApp({ config: suite.t.config, db: suite.t.db, logger: false });
    await other.ready();
  });
  afterAll(() => other?.close());

  const audit = (app: FastifyInstance, s: Session) => call(app, s, { method: 'GET', url: '/api/main/audit/logs' });
  const setRole = async (app: FastifyInstance, accountId: string, role: string) =>
    expect((await call(app, suite.admin, { method: 'PUT', url: `/api/main/accounts/${accountId}`, payload: { role } })).statusCode).toBe(200);
  /** Wait until every call started from now on began at least a second after `answeredAt`. */
  const aSecondAfter = async (answeredAt: number) => {
    while (Date.now() < answeredAt + AUTH_CACHE_MS) await new Promise((r) => setTimeout(r, answeredAt + AUTH_CACHE_MS - Date.now()));
  };

  it('a role changed elsewhere holds a second after it was answered, and at once where it was made', async () => {
    const operator = await signIn(suite.t.app, DEMO.operator);
    try {
      expect((await audit(suite.t.app, operator)).statusCode).toBe(403);
      // Promoted on the other instance: this one believes what it knew for at most a second.
      await setRole(other, operator.accountId, 'admin');
      await aSecondAfter(Date.now());
      expect((await audit(suite.t.app, operator)).statusCode).toBe(200);
      // Demoted on this instance, which has just remembered them as an administrator: refused at once.
      await setRole(suite.t.app, operator.accountId, 'operator');
      expect((await audit(suite.t.app, operator)).statusCode).toBe(403);
    } finally {
      await setRole(suite.t.app, operator.accountId, 'operator');
    }
  });

  it('a session signed out elsewhere is refused a second after, and at once where it signed out', async () => {
    const session = await signIn(suite.t.app, DEMO.user);
    expect((await call(suite.t.app, session, { method: 'GET', url: '/api/job/rest/job/my' })).statusCode).toBe(200);
    expect((await call(other, session, { method: 'POST', url: '/api/identity/sso/signin/signout/cube' })).statusCode).toBe(200);
    await aSecondAfter(Date.now());
    expect((await call(suite.t.app, session, { method: 'GET', url: '/api/job/rest/job/my' })).statusCode).toBe(401);

    const again = await signIn(suite.t.app, DEMO.user);
    expect((await call(suite.t.app, again, { method: 'GET', url: '/api/job/rest/job/my' })).statusCode).toBe(200);
    expect((await call(suite.t.app, again, { method: 'POST', url: '/api/identity/sso/signin/signout/cube' })).statusCode).toBe(200);
    expect((await call(suite.t.app, again, { method: 'GET', url: '/api/job/rest/job/my' })).statusCode).toBe(401);
  });
});
