/**
 * npm run bench: the list and summary calls at scale, p50/p95 through the real API (fastify.inject, signed in, with
 * the permission and tenancy checks) beside the bare SQL of the same query (the limit). Writes bench/results.md.
 *
 * BENCH_DB=pglite|postgres|both (default: both when PostgreSQL answers on 127.0.0.1:5432), BENCH_SIMS (default
 * 1,000,000), BENCH_CDRS (default 10,000,000 on PostgreSQL, 1,000,000 on PGlite), BENCH_RUNS (default 20).
 * BENCH_ONLY=calls|smslist|jobs|snapshots|exports|transfer|activation|sms|cycles|throughput|lighthouse|webhooks|autoflow|pools (comma-separated; default all) runs those parts only
 * (smslist: BENCH_SMS sms_records in the scale organisation, default 10,000,000 on PostgreSQL, 1,000,000 on PGlite)
 * and merges its rows into bench/results.md, keeping the others. Run with node --expose-gc (npm run bench does) so
 * each export's peak RSS is measured from a collected heap.
 * Not a test: nothing here passes or fails; the sizes are written beside each figure.
 */
import { spawnSync } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildApp } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { migrate, openPostgres } from '../server/db/db.js';
import { newId } from '../server/db/ids.js';
import { listPage } from '../server/db/listing.js';
import { listQueryOf } from '../server/schema/resource-routes.js';
import { listSpecOf, snake } from '../server/schema/schema-repo.js';
import { seedDemo } from '../server/db/seed.js';
import { RESOURCES } from '../common/resource-registry.js';
import { benchDatabases, openBenchDb } from './bench-db.js';
import { scaleSeed, SCALE_ORG } from './scale-seed.js';
import { smsSeed } from './sms-seed.js';
import { SMS_LIST_SPEC } from '../server/sms/sms-repo.js';
import { smsFilters } from '../server/sms/sms-routes.js';
import { rollCycles, ROLL_BATCH } from '../server/bundles/bundle-engine.js';
import { makeIccid } from '../common/iccid.js';
import { readUpload } from '../server/job/sheet-files.js';
import { bucketsOf, type View } from '../server/dashboard/dashboard-routes.js';
import { xlsxWriter } from '../server/job/table-writers.js';
import { lighthouseSection } from './lighthouse.js';
import { answersOn, loadApi, loadDirect, startCluster, THROUGHPUT_HEAD, throughputLine, type LoadFigures, type ThroughputRow } from './throughput.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const JOB_PARTS = ['snapshots', 'exports', 'transfer', 'activation', 'sms', 'cycles'];
/** Is this part of the bench to run (BENCH_ONLY)? */
const runs = (part: string) => ONLY.size === 0 || ONLY.has(part) || (JOB_PARTS.includes(part) && ONLY.has('jobs'));

/** The peak of the process's resident set while fn runs, over what it was when fn started (sampled every 5 ms). */
async function peakRss(fn: () => Promise<unknown>): Promise<number> {
  (globalThis as { gc?: () => void }).gc?.();
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, process.memoryUsage.rss()) - start;
}
const CODE = '246810';

async function time(fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  await fn(); // warm
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length * 0.5)], p95: ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.95) - 1)] };
}

/** One long piece of work (a job, a parse), timed once, beside the limit of the same work. */
interface JobRow {
  db: string;
  size: string;
  what: string;
  ms: number;
  limit: string;
  limitMs: number;
  /** Peak RSS over the start, in bytes, where measured. */
  rss?: number;
}
const jobRows: JobRow[] = [];
const throughputRows: ThroughputRow[] = [];

interface Row {
  db: string;
  size: string;
  what: string;
  api: { p50: number; p95: number };
  sql: { p50: number; p95: number };
}

