/**
 * The pool engine at scale (BENCH_ONLY=pools, or `node --import tsx bench/pools.ts`): one shared pool holding
 * every SIM of the scale organisation (1,000,000 by default; 80 % in service and enrolled), measured as the job runs it:
 * - the daily recompute (pool size = activated SIMs × bundle size, pro-rata shares, limit event, the day's enrolments
 *   effected, a scheduled scan) beside the bare SQL of the same figures (one aggregate and one UPDATE, nothing else);
 * - the minute pass of enrolments and exits with 1,000 SIMs newly in service and 1,000 terminated, beside the bare
 *   INSERT/UPDATE of the same rows;
 * - the stop pass of a pool in overage with 10 % of its SIMs over their share, beside the bare UPDATE of those SIMs.
 * Writes its section, "Pool engine", into bench/results.md, keeping the others. Not a test.
 *
 * BENCH_DB=pglite|postgres|both (default both when PostgreSQL answers), BENCH_POOL_SIMS (default 1,000,000),
 * BENCH_POOL_PG_SIMS (default BENCH_POOL_SIMS).
 */
import { performance } from 'node:perf_hooks';
import { migrate } from '../server/db/db.js';
import { benchDatabases, openBenchDb as openDb } from './bench-db.js';
import { writeSection } from './results-file.js';
import { seedDemo } from '../server/db/seed.js';
import { moveMembers, recomputeLimits, stopOverSims, POOL_BATCH } from '../server/pool/pool-engine.js';
import { scaleSeed, SCALE_ORG } from './scale-seed.js';

const SECTION = '## Pool engine';
const n = (x: number) => x.toLocaleString('en-US');
const POOL = 'POOLSCALE00000000001';

