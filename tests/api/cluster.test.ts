/**
 * scripts/cluster.ts (npm run cluster) as an operator runs it: three instances on one PostgreSQL (with NATS and Redis
 * where they answer) behind HAProxy. Under load one instance is killed: HAProxy takes it out, no call started after the
 * kill fails and at most those in flight on it do, the live stream it held ends and a reconnect (as the console makes,
 * with Last-Event-ID) is served by another instance. The instances count the client's own address, never one it
 * claims in X-Forwarded-For. SIGTERM stops everything.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../server/db/db.js';
import { seedDemo } from '../../server/db/seed.js';
import { filesIn } from '../../server/job/storage.js';
import { DEMO, DEMO_PASSWORD, TEST_CODE, PROCESS_ENV, processStore } from '../helper.js';
import { deleteStream, natsAnswers } from '../nats.js';
import { deleteKeys, REDIS_URL, redisAnswers, testPrefix } from '../redis.js';
import { collectFrames } from '../sse.js';
import { until } from '../wait.js';
import { freeRun } from '../../scripts/ports.js';

const haproxy = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].some((p) => fs.existsSync(p));
// npm test installs HAProxy (scripts/test-all.sh): in CI a missing one is a failure, not a skip.
if (!haproxy && process.env.CI) throw new Error("HAProxy is missing: npm test installs Debian's haproxy");
const WORKERS = 6;

/** A POST from a given local address (127.0.0.2: another client than HAProxy's 127.0.0.1), with extra headers. */
function postFrom(localAddress: string, url: string, body: unknown, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe.runIf(process.env.TEST_DATABASE_URL && haproxy)('npm run cluster', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('balances three instances, survives one killed under load, counts real client addresses and stops on SIGTERM', async () => {
    const store = await processStore('postgres', 'cluster', cleanups);
    const { dataDir } = store;
    // The small demo, seeded before the instances start (they find it seeded and start at once).
    const db = await store.open();
    await migrate(db);
    await seedDemo(db, { size: 'small', files: filesIn(dataDir) });
    await db.close();

    const port = await freeRun(3);
    const base = `http://127.0.0.1:${port}`;
    const stream = `CLUSTER_${process.pid}_${port}`;
    const prefix = testPrefix();
    if (natsAnswers) cleanups.push(() => deleteStream(stream));
    if (redisAnswers) cleanups.push(() => deleteKeys(REDIS_URL, prefix));
    let output = '';
    const cluster: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster.ts'], {
      env: {
        ...process.env,
        ...PROCESS_ENV,
        PORT: String(port),
        ...store.env,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '100000',
        NATS_STREAM: stream,
        REDIS_PREFIX: prefix,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cluster.stdout!.on('data', (c) => (output += c));
    cluster.stderr!.on('data', (c) => (output += c));
    cleanups.push(() => void (cluster.exitCode === null && cluster.kill('SIGKILL')));
    const state = () =>
      JSON.parse(fs.readFileSync(path.join(dataDir, 'cluster.json'), 'utf8')) as {
        haproxyPid: number;
        instances: { name: string; port: number; pid: number }[];
      };
    cleanups.push(() => {
      // Whatever the test's outcome, no process of the cluster outlives it.
      try {
        const s = state();
        for (const pid of [s.haproxyPid, ...s.instances.map((i) => i.pid)])
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            /* gone */
          }
      } catch {
        /* never started */
      }
    });

    // Every instance answers through the balancer.
    const seen = new Set<string>();
    await until(
      'the three instances behind HAProxy',
      async () => {
        const res = await fetch(`${base}/api/health`);
        if (res.ok) seen.add(res.headers.get('x-served-by') ?? '');
        return seen.size >= 3 ? true : undefined;
      },
      120_000,
      100,
    );
    expect([...seen].sort()).toEqual(['i1', 'i2', 'i3']);
    expect(output).toContain('3 instances on');
    // Metrics are not served through the balancer (they are scraped from each instance).
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer x' } })).status).toBe(404);

    // Signed in from 127.0.0.2 claiming another address: the instance records the address HAProxy saw.
    const SIGN_IN = '/api/identity/sso/signin/direct/cube/offline-access';
    const credentials = { username: DEMO.admin, password: DEMO_PASSWORD, verificationCode: TEST_CODE, agreeTerms: true };
    expect(await postFrom('127.0.0.2', `${base}${SIGN_IN}`, credentials, { 'x-forwarded-for': '198.51.100.9' })).toBe(200);
    const check = await store.open();
    try {
      const ip = (await check.query<{ ip: string }>(`SELECT ip FROM audit_log WHERE action = 'signIn' ORDER BY at DESC LIMIT 1`)).rows[0]?.ip;
      expect(ip).toBe('127.0.0.2');
    } finally {
      await check.close();
    }

    const signin = await (
      await fetch(`${base}${SIGN_IN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) })
    ).json();
    const token = signin.data.user.token as string;
    const accountId = signin.data.user.id as string;
    const headers = { authorization: `Bearer ${token}`, partnercode: signin.data.customData.partner_code as string };

    // The live stream, and the instance that holds it: the one to kill.
    const live = await fetch(`${base}/api/identity/sse/connect?userId=${accountId}`, { headers });
    expect(live.status).toBe(200);
    const victim = live.headers.get('x-served-by')!;
    const liveFrames = collectFrames(live);
    await until('the ready frame', async () => (liveFrames.frames.some((f) => f.event === 'ready') ? true : undefined), 30_000);

    // Load: WORKERS calls at a time until 150 have been answered after the kill.
    type Outcome = { started: number; status: number; servedBy: string | null };
    const outcomes: Outcome[] = [];
    let killedAt = Infinity;
    let afterKill = 0;
    const worker = async () => {
      while (afterKill < 150) {
        const started = Date.now();
        const outcome: Outcome = await fetch(`${base}/api/job/rest/job/my?pageSize=5`, { headers })
          .then(async (r) => (await r.arrayBuffer(), { started, status: r.status, servedBy: r.headers.get('x-served-by') }))
          .catch((err: Error) => ({ started, status: 0, servedBy: String((err.cause as Error | undefined)?.message ?? err.message) }));
        outcomes.push(outcome);
        if (started > killedAt) afterKill++;
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, worker));
    await until('60 calls answered', async () => (outcomes.length >= 60 ? true : undefined), 60_000, 10);
    const pid = state().instances.find((i) => i.name === victim)!.pid;
    killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    await load;

    const failed = outcomes.filter((o) => o.status !== 200);
    // Only calls already in flight on the killed instance may fail; every call started after the kill is answered.
    expect(failed.length).toBeLessThanOrEqual(WORKERS);
    expect(failed.filter((o) => o.started > killedAt)).toEqual([]);
    expect(outcomes.filter((o) => o.started > killedAt && o.servedBy === victim)).toEqual([]);
    // Before the kill all three took calls.
    expect(new Set(outcomes.filter((o) => o.started < killedAt).map((o) => o.servedBy))).toEqual(new Set(['i1', 'i2', 'i3']));
    // HAProxy's health checks took it out.
    await until('HAProxy to mark the killed instance down', async () => (output.includes(`instances/${victim} is DOWN`) ? true : undefined), 30_000);
    expect(output).toContain(`instance ${victim} exited (SIGKILL)`);

    // The live stream ended with its instance; reconnecting as the console does is served by another one.
    await liveFrames.ended;
    const lastId = [...liveFrames.frames].reverse().find((f) => f.id)?.id ?? '0';
    const again = await fetch(`${base}/api/identity/sse/connect?userId=${accountId}`, { headers: { ...headers, 'last-event-id': lastId } });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-served-by')).not.toBe(victim);
    const againFrames = collectFrames(again);
    await until('the ready frame after reconnecting', async () => (againFrames.frames.some((f) => f.event === 'ready') ? true : undefined), 30_000);
    await againFrames.stop();

    // SIGTERM: the instances stop (handing their work back), then HAProxy; the script exits 0.
    const { haproxyPid, instances } = state();
    const exit = new Promise<number | null>((resolve) => cluster.once('exit', (code) => resolve(code)));
    cluster.kill('SIGTERM');
    expect(await exit).toBe(0);
    const alive = (p: number) => {
      try {
        process.kill(p, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect([haproxyPid, ...instances.map((i) => i.pid)].filter(alive)).toEqual([]);
  }, 300_000);
});
