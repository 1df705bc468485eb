/**
 * The monthly invoice job for one organisation of N SIMs, and a correction of the invoice it made (version
 * 2, in the same batches), beside the bare SQL of their aggregate (the same bundle and usage_daily read, summed, nothing
 * written). Each SIM has a monthly postpaid bundle (a fifth of them on a
 * daily quota, every seventh billing overage) and a UTC day of usage in each of five days of the closed month.
 *
 *   npx tsx bench/invoices.ts                      PGlite, 100,000 SIMs
 *   BENCH_DB=postgres BENCH_SIMS=1000000 npx tsx bench/invoices.ts
 *
 * Prints a row for bench/results.md ("Monthly invoice job"). Not a test: nothing passes or fails.
 */
import { performance } from 'node:perf_hooks';
import { invoiceOrganisation, LINE_BATCH, monthOf } from '../server/billing/invoice-job.js';
import { correctBill } from '../server/billing/invoice-lifecycle.js';
import { migrate, type Db } from '../server/db/db.js';
import { openBenchDb } from './bench-db.js';

const kind = (process.env.BENCH_DB ?? 'pglite') as 'pglite' | 'postgres';
const sims = Number(process.env.BENCH_SIMS ?? 100_000);
const ORG = 'org-bench-inv';

const { db, drop } = await openBenchDb(kind);

