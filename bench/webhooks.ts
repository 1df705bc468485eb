/**
 * Bench of the developer platform: how long an event takes to reach a webhook receiver (from the commit of
 * its change to the receiver's first byte of it), how many deliveries per second one instance makes, and what the
 * public API's key costs beside the console's own token on the same call. A real HTTPS receiver on this machine with
 * a certificate made by openssl and trusted through NODE_EXTRA_CA_CERTS, so this script starts itself again with it set.
 *
 *   node --import tsx bench/webhooks.ts     (BENCH_DB=pglite|postgres|both, BENCH_EVENTS, default 1,000)
 *   BENCH_DB=postgres BENCH_SPREAD_ONLY=1 node --import tsx bench/webhooks.ts   (only one against three instances)
 *
 * On PostgreSQL it also measures the default poll beside a transaction held open for BENCH_HOLD_SECONDS (60; 0 leaves
 * it out) in another database of the same server, as a nightly pg_dump or a long report would hold one.
 *
 * Writes its section, "Webhooks and the public API", into bench/results.md, keeping the others. Not a test.
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { importPKCS8, SignJWT } from 'jose';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { migrate } from '../server/db/db.js';
import { benchDatabases, openBenchDb as openDb } from './bench-db.js';
import { writeSection } from './results-file.js';
import { seedDemo } from '../server/db/seed.js';
import { appendEvents, startConsumer } from '../server/events/event-log.js';
import { startRelay } from '../server/events/relay.js';
import { newId } from '../server/db/ids.js';
import { CONSUMER, queueDeliveries, WebhookDispatcher } from '../server/developer/webhooks.js';
import { answersOn, deleteStream, startCluster } from './throughput.js';
import { makeSelfSignedCertificate, trustedWith } from '../scripts/self-signed.js';

const SECTION = '## Webhooks and the public API';
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const HOLD_SECONDS = Number(process.env.BENCH_HOLD_SECONDS ?? 60);
const SPREAD_EVENTS = Number(process.env.BENCH_SPREAD_EVENTS ?? 10_000);
/** BENCH_SPREAD_ONLY=1: only the deliveries by one and by three instances (PostgreSQL, NATS). */
const SPREAD_ONLY = process.env.BENCH_SPREAD_ONLY === '1';

/**
 * A transaction open for `seconds` in a database of its own on the bench's PostgreSQL server (it holds the server's
 * oldest running transaction back). end() waits for the rest of its time, commits it and drops the database; openFor()
 * tells how long it has been open.
 */
async function holdTransaction(seconds: number) {
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  const name = `bench_hold_${newId(8).toLowerCase()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const held = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:5432/${name}` });
  await held.connect();
  await held.query('BEGIN');
  await held.query('SELECT txid_current()');
  const since = performance.now();
  return {
    openFor: () => performance.now() - since,
    end: async () => {
      const left = seconds * 1000 - (performance.now() - since);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
      await held.query('COMMIT');
      await held.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

if (!process.env.BENCH_TLS_DIR) {
  // Trust a receiver certificate made now, beside any extra certificates already trusted: Node reads
  // NODE_EXTRA_CA_CERTS (one file) only when it starts.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tls-'));
  const trusted = trustedWith(dir, makeSelfSignedCertificate(dir, 1).cert);
  const r = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, NODE_EXTRA_CA_CERTS: trusted, BENCH_TLS_DIR: dir },
  });
  process.exit(r.status ?? 1);
}

const natsAnswers = () => answersOn(4222);

const quiet = { info() {}, warn() {}, error() {}, debug() {}, child: () => quiet } as never;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * p) - 1))];
};