async function once(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function benchOne(kind: 'pglite' | 'postgres', sims: number): Promise<string[]> {
  const { db, drop } = await openDb(kind);
  const rows: string[] = [];
  try {
    await migrate(db);
    await seedDemo(db, { size: 'small' });
    const t0 = performance.now();
    await scaleSeed(db, { sims, cdrs: 0 });
    const cycleStart = new Date().toISOString().slice(0, 8) + '01';
    // The pool, its SIMs (all of the organisation's), its enrolled members (those in service), usage spread over them.
    await db.query(
      `INSERT INTO shared_pools (org_id, id, name, bundle_name, bundle_sku, base_bundle_kb, cycle_start, cycle_end, overage_policy, opt_in_mode, activation_rule, status, effective_from)
       VALUES ($1, $2, 'Scale Pool', 'Pool share 200 MB', 'SCALE-POOL', 204800, $3::date, ($3::date + interval '1 month')::date, 'stop_overage_sims', 'manual', 'pro_rata', 'active', $3::date)`,
      [SCALE_ORG.id, POOL, cycleStart],
    );
    await db.query(`UPDATE sims SET pool_id = $2, pool_enrolled_in = CASE WHEN status IN ('active', 'paused') THEN $2 END WHERE org_id = $1`, [
      SCALE_ORG.id,
      POOL,
    ]);
    await db.query(
      `INSERT INTO pool_members (org_id, pool_id, sim_id, iccid, joined_at, cycle_usage_kb)
       SELECT org_id, pool_id, id, iccid, coalesce(activated_at, now()), (hashtext(id) & 65535) FROM sims WHERE org_id = $1 AND pool_enrolled_in IS NOT NULL`,
      [SCALE_ORG.id],
    );
    await db.query(`UPDATE shared_pools SET usage_kb = (SELECT sum(cycle_usage_kb) FROM pool_members WHERE pool_id = $1) WHERE id = $1`, [POOL]);
    if (kind === 'postgres') await db.query('ANALYZE');
    const enrolled = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM pool_members WHERE pool_id = $1', [POOL])).rows[0].n);
    const size = `${n(sims)} SIMs, ${n(enrolled)} enrolled`;
    console.log(`${kind}: seeded ${size} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

    // 1. The daily recompute, beside the bare SQL of the same figures.
    const now = new Date();
    const jobMs = await once(() => db.tx((q) => recomputeLimits(q, now)));
    const limit = (await db.query<{ limit_kb: string; activated_sims: number }>('SELECT limit_kb, activated_sims FROM shared_pools WHERE id = $1', [POOL]))
      .rows[0];
    const sqlMs = await once(() =>
      db.query(
        `UPDATE shared_pools p SET total_sims = t.total, activated_sims = a.activated, limit_kb = a.lim
           FROM (SELECT count(*) FILTER (WHERE s.pool_id = p.id AND s.status IN ('active', 'paused')) AS activated,
                        sum(pool_share_kb(p.activation_rule, p.base_bundle_kb, s.activated_at, p.cycle_start, p.cycle_end)) FILTER (WHERE s.pool_id = p.id AND s.status IN ('active', 'paused')) AS lim
                   FROM shared_pools p JOIN pool_members m ON m.org_id = p.org_id AND m.pool_id = p.id AND m.left_at IS NULL
                   JOIN sims s ON s.org_id = m.org_id AND s.id = m.sim_id WHERE p.id = $1) a,
                (SELECT count(*) AS total FROM sims WHERE org_id = $2 AND pool_id = $1) t
          WHERE p.id = $1`,
        [POOL, SCALE_ORG.id],
      ),
    );
    rows.push(
      `| ${kind} | ${size} | daily recompute (limit ${n(Math.round(Number(limit.limit_kb) / 1024))} MB from ${n(limit.activated_sims)} SIMs, pro-rata; events, scan) | ${(jobMs / 1000).toFixed(2)} s | bare aggregate and UPDATE ${(sqlMs / 1000).toFixed(2)} s |`,
    );
    console.log(rows.at(-1));

    // 2. The minute pass: nothing to do, then 1,000 SIMs into service and 1,000 terminated.
    const idleMs = await once(() => db.tx((q) => moveMembers(q, now)));
    await db.query(
      `UPDATE sims SET status = 'active', sub_status = 'active_live', activated_at = now() WHERE id IN (SELECT id FROM sims WHERE org_id = $1 AND status = 'inactive' ORDER BY id LIMIT 1000)`,
      [SCALE_ORG.id],
    );
    await db.query(
      `UPDATE sims SET status = 'terminated', sub_status = 'terminated' WHERE id IN (SELECT id FROM sims WHERE org_id = $1 AND status = 'active' AND pool_enrolled_in IS NOT NULL ORDER BY id DESC LIMIT 1000)`,
      [SCALE_ORG.id],
    );
    let moved = { enrolled: 0, exited: 0 };
    const moveMs = await once(async () => (moved = await db.tx((q) => moveMembers(q, now))));
    rows.push(`| ${kind} | ${size} | enrolment and exit pass, nothing new (partial indexes) | ${idleMs.toFixed(0)} ms | — |`);
    rows.push(`| ${kind} | ${size} | enrolment and exit pass: ${n(moved.enrolled)} in, ${n(moved.exited)} out (an event each) | ${moveMs.toFixed(0)} ms | — |`);
    console.log(rows.slice(-2).join('\n'));

    // 3. The stop pass: the pool over its limit, 10 % of its SIMs (and the pro-rata ones activated late) over their share.
    await db.query(`UPDATE pool_members SET cycle_usage_kb = 300000 WHERE pool_id = $1 AND left_at IS NULL AND hashtext(sim_id) % 10 = 0`, [POOL]);
    await db.query(`UPDATE shared_pools SET usage_kb = limit_kb + 1, overage_cycle = cycle_start WHERE id = $1`, [POOL]);
    const over = Number(
      (
        await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM pool_members m JOIN sims s ON s.id = m.sim_id JOIN shared_pools p ON p.id = m.pool_id
            WHERE m.pool_id = $1 AND m.left_at IS NULL AND m.cycle_usage_kb > pool_share_kb(p.activation_rule, p.base_bundle_kb, s.activated_at, p.cycle_start, p.cycle_end)`,
          [POOL],
        )
      ).rows[0].n,
    );
    let stopped = 0;
    const stopMs = await once(async () => {
      for (;;) {
        const k = await db.tx((q) => stopOverSims(q, SCALE_ORG.id, POOL, now, { skipLocked: true }));
        stopped += k;
        if (k < POOL_BATCH) break;
      }
    });
    await db.query(
      `UPDATE sims SET pool_stopped = false, flow_control_policy = flow_control_of(coverage_barred, overage_control, rule_control) WHERE org_id = $1 AND pool_stopped`,
      [SCALE_ORG.id],
    );
    const bareStopMs = await once(() =>
      db.query(
        `UPDATE sims s SET pool_stopped = true, flow_control_policy = 'stop' FROM pool_members m, shared_pools p
          WHERE m.org_id = $1 AND m.pool_id = $2 AND p.id = m.pool_id AND m.left_at IS NULL AND s.org_id = m.org_id AND s.id = m.sim_id
            AND m.cycle_usage_kb > pool_share_kb(p.activation_rule, p.base_bundle_kb, s.activated_at, p.cycle_start, p.cycle_end)`,
        [SCALE_ORG.id, POOL],
      ),
    );
    rows.push(
      `| ${kind} | ${size} | stop pass: ${n(stopped)} of ${n(over)} SIMs over their share stopped (queued for the network, an event each) | ${(stopMs / 1000).toFixed(2)} s | bare UPDATE ${(bareStopMs / 1000).toFixed(2)} s |`,
    );
    console.log(rows.at(-1));
  } finally {
    await drop();
  }
  return rows;
}

const simsFor = Number(process.env.BENCH_POOL_SIMS ?? 1_000_000);
const rows: string[] = [];
for (const kind of await benchDatabases())
  rows.push(...(await benchOne(kind, kind === 'postgres' ? Number(process.env.BENCH_POOL_PG_SIMS ?? simsFor) : simsFor)));

// Rows of a database and size this run did not measure stay from the last run.
const keyOf = (l: string) =>
  l
    .split('|')
    .slice(1, 3)
    .map((c) => c.trim())
    .join('|');
const measured = new Set(rows.map(keyOf));
writeSection({
  title: SECTION,
  intro: [
    `Written by \`node --import tsx bench/pools.ts\` (BENCH_ONLY=pools) on ${new Date().toISOString().slice(0, 10)}. One shared pool holding every SIM of the`,
    'scale organisation (80 % in service and enrolled, pro-rata shares of 200 MB), run as the pool job runs it',
    '(server/pool/pool-engine.ts), each step in its own transaction, beside the bare SQL of the same change (no events, no',
    "outbox). Timed once each; the machine's 2 cores are shared with other work: upper bounds.",
  ],
  table: ['| database | size | what | figure | beside |', '|---|---|---|---|---|'],
  rows: (old) => [...old.filter((l) => !measured.has(keyOf(l))), ...rows],
});
process.exit(0);