try {
  await migrate(db);
  const now = new Date();
  const cycle = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
  const { start, end } = monthOf(cycle);
  const t0 = performance.now();
  await db.query(`INSERT INTO brands (id, partner_code, is_default) VALUES ('brand-bench-inv', 'BENCHINV', true)`);
  await db.query(
    `INSERT INTO organisations (id, code, name, country, level, brand_id) VALUES ($1, 'BENCHINV', 'Bench Invoices AG', 'DE', 1, 'brand-bench-inv')`,
    [ORG],
  );
  await db.query(`INSERT INTO billing_profiles (org_id) VALUES ($1)`, [ORG]);
  await db.query(
    `INSERT INTO sims (org_id, id, iccid, technology, status, sub_status, activated_at)
     SELECT $1, 'BI' || lpad(n::text, 18, '0'), b || ((10 - luhn_sum_reversed(reverse(lpad(b || '0', 20, '0'))) % 10) % 10)::text, 'ONE_IMSI', 'active', 'active_live', $3::timestamptz - interval '40 days'
       FROM generate_series(1, $2::int) AS n, LATERAL (SELECT '8949' || lpad((n + 70000000)::text, 14, '0') AS b) x`,
    [ORG, sims, start.toISOString()],
  );
  await db.query(
    `INSERT INTO bundle_orders (org_id, id, sim_id, iccid, type, payment_mode, name, sku, ordered_at, activated_at, quota_kb, reset_cycle, overage_policy, status, price, currency)
     SELECT org_id, 'BO' || substr(id, 3), id, iccid, 'BEFORE_BASIC', 'postpaid', 'Bench plan', CASE WHEN n % 5 = 0 THEN 'DAY-5M' ELSE 'BAS-100M' END,
            activated_at, activated_at, CASE WHEN n % 5 = 0 THEN 5120 ELSE 102400 END, CASE WHEN n % 5 = 0 THEN 'DAY' ELSE 'MONTH' END,
            CASE WHEN n % 7 = 0 THEN 'billing' ELSE 'stop' END, 'IN_USE', CASE WHEN n % 5 = 0 THEN 2 ELSE 1.5 END, 'EUR'
       FROM (SELECT s.*, row_number() OVER (ORDER BY id) AS n FROM sims s WHERE org_id = $1) s`,
    [ORG],
  );
  await db.query(
    `INSERT INTO usage_daily (org_id, sim_id, day, iccid, downlink_kb, volume_kb, cdr_count)
     SELECT org_id, id, ($2::date + d * 6), iccid, (hashtext(id || d) & 65535) * 1, (hashtext(id || d) & 65535) * 1, 1
       FROM sims, generate_series(0, 4) AS d WHERE org_id = $1`,
    [ORG, start.toISOString().slice(0, 10)],
  );
  await db.query('ANALYZE');
  console.log(
    `${kind}: seeded ${sims.toLocaleString('en-US')} SIMs, their bundles and ${(sims * 5).toLocaleString('en-US')} usage days in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );

  // The bare aggregate: the job's read, summed, nothing written.
  const t1 = performance.now();
  const bare = (
    await db.query<{ lines: number; net: string }>(
      `SELECT count(*)::int AS lines, sum(b.minor + round(greatest(0, coalesce(u.kb, 0) - b.allowance) * 2 / 1024.0))::text AS net
         FROM (SELECT sim_id, sum(round(price, 2) * 100) AS minor,
                      sum(CASE WHEN reset_cycle IN ('DAY', 'DAY_24H') THEN quota_kb * $4 ELSE quota_kb END) AS allowance
                 FROM bundle_orders WHERE org_id = $1 AND type <> 'BEFORE_TEST' AND activated_at < $3 AND (expired_at IS NULL OR expired_at > $2) GROUP BY sim_id) b
         LEFT JOIN (SELECT sim_id, sum(volume_kb) AS kb FROM usage_daily WHERE org_id = $1 AND day >= $2::timestamptz::date AND day < $3::timestamptz::date GROUP BY sim_id) u ON u.sim_id = b.sim_id`,
      [ORG, start.toISOString(), end.toISOString(), Math.round((end.getTime() - start.getTime()) / 86_400_000)],
    )
  ).rows[0];
  const bareMs = performance.now() - t1;

  // The longest transaction of the job: what holds back the event-log consumers of the server (batches of LINE_BATCH SIMs).
  let longest = 0;
  let txs = 0;
  const tx = db.tx.bind(db);
  db.tx = (async (fn: Parameters<Db['tx']>[0]) => {
    const s = performance.now();
    try {
      return await tx(fn);
    } finally {
      longest = Math.max(longest, performance.now() - s);
      txs++;
    }
  }) as Db['tx'];
  const t2 = performance.now();
  const made = await invoiceOrganisation(db, ORG, cycle, new Date(end.getTime() + 3_600_000));
  const jobMs = performance.now() - t2;
  const t3 = performance.now();
  const again = await invoiceOrganisation(db, ORG, cycle, new Date(end.getTime() + 7_200_000));
  const againMs = performance.now() - t3;
  const jobTxs = txs;
  const jobLongest = longest;

  // A correction of that invoice (version 2, the same usage): its lines in the job's batches, the old version obsoleted
  // in the last short transaction.
  txs = 0;
  longest = 0;
  const t4 = performance.now();
  const v2 = await correctBill(db, ORG, made!.id, 'bench', new Date(end.getTime() + 10_800_000));
  const correctMs = performance.now() - t4;
  console.log(
    `${kind}: correction ${correctMs.toFixed(0)} ms in ${txs} transactions, the longest ${longest.toFixed(0)} ms (version ${v2?.version}, ${v2?.sims} lines, total ${v2?.total}${v2?.total === made?.total ? ', the same as version 1' : ', NOT the total of version 1'})`,
  );
  console.log(
    `| ${kind} | ${sims.toLocaleString('en-US')} SIMs, ${(sims * 5).toLocaleString('en-US')} usage days | correction of that invoice (version 2: ${v2?.sims.toLocaleString('en-US')} lines in batches of ${LINE_BATCH.toLocaleString('en-US')} SIMs, then version 1 obsoleted; ${txs} transactions, the longest ${longest.toFixed(0)} ms) | ${correctMs.toFixed(0)} | the bare aggregate of the same read | ${bareMs.toFixed(0)} | ${(correctMs / bareMs).toFixed(1)} | total ${v2?.total === made?.total ? 'equal to version 1' : 'DIFFERS'} |`,
  );
  txs = jobTxs;
  longest = jobLongest;
  console.log(
    `${kind}: job ${jobMs.toFixed(0)} ms in ${txs} transactions, the longest ${longest.toFixed(0)} ms (${made?.sims} lines, total ${made?.total}); bare aggregate ${bareMs.toFixed(0)} ms (${bare.lines} SIMs); re-run ${againMs.toFixed(0)} ms (${again ? 'made again!' : 'nothing made'})`,
  );
  console.log(
    `| ${kind} | ${sims.toLocaleString('en-US')} SIMs, ${(sims * 5).toLocaleString('en-US')} usage days | monthly invoice of one organisation (job: ${made?.sims.toLocaleString('en-US')} lines in batches of ${LINE_BATCH.toLocaleString('en-US')} SIMs, totals, event; ${txs} transactions, the longest ${longest.toFixed(0)} ms) | ${jobMs.toFixed(0)} | the bare aggregate of the same read | ${bareMs.toFixed(0)} | ${(jobMs / bareMs).toFixed(1)} | re-run ${againMs.toFixed(0)} ms, nothing made |`,
  );
} finally {
  await drop();
}