async function benchOne(kind: 'pglite' | 'postgres'): Promise<string[]> {
  const { db, url: databaseUrl, drop } = await openDb(kind);
  const dir = process.env.BENCH_TLS_DIR!;
  const arrived = new Map<string, number>();
  const receiver = https.createServer({ key: fs.readFileSync(`${dir}/key.pem`), cert: fs.readFileSync(`${dir}/cert.pem`) }, (req, res) => {
    const id = String(req.headers['webhook-id']);
    if (!arrived.has(id)) arrived.set(id, performance.now());
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `https://localhost:${(receiver.address() as AddressInfo).port}/hook`;
  const rows: string[] = [];
  try {
    await migrate(db);
    await seedDemo(db, { size: 'small' });
    const config = loadConfig({ VERIFICATION_CODE: '246810', NODE_ENV: 'test' } as NodeJS.ProcessEnv, {
      consoleDir: '/nonexistent',
      simulator: false,
      jobs: false,
      dataDir: fs.mkdtempSync('/tmp/bench-files-'),
      webhookAllowPrivate: true,
      rateLimits: { api: 1e9, signIn: 1e9, captcha: 1e9, passwordReset: 1e9, telemetry: 1e9 },
    });
    const app = await buildApp({ config, db, logger: false });
    await app.ready();
    await db.query(
      `UPDATE notification_keys SET webhook_url = $1, status = 'enabled' WHERE id = (SELECT id FROM notification_keys WHERE org_id = 'org-demo' LIMIT 1)`,
      [url],
    );

    // Event to receiver, at the server's default poll (1 s, JOB_POLL_MS) and at 100 ms; on PostgreSQL at 1 s again
    // beside a transaction held open in another database.
    const runs: Array<{ pollMs: number; hold: number }> = SPREAD_ONLY
      ? []
      : [
          { pollMs: 1000, hold: 0 },
          { pollMs: 100, hold: 0 },
        ];
    if (kind === 'postgres' && HOLD_SECONDS > 0 && !SPREAD_ONLY) runs.push({ pollMs: 1000, hold: HOLD_SECONDS });
    /** EVENTS events appended one transaction each, timed to their arrival at the receiver: one row of the table. */
    const measure = async (what: string, hold: number) => {
      const held = hold ? await holdTransaction(hold) : null;
      arrived.clear();
      const committed = new Map<string, number>();
      const t0 = performance.now();
      for (let i = 0; i < EVENTS; i++) {
        const r = await db.tx(async (q) => {
          await appendEvents(q, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject: `bench-${i}` }]);
          return (await q.query<{ id: string }>('SELECT max(id)::text AS id FROM events')).rows[0].id;
        });
        committed.set(`evt_${r}`, performance.now());
      }
      const deadline = performance.now() + 120_000;
      while ([...committed.keys()].some((id) => !arrived.has(id)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (arrived.size < committed.size) {
        // What became of the others: the deliveries' states and the last errors their attempts logged.
        const states = await db.query(`SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status`);
        const errors = await db.query(
          `SELECT http_code, error, count(*)::int AS n FROM notification_logs WHERE http_code IS DISTINCT FROM 200 GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 5`,
        );
        console.log(
          `webhooks bench (${kind}, ${what}): ${committed.size - arrived.size} events did not arrive`,
          JSON.stringify(states.rows),
          JSON.stringify(errors.rows),
        );
      }
      const lat = [...committed].filter(([id]) => arrived.has(id)).map(([id, at]) => arrived.get(id)! - at);
      const span = Math.max(...[...arrived.values()]) - t0;
      // Still open when the last event arrived: every event was delivered beside it.
      const openAtEnd = held ? held.openFor() / 1000 : 0;
      await held?.end();
      const beside = held ? `, beside a ${hold} s transaction in another database (open ${openAtEnd.toFixed(0)} s when the last arrived)` : '';
      rows.push(
        `| ${kind} | ${EVENTS.toLocaleString('en-US')} events, ${what}${beside} | event → receiver | ${pct(lat, 0.5).toFixed(0)} | ${pct(lat, 0.95).toFixed(0)} | ${(lat.length / (span / 1000)).toFixed(0)} deliveries/s (${lat.length} of ${EVENTS} arrived) |`,
      );
    };

    for (const { pollMs, hold } of runs) {
      // Wired as the server wires them (server/plugins/app/lifecycles.ts): the relay poked by the consumer's rounds, the
      // dispatcher woken when the consumer has queued deliveries.
      const dispatcher = new WebhookDispatcher(db, quiet, { allowPrivate: () => true, mailer: app.mailer, pollMs, batch: 50 });
      const relay = startRelay(db, quiet, { pollMs });
      const consumer = startConsumer(db, quiet, { name: CONSUMER, handle: queueDeliveries, pollMs, relay, onCommitted: () => dispatcher.wake() });
      await consumer.poke();
      dispatcher.start();
      await measure(`poll ${pollMs} ms`, hold);
      await dispatcher.stop();
      await consumer.stop();
      await relay.stop();
    }

    // The JetStream path: an instance with NATS_URL (a stream of its own) running its consumers and dispatcher as the
    // server does, at the default poll; on PostgreSQL also beside the held transaction.
    if (!SPREAD_ONLY && (await natsAnswers())) {
      const stream = `BENCH_${newId(8).toUpperCase()}`;
      const onNats = await buildApp({
        config: { ...config, jobs: true, natsUrl: 'nats://127.0.0.1:4222', natsStream: stream, jobPollMs: 1000 },
        db,
        logger: false,
      });
      await onNats.ready();
      try {
        // Its consumers exist once a first event has gone all the way through.
        arrived.clear();
        await appendEvents(db, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject: 'bench-warm-up' }]);
        const ready = performance.now() + 60_000;
        while (arrived.size === 0 && performance.now() < ready) await new Promise((r) => setTimeout(r, 50));
        await measure('JetStream (NATS), default poll', 0);
        if (kind === 'postgres' && HOLD_SECONDS > 0) await measure('JetStream (NATS), default poll', HOLD_SECONDS);
      } finally {
        await onNats.close();
        await deleteStream(stream);
      }
    }

    // Deliveries per second with one and with three instances (processes of their own, npm run cluster) sharing the
    // stream: SPREAD_EVENTS events committed at once, timed from the first commit to the last arrival.
    if (kind === 'postgres' && (await natsAnswers()) && fs.existsSync('/usr/sbin/haproxy')) {
      const rates = new Map<number, number>();
      for (const n of [1, 3]) {
        const stream = `BENCH_${newId(8).toUpperCase()}`;
        const cluster = await startCluster(databaseUrl, n, {
          JOBS: 'on',
          NATS_URL: 'nats://127.0.0.1:4222',
          NATS_STREAM: stream,
          WEBHOOK_ALLOW_PRIVATE: 'true',
          NODE_ENV: 'test',
        });
        try {
          arrived.clear();
          await appendEvents(db, [{ orgId: 'org-demo', type: 'task', subtype: 'finished', subject: 'bench-warm-up' }]);
          const ready = performance.now() + 120_000;
          while (arrived.size === 0 && performance.now() < ready) await new Promise((r) => setTimeout(r, 50));
          arrived.clear();
          const ids: string[] = [];
          const t0 = performance.now();
          for (let i = 0; i < SPREAD_EVENTS; i += 100) {
            const subjects = Array.from({ length: 100 }, (_, j) => `spread-${n}-${i + j}`);
            const made = await db.tx(async (q) => {
              await appendEvents(
                q,
                subjects.map((subject) => ({ orgId: 'org-demo', type: 'task' as const, subtype: 'finished', subject })),
              );
              return (await q.query<{ id: string }>(`SELECT id::text AS id FROM events WHERE subject = ANY($1::text[])`, [subjects])).rows.map(
                (r) => `evt_${r.id}`,
              );
            });
            ids.push(...made);
          }
          const deadline = performance.now() + 300_000;
          while (ids.some((id) => !arrived.has(id)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
          const got = ids.filter((id) => arrived.has(id)).length;
          const seconds = (Math.max(...ids.map((id) => arrived.get(id) ?? 0)) - t0) / 1000;
          rates.set(n, got / seconds);
          const ratio = n > 1 && rates.get(1) ? `, ${(got / seconds / rates.get(1)!).toFixed(2)}x one instance` : '';
          rows.push(
            `| ${kind} | ${SPREAD_EVENTS.toLocaleString('en-US')} events at once, ${n} instance${n > 1 ? 's' : ''} on one JetStream stream | first commit → last arrival (ms) | ${(seconds * 1000).toFixed(0)} | | ${(got / seconds).toFixed(0)} deliveries/s (${got} of ${SPREAD_EVENTS} arrived${ratio}) |`,
          );
          console.log(rows.at(-1));
        } finally {
          await cluster.stop();
          await deleteStream(stream);
        }
      }
    }

    // The same call with the console's token and with an API key's JWT (a new JWT per call, as a careful caller signs).
    const login = await app.inject({
      method: 'POST',
      url: '/api/identity/sso/signin/direct/cube/offline-access',
      payload: { username: 'admin@demo.example.com', password: 'Demo#2026', verificationCode: '246810', agreeTerms: true },
    });
    const token = login.json().data.user.token as string;
    const made = await app.inject({
      method: 'POST',
      url: '/api/main/developer/key/api',
      payload: {},
      headers: { authorization: `Bearer ${token}`, partnercode: 'DEMO' },
    });
    const { keyId, privateKey } = made.json().data as { keyId: string; privateKey: string };
    const signer = await importPKCS8(privateKey, 'RS256');
    const consoleCall = () =>
      app.inject({
        method: 'POST',
        url: '/api/main/sim/list/es',
        payload: { pageSize: 20 },
        headers: { authorization: `Bearer ${token}`, partnercode: 'DEMO' },
      });
    const publicCall = async () => {
      const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'RS256' }).setIssuer(keyId).setIssuedAt().setExpirationTime('2m').sign(signer);
      return app.inject({ method: 'POST', url: '/api/public/v1/sims/list', payload: { pageSize: 20 }, headers: { authorization: `Bearer ${jwt}` } });
    };
    const time = async (fn: () => Promise<{ statusCode: number }>) => {
      for (let i = 0; i < 10; i++) await fn();
      const ms: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        const r = await fn();
        ms.push(performance.now() - t);
        if (r.statusCode !== 200) throw new Error(`answered ${r.statusCode}`);
      }
      return { p50: pct(ms, 0.5), p95: pct(ms, 0.95) };
    };
    if (!SPREAD_ONLY) {
      const c = await time(consoleCall);
      const p = await time(publicCall);
      rows.push(`| ${kind} | SIM list, 20 rows, ${RUNS} calls | console token | ${c.p50.toFixed(1)} | ${c.p95.toFixed(1)} | |`);
      rows.push(
        `| ${kind} | SIM list, 20 rows, ${RUNS} calls | API key JWT (signed per call, logged) | ${p.p50.toFixed(1)} | ${p.p95.toFixed(1)} | ${(p.p50 / c.p50).toFixed(2)}x the console's p50 |`,
      );
    }
    await app.close();
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    await drop();
  }
  return rows;
}

