/**
 * A real server process (tsx server/main.ts) sent SIGTERM while it is delivering webhooks to a receiver that does not
 * answer, exporting 100,000 SIMs, and holding a live (SSE) stream open: it ends the stream, gives the deliveries and
 * the task back to the database, closes the database and exits 0 within SHUTDOWN_TIMEOUT_SECONDS (enforced by the
 * server's own timer). A second instance on the same database then makes the deliveries and finishes the export at
 * once: the task's lease is set to an hour, so only a task handed back can be taken over within the test.
 *
 * Work still in flight when the grace ends is what is handed back, so the test holds it there rather than racing it:
 * the receiver never answers the deliveries, and on PostgreSQL the test locks the export's task row (FOR UPDATE) once
 * the export is under way, so its next progress report waits (seen behind the lock by pg_blocking_pids) until the
 * server's own hand-back of that row queues behind it; then the test lets both through. (A 100,000-SIM export took
 * about 2.5 s on PostgreSQL and could end within the grace.) The embedded database lives inside the server process,
 * where the test cannot hold a lock: there the input is what holds it, 100,000 SIMs the most an export takes, which
 * PGlite writes in 6 s or more, signalled at its first progress report (5 %), against a grace of 1.5 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { scaleSeed, SCALE_ORG } from '../../bench/scale-seed.js';
import { migrate, type Db } from '../../server/db/db.js';
import { seedDemo } from '../../server/db/seed.js';
import { DEMO_NOTIFICATION_KEY_ID } from '../../server/db/seed/fixtures.js';
import { httpsReceiver } from '../test-tls.js';
import { freePort, until } from '../wait.js';
import { DB_KINDS, DEMO, DEMO_PASSWORD, PROCESS_ENV, processStore, TEST_CODE } from '../helper.js';

const DELIVERIES = 3;

/**
 * The sessions waiting behind this one's locks, directly or behind another waiter (the second statement to update a
 * locked row waits for the first one's tuple lock, not for the row's holder).
 */
const BEHIND_US = `WITH RECURSIVE behind(pid) AS (
    SELECT a.pid FROM pg_stat_activity a WHERE pg_backend_pid() = ANY(pg_blocking_pids(a.pid))
    UNION SELECT a.pid FROM pg_stat_activity a JOIN behind b ON b.pid = ANY(pg_blocking_pids(a.pid))
  ) SELECT pid FROM behind`;

/**
 * Lock a task's row on PostgreSQL in a transaction of the test's own: the worker's next progress report (an UPDATE of
 * that row) waits until release. `waiting` counts the statements waiting behind the lock.
 */