async function benchOne(kind: 'pglite' | 'postgres', sims: number, cdrs: number, smsCount: number): Promise<Row[]> {
  const { db, url, drop } = await openBenchDb(kind);
  try {
    await migrate(db);
    await seedDemo(db, { size: 'small' });
    const t0 = performance.now();
    await scaleSeed(db, { sims, cdrs });
    console.log(
      `${kind}: seeded ${sims.toLocaleString('en-US')} SIMs and ${cdrs.toLocaleString('en-US')} CDRs in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    if (runs('smslist')) {
      const t1 = performance.now();
      await smsSeed(db, { count: smsCount, sims, log: (l) => console.log(`${kind}: ${l} (${((performance.now() - t1) / 1000).toFixed(0)} s)`) });
      console.log(`${kind}: seeded ${smsCount.toLocaleString('en-US')} SMS in ${((performance.now() - t1) / 1000).toFixed(0)} s`);
    }

    // No job worker and no files of the checkout's own data folder: the bench times calls, not background work.
    // The API's rate limit raised out of the way of the load below (each call still counts itself in the database).
    const config = loadConfig({ VERIFICATION_CODE: CODE, NODE_ENV: 'test', RATE_LIMIT_PER_MINUTE: '1000000000' } as NodeJS.ProcessEnv, {
      consoleDir: '/nonexistent',
      simulator: false,
      jobs: false,
      dataDir: fs.mkdtempSync('/tmp/bench-files-'),
    });
    const app = await buildApp({ config, db, logger: false });
    await app.ready();
    const login = await app.inject({
      method: 'POST',
      url: '/api/identity/sso/signin/direct/cube/offline-access',
      payload: { username: 'admin@demo.example.com', password: 'Demo#2026', verificationCode: CODE, agreeTerms: true },
    });
    const token = login.json().data.user.token as string;
    const headers = { authorization: `Bearer ${token}`, partnercode: SCALE_ORG.code, language: 'en-US', timezone: 'UTC' };
    const post = (url: string, payload: object) => async () => {
      const r = await app.inject({ method: 'POST', url, payload, headers });
      if (r.statusCode !== 200) throw new Error(`${url} answered ${r.statusCode}: ${r.body}`);
    };
    const sims1000 = (
      await db.query<{ iccid: string }>('SELECT iccid FROM sims WHERE org_id = $1 ORDER BY id LIMIT 1000 OFFSET 5000', [SCALE_ORG.id])
    ).rows.map((r) => r.iccid);
    const suffix = sims1000[17].slice(-6);
    const latest = (await db.query<{ at: Date | null }>('SELECT max(start_at) AS at FROM cdrs WHERE org_id = $1', [SCALE_ORG.id])).rows[0].at ?? new Date();
    const to = latest.toISOString().slice(0, 10);
    const from = new Date(latest.getTime() - 30 * 86_400_000).toISOString().slice(0, 10);

    const simSpec = listSpecOf(RESOURCES.sims);
    const bare = (body: Record<string, unknown>) => () => listPage(db, simSpec, SCALE_ORG.id, listQueryOf(RESOURCES.sims, { page: 1, pageSize: 20, ...body }));
    const cursor500 = await (async () => {
      let c: string | null = null;
      for (let i = 0; i < 500; i++) c = (await listPage(db, simSpec, SCALE_ORG.id, { pageSize: 20, cursor: c ?? undefined })).nextCursor;
      return c!;
    })();
    const size = `${sims.toLocaleString('en-US')} SIMs, ${cdrs.toLocaleString('en-US')} CDRs`;
    const rows: Row[] = [];
    const add = async (what: string, api: () => Promise<unknown>, sql: () => Promise<unknown>) => {
      rows.push({ db: kind, size, what, api: await time(api), sql: await time(sql) });
      console.log(`${kind}: ${what} done`);
    };
    if (runs('calls')) {
      await add('SIM list, page 1', post('/api/main/sim/list/es', { pageSize: 20 }), bare({}));
      await add('SIM list, page 501 by cursor', post('/api/main/sim/list/es', { pageSize: 20, cursor: cursor500 }), bare({ cursor: cursor500 }));
      await add('SIM list, page 501 by page number', post('/api/main/sim/list/es', { pageSize: 20, page: 501 }), bare({ page: 501 }));
      await add(
        'SIM search by the last 6 ICCID digits',
        post('/api/main/sim/list/es', { search: { field: 'iccid', value: suffix } }),
        bare({ search: { field: 'iccid', value: suffix } }),
      );
      await add('SIM bulk search, 1000 ICCIDs', post('/api/main/sim/list/es', { iccids: sims1000 }), bare({ iccids: sims1000 }));
      await add('CDR volume summary, 31 days', post(`/api/cdr/sum/distributor/${SCALE_ORG.code}/stdcdrs`, { from, to }), () =>
        db.query(
          `SELECT d.day, sum(h.volume_kb) FROM generate_series($2::date, $3::date, interval '1 day') d(day)
             LEFT JOIN usage_hourly h ON h.org_id = $1 AND h.hour >= d.day AT TIME ZONE 'UTC' AND h.hour < (d.day + interval '1 day') AT TIME ZONE 'UTC'
            GROUP BY d.day`,
          [SCALE_ORG.id, from, to],
        ),
      );
    }
    // All SMS at scale: page 1 and a filtered page (ICCID's last 4 digits, delivered, the last 30 days), through the
    // API (the page, its capped count, and the reply threads of its 20 rows) beside the page and count alone.
    if (runs('smslist')) {
      const smsSize = `${smsCount.toLocaleString('en-US')} SMS, ${sims.toLocaleString('en-US')} SIMs`;
      const bareSms = (body: Record<string, unknown>) => () => listPage(db, SMS_LIST_SPEC, SCALE_ORG.id, { page: 1, pageSize: 20, filters: smsFilters(body) });
      const smsPages: [string, Record<string, unknown>][] = [
        ['All SMS, page 1', {}],
        [
          'All SMS filtered: ICCID ends in 4 digits, delivered, last 30 days',
          {
            search: { field: 'iccid', value: sims1000[17].slice(-4) },
            status: 'delivered',
            createdAtFrom: new Date(Date.now() - 30 * 86_400_000).toISOString(),
            createdAtTo: new Date().toISOString(),
          },
        ],
      ];
      for (const [what, body] of smsPages) {
        rows.push({
          db: kind,
          size: smsSize,
          what,
          api: await time(post('/api/main/sms/list', { page: 1, pageSize: 20, ...body })),
          sql: await time(bareSms(body)),
        });
        console.log(`${kind}: ${what} done`);
      }
    }
    // The dashboard's calls beside the main query of each (bucketsOf gives the same windows the server uses).
    const getc = (url: string) => async () => {
      const r = await app.inject({ method: 'GET', url, headers });
      if (r.statusCode !== 200) throw new Error(`${url} answered ${r.statusCode}: ${r.body}`);
    };
    const win = (view: View) => {
      const b = bucketsOf(view, new Date());
      return [b[0].start.toISOString(), b.at(-1)!.end.toISOString()];
    };
    const snapshotOf = (what: 'rank' | 'heatmap', view: View) => () =>
      db.query('SELECT as_of, body FROM dashboard_snapshots WHERE org_id = $1 AND kind = $2 AND view = $3', [SCALE_ORG.id, what, view]);
    if (runs('calls')) {
      for (const view of ['24h', 'week', '6months'] as const) {
        const [a, b] = win(view);
        await add(`dashboard card (${view})`, getc(`/api/main/dashboard/card?view=${view}`), () =>
          db.query('SELECT sum(volume_kb), sum(sms_mo + sms_mt) FROM usage_hourly WHERE org_id = $1 AND hour >= $2 AND hour < $3', [SCALE_ORG.id, a, b]),
        );
        await add(`dashboard statistics (${view})`, getc(`/api/main/dashboard/statistics?view=${view}`), () =>
          db.query('SELECT hour, volume_kb FROM usage_hourly WHERE org_id = $1 AND hour >= $2 AND hour < $3', [SCALE_ORG.id, a, b]),
        );
        // The scale organisation is far above DASHBOARD_LIVE_SIMS: its top 10 and heatmap are read from their snapshot
        // (the warm-up call computes it); the work of computing one is timed below, under "Jobs".
        await add(`dashboard rank (${view}), snapshot`, getc(`/api/main/dashboard/rank?view=${view}`), snapshotOf('rank', view));
      }
      for (const view of ['24h', '6months'] as const) {
        await add(`dashboard heatmap (${view}), snapshot`, getc(`/api/main/dashboard/heatmap?view=${view}`), snapshotOf('heatmap', view));
      }
      await add('dashboard lifecycle counts', getc('/api/main/dashboard/lifecycleCount'), () =>
        db.query('SELECT status, n FROM sim_status_counts WHERE org_id = $1', [SCALE_ORG.id]),
      );
      await add('dashboard SMS usage (week)', getc('/api/main/sms/usage?view=week'), () =>
        db.query('SELECT sum(sms_mo), sum(sms_mt) FROM usage_hourly WHERE org_id = $1 AND hour >= $2 AND hour < $3', [SCALE_ORG.id, ...win('week')]),
      );
    }

    // Jobs: each is seconds of work, timed once through the worker, beside what the database alone takes.
    const once = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };

    // A snapshot's refresh: the same call computed live (the limit raised for the moment), beside its bare aggregate.
    config.dashboardLiveSims = Number.MAX_SAFE_INTEGER;
    for (const view of runs('snapshots') ? (['24h', 'week', '6months'] as const) : []) {
      const [a, b] = win(view);
      const rankMs = await once(getc(`/api/main/dashboard/rank?view=${view}`));
      const rankSql = await once(() =>
        view === '6months'
          ? db.query(
              "SELECT sim_id, sum(volume_kb) AS kb FROM usage_sim_monthly WHERE org_id = $1 AND month >= ($2::timestamptz AT TIME ZONE 'Asia/Shanghai')::date GROUP BY sim_id ORDER BY kb DESC LIMIT 10",
              [SCALE_ORG.id, a],
            )
          : db.query(
              'SELECT sim_id, sum(volume_kb) AS kb FROM usage_sim_hourly WHERE org_id = $1 AND hour >= $2 AND hour < $3 GROUP BY sim_id ORDER BY kb DESC LIMIT 10',
              [SCALE_ORG.id, a, b],
            ),
      );
      jobRows.push({
        db: kind,
        size,
        what: `dashboard top 10 (${view}) computed, as a snapshot refresh does`,
        ms: rankMs,
        limit: 'its aggregate alone',
        limitMs: rankSql,
      });
      const mapMs = await once(getc(`/api/main/dashboard/heatmap?view=${view}`));
      const mapSql = await once(() =>
        db.query('SELECT floor(lat / 0.5), floor(lon / 0.5), count(*) FROM sims WHERE org_id = $1 AND lat IS NOT NULL GROUP BY 1, 2', [SCALE_ORG.id]),
      );
      jobRows.push({
        db: kind,
        size,
        what: `dashboard heatmap (${view}) computed, as a snapshot refresh does`,
        ms: mapMs,
        limit: 'SIMs per cell alone, without usage',
        limitMs: mapSql,
      });
    }
    config.dashboardLiveSims = 50_000;
    if (runs('exports')) {
      // The export of at most 100,000 SIMs (the limit): the whole organisation up to 100,000 SIMs, its paused tenth
      // above; and far fewer (the paused tenth; above 100,000 SIMs, the paused ICCIDs ending in 17), to see whether the
      // export's memory grows with its rows.
      const cols = RESOURCES.sims['x-admin'].list.columns.map((c) => snake(c)).join(', ');
      const whole = sims <= 100_000;
      const big: Record<string, unknown> = whole ? {} : { status: 'paused' };
      const small: Record<string, unknown> = whole ? { status: 'paused' } : { ...big, search: { field: 'iccid', value: '17' } };
      const rowsOf = `SELECT ${cols} FROM sims WHERE org_id = '${SCALE_ORG.id}'${whole ? '' : " AND status = 'paused'"} ORDER BY iccid`;
      const copyTarget = kind === 'pglite' ? "'/dev/blob'" : `'/tmp/bench-copy-${newId(8)}.csv'`;
      // On a shared machine one timing is noise: the median of three, for the COPY and for each export.
      const median3 = async (fn: () => Promise<number>) => {
        const ms = [await fn(), await fn(), await fn()].sort((a, b) => a - b);
        return ms[1];
      };
      // The COPY is timed right before each timed export, so that both meet the same load; the median of each.
      const copy = () => once(() => db.query(`COPY (${rowsOf}) TO ${copyTarget} WITH (FORMAT csv, HEADER)`));
      for (const [filter, timed] of [
        [small, false],
        [big, true],
      ] as const) {
        for (const format of ['csv', 'xlsx'] as const) {
          let n = 0;
          let rss = 0;
          const copies: number[] = [];
          const ms = await median3(async () => {
            if (timed) copies.push(await copy());
            const r = await app.inject({ method: 'POST', url: '/api/main/sim/list/export/task', payload: { format, ...filter }, headers });
            if (r.statusCode !== 200) throw new Error(`export answered ${r.statusCode}: ${r.body}`);
            n = r.json().data.quantity as number;
            let one = 0;
            rss = Math.max(
              rss,
              await peakRss(async () => {
                one = await once(() => app.jobs.runOnce());
              }),
            );
            return one;
          });
          jobRows.push({
            db: kind,
            size,
            what: `export of ${n.toLocaleString('en-US')} SIMs as ${format.toUpperCase()} (job)`,
            ms,
            limit: timed ? 'COPY of the same rows to CSV' : '',
            limitMs: timed ? copies.sort((a, b) => a - b)[1] : NaN,
            rss,
          });
          console.log(`${kind}: export of ${n} as ${format} in ${ms.toFixed(0)} ms, peak RSS +${(rss / 1048576).toFixed(1)} MB`);
        }
      }
    }
    // Transfer check of a 100,000-row file: read, judge each row against the database; beside reading alone.
    if (runs('transfer')) {
      const rowsN = Math.min(100_000, sims);
      const file = path.join(fs.mkdtempSync('/tmp/bench-upload-'), 'fleet.xlsx');
      const w = xlsxWriter(file);
      await w.header(['ICCID']);
      for (let i = 1; i <= rowsN; i++) await w.row([makeIccid('8949', i, 19)]);
      await w.end();
      const bytes = fs.readFileSync(file);
      const fd = new FormData();
      fd.append('file', new Blob([new Uint8Array(bytes)]), 'fleet.xlsx');
      const req = new Request('http://local/', { method: 'POST', body: fd });
      const multipart = Buffer.from(await req.arrayBuffer());
      const parseMs = await once(async () => {
        const r = await app.inject({
          method: 'POST',
          url: '/api/main/sim/transfer/parse/org-demo',
          payload: multipart,
          headers: { ...headers, 'content-type': req.headers.get('content-type')! },
        });
        if (r.statusCode !== 200) throw new Error(`transfer parse answered ${r.statusCode}: ${r.body}`);
      });
      const readMs = await once(async () => readUpload('fleet.xlsx', bytes, 'ICCID'));
      jobRows.push({
        db: kind,
        size,
        what: `transfer check of a ${rowsN.toLocaleString('en-US')}-row xlsx (${(bytes.length / 1024).toFixed(0)} KB)`,
        ms: parseMs,
        limit: 'reading the file alone',
        limitMs: readMs,
      });
    }
    // Activation of 1,000 pre-activated SIMs, each given a bundle to start: the request (decided SIM by SIM, slots
    // taken, one task), then the task through the (simulated) network until every SIM is active.
    if (runs('activation')) {
      const toActivate = (
        await db.query<{ iccid: string }>(
          `INSERT INTO bundle_orders (org_id, id, sim_id, iccid, type, payment_mode, name, sku, ordered_at, reset_cycle)
       SELECT org_id, 'BB' || substr(id, 3), id, iccid, 'BEFORE_BASIC', 'prepaid', 'EU Basic 1 GB', 'EU-BAS-1G', now(), 'MONTH'
         FROM sims WHERE org_id = $1 AND status = 'pre_activated' AND technology = 'ONE_IMSI' AND operation IS NULL ORDER BY id LIMIT 1000
       RETURNING iccid`,
          [SCALE_ORG.id],
        )
      ).rows.map((r) => r.iccid);
      let accepted = 0;
      const requestMs = await once(async () => {
        const r = await app.inject({ method: 'POST', url: '/api/main/sim/active', payload: { iccids: toActivate }, headers });
        if (r.statusCode !== 200) throw new Error(`activation answered ${r.statusCode}: ${r.body}`);
        accepted = r.json().data.accepted;
      });
      const activationMs = await once(() => app.jobs.runOnce());
      const active = Number(
        (
          await db.query<{ n: string }>("SELECT count(*) AS n FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[]) AND status = 'active'", [
            SCALE_ORG.id,
            toActivate,
          ])
        ).rows[0].n,
      );
      const sqlMs = await once(() => db.query('SELECT id FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[])', [SCALE_ORG.id, toActivate]));
      jobRows.push({
        db: kind,
        size,
        what: `activation request of ${toActivate.length.toLocaleString('en-US')} SIMs (${accepted} accepted)`,
        ms: requestMs,
        limit: 'selecting those SIMs',
        limitMs: sqlMs,
      });
      jobRows.push({
        db: kind,
        size,
        what: `activation task of ${accepted.toLocaleString('en-US')} SIMs through the network (${active} active after)`,
        ms: activationMs,
        limit: 'selecting those SIMs',
        limitMs: sqlMs,
      });
      jobRows.push({
        db: kind,
        size,
        what: `activation of ${toActivate.length.toLocaleString('en-US')} SIMs, request to all active`,
        ms: requestMs + activationMs,
        limit: 'selecting those SIMs',
        limitMs: sqlMs,
      });
      console.log(`${kind}: activation of ${toActivate.length}: request ${requestMs.toFixed(0)} ms + task ${activationMs.toFixed(0)} ms, ${active} active`);
    }
    // An SMS to 1,000 active SIMs: one request refusing SIM by SIM, taking the quota, storing the SMS in one insert,
    // handing each to the (simulated) network and marking them sent; the figure is the request, to all handed over.
    if (runs('sms')) {
      await db.query('UPDATE organisations SET sms_quota = sms_used + 1000000 WHERE id = $1', [SCALE_ORG.id]);
      const targets = (
        await db.query<{ iccid: string }>(`SELECT iccid FROM sims WHERE org_id = $1 AND status = 'active' AND msisdn IS NOT NULL ORDER BY id LIMIT 1000`, [
          SCALE_ORG.id,
        ])
      ).rows.map((r) => r.iccid);
      let sent = 0;
      const smsMs = await once(async () => {
        const r = await app.inject({ method: 'POST', url: '/api/main/sms/send', payload: { iccids: targets, content: 'STATUS?' }, headers });
        if (r.statusCode !== 200) throw new Error(`SMS send answered ${r.statusCode}: ${r.body}`);
        sent = r.json().data.accepted;
      });
      const sqlMs = await once(() =>
        db.query('SELECT id, iccid, imsi, msisdn, status FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[])', [SCALE_ORG.id, targets]),
      );
      jobRows.push({
        db: kind,
        size,
        what: `SMS to ${targets.length.toLocaleString('en-US')} SIMs, request to all handed to the network (${sent} sent)`,
        ms: smsMs,
        limit: 'selecting those SIMs',
        limitMs: sqlMs,
      });
      console.log(`${kind}: SMS to ${targets.length}: ${smsMs.toFixed(0)} ms, ${sent} sent`);
    }
    // The cycle rollover: every SIM of the scale organisation on a DAY cycle that has just ended, some of
    // them stopped by their overage policy; the bundle job's rollover (batches of ROLL_BATCH in their own transactions,
    // each SIM's `usage/cycle_reset` event and each release's, the bundles' cycle usage) beside the bare UPDATE of the
    // same rows (new bounds, usage 0, nothing else).
    if (runs('cycles')) {
      const day = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000);
      const at = new Date(day.getTime() + 86_400_000);
      const setup = () =>
        db.query(
          `UPDATE sims SET cycle_reset = 'DAY', cycle_anchor = $1::timestamptz, cycle_started_at = $1::timestamptz, cycle_ends_at = $1::timestamptz + interval '1 day',
                  cycle_limit_kb = 1000, cycle_usage_kb = hashtext(id) & 1023, overage_control = CASE WHEN (hashtext(id) & 1023) >= 1000 THEN 'stop' ELSE 'none' END,
                  coverage_barred = false, flow_control_policy = CASE WHEN (hashtext(id) & 1023) >= 1000 THEN 'stop' ELSE 'none' END, policy_unsent = false
            WHERE org_id = $2`,
          [day.toISOString(), SCALE_ORG.id],
        );
      await setup();
      let rolled = 0;
      const jobMs = await once(async () => {
        for (;;) {
          const n = await db.tx((q) => rollCycles(q, at));
          rolled += n;
          if (n < ROLL_BATCH) break;
        }
      });
      await setup();
      const sqlMs = await once(() =>
        db.query(
          `UPDATE sims SET cycle_started_at = cycle_start_at(cycle_reset, cycle_anchor, $1::timestamptz), cycle_ends_at = cycle_end_at(cycle_reset, cycle_anchor, $1::timestamptz), cycle_usage_kb = 0
            WHERE cycle_ends_at <= $1::timestamptz`,
          [at.toISOString()],
        ),
      );
      jobRows.push({
        db: kind,
        size,
        what: `cycle rollover of ${rolled.toLocaleString('en-US')} SIMs (bundle job: batches of ${ROLL_BATCH.toLocaleString('en-US')}, an event each, releases)`,
        ms: jobMs,
        limit: 'the bare UPDATE of the same rows',
        limitMs: sqlMs,
      });
      console.log(`${kind}: cycle rollover of ${rolled}: ${jobMs.toFixed(0)} ms (bare UPDATE ${sqlMs.toFixed(0)} ms)`);
    }
    // The SIM list under load (last, so that the exports' memory is measured before this load has grown the heap): 50
    // connections to the HTTP server beside 50 concurrent callers of its SQL (a pool of 50 on PostgreSQL; PGlite's one
    // connection, which answers one query at a time), each after a warm-up of 2 s.
    if (runs('throughput')) {
      const connections = 50;
      const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
      const direct = kind === 'postgres' ? await openPostgres(url, connections) : db;
      const call = { method: 'POST' as const, url: '/api/main/sim/list/es', body: { pageSize: 20 }, headers };
      const sql = () => listPage(direct, simSpec, SCALE_ORG.id, listQueryOf(RESOURCES.sims, { page: 1, pageSize: 20 }));
      const measure = async (target: FastifyInstance | string) => (await loadApi(target, call, connections, 2), loadApi(target, call, connections, seconds));
      const api = await measure(app);
      await loadDirect(sql, connections, 2);
      const bareFigures = await loadDirect(sql, connections, seconds);
      const pools = kind === 'postgres' ? `API: the server's pool of ${process.env.PG_POOL_SIZE ?? 10}; SQL: a pool of ${connections}` : 'one (PGlite)';
      const row = (what: string, setup: string, figures: LoadFigures) => {
        throughputRows.push({
          db: kind,
          size,
          what: `SIM list, page 1, ${connections} connections, ${what}`,
          setup: `${seconds} s; ${setup}`,
          api: figures,
          sql: bareFigures,
        });
        console.log(`${kind}: ${throughputLine(throughputRows.at(-1)!)}`);
      };
      row('rate limits in the database', pools, api);
      // The same instance's code with its per-call state in Redis (a second app on the same database).
      if (await answersOn(6379)) {
        const prefix = `bench:${newId(6)}:`;
        const withRedis = await buildApp({ config: { ...config, redisUrl: 'redis://127.0.0.1:6379', redisPrefix: prefix }, db, logger: false });
        await withRedis.ready();
        row('rate limits in Redis', pools, await measure(withRedis));
        await withRedis.close();
      }
      // Three instances (processes of their own) behind HAProxy, each with Redis, on the same PostgreSQL database.
      if (kind === 'postgres' && fs.existsSync('/usr/sbin/haproxy')) {
        const cluster = await startCluster(url, 3);
        try {
          row(
            '3 instances behind HAProxy, Redis',
            `3 × the pool of ${process.env.PG_POOL_SIZE ?? 10}; SQL: a pool of ${connections}`,
            await measure(cluster.base),
          );
        } finally {
          await cluster.stop();
        }
      }
      if (direct !== db) await direct.close();
    }

    await app.close();
    return rows;
  } finally {
    await drop();
  }
}