const rows: string[] = [];
const kinds = await benchDatabases();
for (const kind of kinds) rows.push(...(await benchOne(kind)));

writeSection({
  title: SECTION,
  intro: [
    `Written by \`node --import tsx bench/webhooks.ts\` on ${new Date().toISOString().slice(0, 10)}, on the demo seed. "event → receiver" is`,
    'milliseconds from the commit of an event to its first byte at a local HTTPS receiver (through the event log, its relay, the',
    "`webhooks` consumer, the delivery table and one dispatcher), at the server's default poll (JOB_POLL_MS, 1 s) and at 100 ms,",
    `and on PostgreSQL at 1 s beside a transaction held open for ${HOLD_SECONDS} s in another database of the same server;`,
    'the "JetStream" rows are an instance with NATS_URL (its own stream) whose relay publishes the outbox to NATS and whose',
    'durable consumer queues the deliveries, as a server with NATS runs;',
    'events are appended one transaction each, as changes happen. The public API rows time the same SIM list call with the',
    "console's token and with an API key's JWT signed for each call (the key looked up, RS256 verified, the call logged).",
  ],
  table: ['| database | size | what | p50 ms | p95 ms | rate / ratio |', '|---|---|---|---:|---:|---|'],
  // The rows of a database this run did not measure (BENCH_DB=postgres) stay as they were.
  // With BENCH_SPREAD_ONLY only the rows of many instances are replaced.
  rows: (old) => [
    ...(SPREAD_ONLY ? old.filter((l) => !l.includes('events at once')) : []),
    ...rows,
    ...(SPREAD_ONLY ? [] : old.filter((l) => !kinds.some((k) => l.startsWith(`| ${k} |`)))),
  ],
});
process.exit(0);