async function holdTaskRow(url: string, taskId: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query('SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE', [taskId]);
  return {
    // Within a transaction PostgreSQL keeps the first look at pg_stat_activity (stats_fetch_consistency): each count
    // clears it first, or it would go on counting the waiters of the first call.
    waiting: async () => {
      await client.query('SELECT pg_stat_clear_snapshot()');
      return (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${BEHIND_US}) w`)).rows[0].n;
    },
    release: async () => {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

describe.each(DB_KINDS)('a server sent SIGTERM on %s', (kind) => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('hands back its deliveries and its export, ends its live stream, exits 0, and the next instance takes over at once', async () => {
    const store = await processStore(kind, 'shutdown', cleanups);
    const rx = await httpsReceiver();
    cleanups.push(() => rx.close());
    // The receiver takes the requests of the first instance and never answers them.
    rx.hangUp(true);

    // The database, made before any server holds it: the small demo, 100,000 SIMs to export, the demo's notification
    // key pointed at the receiver (every other key off), and deliveries due now.
    let db: Db = await store.open();
    await migrate(db);
    await seedDemo(db, { size: 'small' });
    await scaleSeed(db, { sims: 100_000, cdrs: 0 });
    await db.query(
      `UPDATE notification_keys SET status = CASE WHEN id = $1 THEN 'enabled' ELSE 'disabled' END, webhook_url = CASE WHEN id = $1 THEN $2 ELSE webhook_url END`,
      [DEMO_NOTIFICATION_KEY_ID, rx.url],
    );
    await db.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE status = 'pending'`);
    const messageIds = Array.from({ length: DELIVERIES }, (_, i) => `evt_shutdown_${i}`);
    for (const id of messageIds) {
      await db.query(
        `INSERT INTO webhook_deliveries (org_id, notification_key_id, message_id, event_type, subtype, body) VALUES ('org-demo', $1, $2, 'task', 'finished', $3)`,
        [DEMO_NOTIFICATION_KEY_ID, id, JSON.stringify({ type: 'task', subtype: 'finished', timestamp: '2026-01-01T00:00:00.000Z', data: { id } })],
      );
    }
    await db.close();

    // The time from the signal to the forced exit: its last quarter is for handing back and closing. On PostgreSQL the
    // test lets the held export through within that quarter; 4 s gives it a second.
    const shutdownSeconds = kind === 'postgres' ? 4 : 2;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let output = '';
    const start = (): ChildProcess => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
        env: {
          ...process.env,
          ...PROCESS_ENV,
          PORT: String(port),
          DATA_DIR: store.dataDir,
          DATABASE_URL: store.databaseUrl ?? '',
          SEED: 'false',
          LOG_LEVEL: 'info',
          JOB_POLL_MS: '100',
          WEBHOOK_ALLOW_PRIVATE: 'true',
          // A task left claimed would wait an hour for its lease: only one handed back is taken over within the test.
          JOB_LEASE_SECONDS: '3600',
          SHUTDOWN_TIMEOUT_SECONDS: String(shutdownSeconds),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (c: Buffer) => void (output += c.toString()));
      child.stderr!.on('data', (c: Buffer) => void (output += c.toString()));
      cleanups.push(() => void child.kill('SIGKILL'));
      return child;
    };
    const exited = (child: ChildProcess) =>
      new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
    const up = () => until('the server', async () => ((await fetch(`${base}/api/health`)).ok ? true : undefined), 120_000, 200);

    let server = start();
    await up();
    const signin = await (
      await fetch(`${base}/api/identity/sso/signin/direct/cube/offline-access`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: DEMO.admin, password: DEMO_PASSWORD, verificationCode: TEST_CODE, agreeTerms: true }),
      })
    ).json();
    const token = signin.data.user.token as string;
    const headers = { authorization: `Bearer ${token}`, partnercode: SCALE_ORG.code, 'content-type': 'application/json' };

    // A live stream, open while the server stops.
    const stream = await fetch(`${base}/api/identity/sse/connect?userId=${signin.data.user.id}`, {
      headers: { authorization: `Bearer ${token}`, partnercode: signin.data.customData.partner_code },
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: ready');

    const started = await (await fetch(`${base}/api/main/sim/list/export/task`, { method: 'POST', headers, body: JSON.stringify({ format: 'xlsx' }) })).json();
    expect(started.data.quantity).toBe(100_000);
    const taskId = started.data.taskId as string;
    const taskNow = async () => (await (await fetch(`${base}/api/job/rest/job/my/${taskId}`, { headers })).json()).data as { status: string; progress: number };

    // In flight: the receiver holds the first delivery's request, the export is writing rows.
    await until('a delivery at the receiver', async () => (rx.received.length > 0 ? true : undefined), 60_000);
    const midway = await until(
      'the export under way',
      async () => {
        const t = await taskNow();
        return t.status === 'processing' && t.progress > 0 ? t : undefined;
      },
      60_000,
      20,
    );
    expect(midway.progress).toBeLessThan(100);
    // On PostgreSQL, held at its next progress report: it cannot end before the server hands it back.
    const hold = store.databaseUrl ? await holdTaskRow(store.databaseUrl, taskId) : null;
    if (hold) {
      cleanups.push(() => hold.release().catch(() => undefined));
      await until('the export waiting at its progress report', async () => ((await hold.waiting()) >= 1 ? true : undefined), 60_000, 20);
      expect(await taskNow()).toMatchObject({ status: 'processing' });
    }

    server.kill('SIGTERM');
    // The stream ends (the server closes it) rather than holding the exit.
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
    if (hold) {
      // The grace is over: the hand-back waits behind the held report. Both go on now.
      await until('the hand-back waiting behind the held export', async () => ((await hold.waiting()) >= 2 ? true : undefined), 60_000, 20);
      await hold.release();
    }
    expect(await exited(server), output).toBe(0);

    // What was in flight is back in the database, unclaimed and not counted as an attempt (and the embedded database
    // opens again as it was left).
    db = await store.open();
    const task = (
      await db.query<{ status: string; claimed_by: string | null; attempts: number }>('SELECT status, claimed_by, attempts FROM tasks WHERE id = $1', [taskId])
    ).rows[0];
    expect(task).toEqual({ status: 'processing', claimed_by: null, attempts: 0 });
    const log = (await db.query<{ message: string }>('SELECT message FROM task_logs WHERE task_id = $1 ORDER BY id', [taskId])).rows.map((r) => r.message);
    expect(log).toEqual(['claimed', 'handedBack']);
    const deliveries = async () =>
      (
        await db.query<{ message_id: string; status: string; attempt: number; lease_owner: string | null }>(
          'SELECT message_id, status, attempt, lease_owner FROM webhook_deliveries WHERE message_id = ANY($1::text[]) ORDER BY message_id',
          [messageIds],
        )
      ).rows;
    expect(await deliveries()).toEqual(messageIds.map((message_id) => ({ message_id, status: 'pending', attempt: 0, lease_owner: null })));
    expect((await db.query('SELECT 1 FROM notification_logs WHERE message_id = ANY($1::text[])', [messageIds])).rows).toEqual([]);
    await db.close();

    // The next instance, with the receiver answering: every delivery made, the export finished.
    const heldBefore = rx.received.length;
    rx.hangUp(false);
    output = '';
    server = start();
    await up();
    await until(
      'the deliveries',
      async () => {
        const got = new Set(rx.received.slice(heldBefore).map((r) => r.headers['webhook-id']));
        return messageIds.every((id) => got.has(id)) ? true : undefined;
      },
      60_000,
      100,
    );
    const end = await until(
      'the export to end',
      async () => {
        const t = await taskNow();
        return t.status === 'processing' ? undefined : t;
      },
      180_000,
      200,
    );
    expect(end.status).toBe('done');

    server.kill('SIGTERM');
    expect(await exited(server), output).toBe(0);
    db = await store.open();
    expect(await deliveries()).toEqual(messageIds.map((message_id) => ({ message_id, status: 'delivered', attempt: 1, lease_owner: null })));
    expect((await db.query<{ http_code: number }>('SELECT http_code FROM notification_logs WHERE message_id = ANY($1::text[])', [messageIds])).rows).toEqual(
      messageIds.map(() => ({ http_code: 200 })),
    );
    await db.close();
  }, 420_000);
});