// Lighthouse, the webhooks and the autoflow bench need no scale database of this script (autoflow seeds its own).
const ownParts = ['lighthouse', 'webhooks', 'autoflow', 'pools'];
const kinds = ONLY.size && [...ONLY].every((p) => ownParts.includes(p)) ? [] : await benchDatabases();
const sims = Number(process.env.BENCH_SIMS ?? 1_000_000);
const all: Row[] = [];
for (const kind of kinds) {
  const [cdrs, sms] =
    kind === 'postgres'
      ? [process.env.BENCH_CDRS ?? 10_000_000, process.env.BENCH_SMS ?? 10_000_000]
      : [process.env.BENCH_CDRS ?? 1_000_000, process.env.BENCH_SMS ?? 1_000_000];
  all.push(...(await benchOne(kind, sims, Number(cdrs), Number(sms))));
}

const f = (n: number) => n.toFixed(1);
const JOBS_HEAD = ['| database | size | work | ms | limit | limit ms | x limit | peak RSS over start |', '|---|---|---|---:|---|---:|---:|---:|'];
const JOBS_INTRO = [
  'Long work, timed once (milliseconds; exports and their COPY: the median of three), beside the limit of the same work;',
  '"peak RSS over start" is how much the process\'s resident set grew at most while the job ran, from a collected heap',
  '(node --expose-gc; the largest of the three runs).',
  '',
];
const THROUGHPUT_INTRO = [
  'The SIM list\'s first page (20 rows, with its capped count) asked by 50 connections at once for the time given: "API"',
  'through the HTTP server on the loopback, signed in, as a browser asks (JSON, gzip/br accepted), by autocannon in a',
  'process of its own; "SQL" the same two queries by 50 concurrent callers on the database directly. Requests per',
  "second, the 95th percentile of their times, and the API's share of the bare SQL's throughput. The load, the server",
  'and the database share the same 2 cores.',
  '',
  'Three ways of serving the call: one instance with its per-call state (rate-limit counts) in the database, as the',
  "embedded default keeps it; the same instance with `REDIS_URL`; and `npm run cluster`'s three instances (processes of",
  'their own, each with Redis) behind HAProxy. Who the caller is is remembered for a second in each instance',
  '(docs/decisions.md, "What a signed-in call asks of the database before its handler").',
  '',
];
const mb = (bytes: number) => `+${(bytes / 1048576).toFixed(1)} MB`;
const jobLine = (r: JobRow) =>
  `| ${r.db} | ${r.size} | ${r.what} | ${r.ms.toFixed(0)} | ${r.limit} | ${Number.isNaN(r.limitMs) ? '' : r.limitMs.toFixed(0)} | ${Number.isNaN(r.limitMs) ? '' : (r.ms / r.limitMs).toFixed(1)} | ${r.rss === undefined ? '' : mb(r.rss)} |`;
const key = (cells: string[]) => cells.slice(0, 3).join('|');
const cellsOf = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
const isRow = (l: string) => l.startsWith('| ') && !l.startsWith('| database') && !l.startsWith('|---');
/** The rows of a table as they were, each replaced by this run's row of the same database, size and work; new rows after. */
const mergeRows = (kept: string[], fresh: string[], width: number) => {
  const now = new Map(fresh.map((l) => [key(cellsOf(l)), l]));
  const merged = kept.map((l) => {
    const c = cellsOf(l);
    const line = now.get(key(c));
    if (line) now.delete(key(c));
    // Rows of an earlier run keep their figures, in the columns of this one.
    return line ?? `| ${[...c, ...Array<string>(width).fill('')].slice(0, width).join(' | ')} |`;
  });
  return [...merged, ...now.values()];
};
/** The sections of a results file after its calls table, by title ("## ..."), in order. */
const sectionsOf = (text: string) => {
  const parts = text.split(/\n(?=## )/);
  return { head: parts[0], sections: new Map(parts.slice(1).map((p) => [p.split('\n')[0], p])) };
};
const previous = fs.existsSync('bench/results.md') ? fs.readFileSync('bench/results.md', 'utf8') : '';
const before = sectionsOf(previous);
const callLines = all.map((r) => `| ${r.db} | ${r.size} | ${r.what} | ${f(r.api.p50)} | ${f(r.api.p95)} | ${f(r.sql.p50)} | ${f(r.sql.p95)} |`);
const partial = ONLY.size > 0 && before.sections.has('## Jobs');
let head: string[];
if (partial) {
  // A partial run: the calls table as it was, with this run's rows where it ran them.
  const headLines = before.head.split('\n');
  const firstCall = headLines.findIndex(isRow);
  const lastCall = headLines.map(isRow).lastIndexOf(true);
  head =
    firstCall < 0
      ? [...headLines, ...callLines]
      : [...headLines.slice(0, firstCall), ...mergeRows(headLines.slice(firstCall, lastCall + 1), callLines, 7), ...headLines.slice(lastCall + 1)];
} else {
  head = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (${RUNS} runs after one warm-up; milliseconds). "API" is the whole call through`,
    'the server (token, session, membership, permission, validation, query, serialisation); "SQL" is the same query alone,',
    'the limit the API can approach. Machine: 2 cores, 24 GiB. Sizes are those of the organisation queried.',
    '',
    'The scale organisation is above DASHBOARD_LIVE_SIMS, so its dashboard top 10 and heatmap ("snapshot" rows) are read',
    'from their stored snapshot (docs/decisions.md, "Dashboard snapshots"); what one refresh of a snapshot costs, in the',
    'background, is under "Jobs" ("computed, as a snapshot refresh does"). The card\'s "online now" and the lifecycle counts',
    'are rows kept by triggers on sims.',
    '',
    '| database | size | call | API p50 | API p95 | SQL p50 | SQL p95 |',
    '|---|---|---|---:|---:|---:|---:|',
    ...callLines,
    '',
  ];
}
/** A table section: its intro, and its rows merged into those of the last run on a partial run. */
const section = (title: string, intro: string[], tableHead: string[], fresh: string[]) => {
  const old = partial ? (before.sections.get(title)?.split('\n').filter(isRow) ?? []) : [];
  return [title, '', ...intro, ...tableHead, ...mergeRows(old, fresh, cellsOf(tableHead[0]).length), ''];
};
const owned = new Map([
  ['## Jobs', section('## Jobs', JOBS_INTRO, JOBS_HEAD, jobRows.map(jobLine))],
  ['## Throughput under load', section('## Throughput under load', THROUGHPUT_INTRO, THROUGHPUT_HEAD, throughputRows.map(throughputLine))],
]);
if (runs('lighthouse')) owned.set('## Lighthouse', (await lighthouseSection()).trim().split('\n').concat(''));
// Sections written by other parts of the bench (their own files) stay as they were, in their place.
const titles = [...new Set([...before.sections.keys(), ...owned.keys()])];
const lines = [...head, ...titles.flatMap((t) => owned.get(t) ?? before.sections.get(t)!.split('\n'))];
fs.mkdirSync('bench', { recursive: true });
fs.writeFileSync('bench/results.md', lines.join('\n'));
// The developer platform's part (bench/webhooks.ts) writes its own section into the file just written.
if (runs('webhooks')) spawnSync(process.execPath, ['--import', 'tsx', 'bench/webhooks.ts'], { stdio: 'inherit' });
// The autoflow engine's part (bench/autoflow.ts) likewise.
if (runs('autoflow')) spawnSync(process.execPath, ['--import', 'tsx', 'bench/autoflow.ts'], { stdio: 'inherit' });
// The pool engine's part (bench/pools.ts) likewise.
if (runs('pools')) spawnSync(process.execPath, ['--import', 'tsx', 'bench/pools.ts'], { stdio: 'inherit' });
console.log(lines.join('\n'));
process.exit(0);
