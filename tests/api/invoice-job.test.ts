/**
 * The monthly invoice job and the invoice lifecycle: a month's invoices against the usage computed directly
 * from the CDRs and bundles (to the cent), re-runs and two instances, corrections as versions, publishing and its due
 * date on both sides of the month end, settles, permissions and other organisations.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { dueDateOf } from '../../common/billing.js';
import { analyzeWithoutStatistics } from '../../server/db/statistics.js';
import { closedMonthOf, CORRECTION_STALE_MS, INVOICE_JOB_TABLES, invoiceOrganisation, monthOf, runInvoiceJob } from '../../server/billing/invoice-job.js';
import { correctBill } from '../../server/billing/invoice-lifecycle.js';
import { newId } from '../../server/db/ids.js';
import { BACK_OFFICE, call, DB_KINDS, DEMO, inOrg, type Session, signedInSuite, type TestApp } from '../helper.js';

const BILLS = '/api/customer/cube/v2/api/customer/bills';
const DAY = 86_400_000;

/** Half away from zero, for positive integers: round(n / d). */
const roundDiv = (n: bigint, d: bigint): bigint => (2n * n + d) / (2n * d);
/** "1.5000" as an integer number of 1/10^scale units. */
const units = (text: string, scale: number): bigint => {
  const [i, f = ''] = text.split('.');
  return BigInt(i) * 10n ** BigInt(scale) + BigInt((f + '0'.repeat(scale)).slice(0, scale) || '0');
};

interface Expected {
  lines: Map<string, { usageKb: bigint; overageKb: bigint; bundleCents: bigint; overageCents: bigint; qty: number }>;
  pools: Map<string, { sims: bigint; usageKb: bigint; overageKb: bigint; cents: bigint }>;
  net: bigint;
  tax: bigint;
}

/**
 * What org's invoice of the month must say, computed here from the raw CDRs and bundle orders (not the rollup) by the
 * rule of docs/decisions.md "Invoices made by the monthly job", in integer cents.
 */
async function expected(t: TestApp, orgId: string, cycle: string): Promise<Expected> {
  const { start, end } = monthOf(cycle);
  const days = BigInt(Math.round((end.getTime() - start.getTime()) / DAY));
  const bundles = (
    await t.db.query<{
      sim_id: string;
      type: string;
      payment_mode: string;
      price: string | null;
      quota_kb: string | null;
      reset_cycle: string;
      overage_policy: string;
      pool_id: string | null;
      activated_at: Date | null;
      expired_at: Date | null;
    }>(
      'SELECT sim_id, type, payment_mode, price::text, quota_kb::text, reset_cycle, overage_policy, pool_id, activated_at, expired_at FROM bundle_orders WHERE org_id = $1',
      [orgId],
    )
  ).rows.filter((b) => b.type !== 'BEFORE_TEST' && b.activated_at && new Date(b.activated_at) < end && (!b.expired_at || new Date(b.expired_at) > start));
  const usage = new Map(
    (
      await t.db.query<{ sim_id: string; kb: string }>(
        'SELECT sim_id, sum(volume_kb)::text AS kb FROM cdrs WHERE org_id = $1 AND start_at >= $2 AND start_at < $3 GROUP BY sim_id',
        [orgId, start, end],
      )
    ).rows.map((r) => [r.sim_id, BigInt(r.kb)]),
  );
  const profile = (
    await t.db.query<{ per_mb: number; tax: string }>('SELECT overage_minor_per_mb AS per_mb, tax_rate::text AS tax FROM billing_profiles WHERE org_id = $1', [
      orgId,
    ])
  ).rows[0];
  const lines: Expected['lines'] = new Map();
  for (const simId of new Set(bundles.map((b) => b.sim_id))) {
    const mine = bundles.filter((b) => b.sim_id === simId);
    const used = usage.get(simId) ?? 0n;
    // A postpaid bundle's monthly fee, rounded to the cent; a prepaid one was paid when ordered.
    const bundleCents = mine.reduce((sum, b) => sum + (b.payment_mode === 'postpaid' && b.price ? roundDiv(units(b.price, 4), 100n) : 0n), 0n);
    const allowance = mine.reduce(
      (sum, b) =>
        sum +
        (b.quota_kb === null
          ? 0n
          : b.reset_cycle === 'DAY' || b.reset_cycle === 'DAY_24H'
            ? BigInt(b.quota_kb) * days
            : b.reset_cycle === 'YEAR_366D'
              ? BigInt(b.quota_kb) / 12n
              : BigInt(b.quota_kb)),
      0n,
    );
    const billed = mine.some((b) => b.overage_policy.startsWith('billing')) && !mine.some((b) => b.pool_id) && !mine.some((b) => b.quota_kb === null);
    const overageKb = billed && used > allowance ? used - allowance : 0n;
    lines.set(simId, { usageKb: used, overageKb, bundleCents, overageCents: roundDiv(overageKb * BigInt(profile.per_mb), 1024n), qty: mine.length });
  }
  // A pool line per pool of the invoice's SIMs (each SIM in the pool of its latest pooled bundle): the usage beyond
  // the pool's size (its SIMs times the pool's bundle) at the same price per MB.
  const pooled = (
    await t.db.query<{ sim_id: string; pool_id: string; activated_at: Date; id: string }>(
      'SELECT sim_id, pool_id, activated_at, id FROM bundle_orders WHERE org_id = $1 AND pool_id IS NOT NULL',
      [orgId],
    )
  ).rows.filter((b) => bundles.some((x) => x.sim_id === b.sim_id && x.pool_id === b.pool_id && x.activated_at?.getTime() === b.activated_at.getTime()));
  const poolOf = new Map<string, string>();
  for (const b of pooled.sort((x, y) => y.activated_at.getTime() - x.activated_at.getTime() || (x.id < y.id ? -1 : 1)))
    if (!poolOf.has(b.sim_id)) poolOf.set(b.sim_id, b.pool_id);
  const sizes = new Map(
    (await t.db.query<{ id: string; kb: string }>('SELECT id, base_bundle_kb::text AS kb FROM shared_pools WHERE org_id = $1', [orgId])).rows.map((r) => [
      r.id,
      BigInt(r.kb),
    ]),
  );
  const pools: Expected['pools'] = new Map();
  for (const [simId, poolId] of poolOf) {
    if (!sizes.has(poolId)) continue;
    const p = pools.get(poolId) ?? { sims: 0n, usageKb: 0n, overageKb: 0n, cents: 0n };
    p.sims += 1n;
    p.usageKb += usage.get(simId) ?? 0n;
    pools.set(poolId, p);
  }
  for (const [poolId, p] of pools) {
    const size = p.sims * sizes.get(poolId)!;
    p.overageKb = p.usageKb > size ? p.usageKb - size : 0n;
    p.cents = roundDiv(p.overageKb * BigInt(profile.per_mb), 1024n);
  }
  const net = [...lines.values()].reduce((s, l) => s + l.bundleCents + l.overageCents, 0n) + [...pools.values()].reduce((s, p) => s + p.cents, 0n);
  return { lines, pools, net, tax: roundDiv(net * units(profile.tax, 4), 10_000n) };
}

const cents = (v: string | number) => units(typeof v === 'number' ? v.toFixed(2) : v, 2);

describe.each(DB_KINDS)('the monthly invoice job on %s', (kind) => {
  let clock = new Date();
  const suite = signedInSuite(
    { kind, config: { clock: () => clock } },
    { billing: BACK_OFFICE, admin: DEMO.admin, user: DEMO.user, operator: DEMO.operator, other: 'admin@other.example.com' },
  );
  const billingOther = () => inOrg(suite.billing, 'OTHER');
  // The month of the seeded CDRs (the small seed has the last five days), closed at the start of the next.
  const cycle = new Date().toISOString().slice(0, 7);
  const { end } = monthOf(cycle);
  const jobNow = new Date(end.getTime() + 3_600_000);
  let demoInvoiceId = '';

  /** A downlink CDR of `kb` on the SIM at `at` and its rollup, as the network's writer records them. */
  const addCdr = async (sim: { sim_id: string; iccid: string }, kb: bigint, at: Date) => {
    await suite.t.db.query(
      `INSERT INTO cdrs (org_id, sim_id, iccid, network, direction, volume_kb, start_at, end_at, duration_s) VALUES ('org-demo', $1, $2, 'Test', 'downlink', $3, $4, $4, 0)`,
      [sim.sim_id, sim.iccid, kb.toString(), at],
    );
    await suite.t.db.query(
      `INSERT INTO usage_daily (org_id, sim_id, day, iccid, downlink_kb, volume_kb, cdr_count) VALUES ('org-demo', $1, $2::date, $3, $4, $4, 1)
       ON CONFLICT (org_id, sim_id, day) DO UPDATE SET downlink_kb = usage_daily.downlink_kb + EXCLUDED.downlink_kb, volume_kb = usage_daily.volume_kb + EXCLUDED.volume_kb, cdr_count = usage_daily.cdr_count + 1`,
      [sim.sim_id, at.toISOString().slice(0, 10), sim.iccid, kb.toString()],
    );
  };

  beforeAll(async () => {
    // One SIM of org-demo whose bundles bill overage goes over its allowance by 100.25 MB (half a cent to round).
    const base = await expected(suite.t, 'org-demo', cycle);
    const sim = (
      await suite.t.db.query<{ sim_id: string; iccid: string }>(
        `SELECT b.sim_id, min(b.iccid) AS iccid FROM bundle_orders b WHERE b.org_id = 'org-demo' AND b.type <> 'BEFORE_TEST' AND b.status = 'IN_USE' AND b.activated_at < $1
          GROUP BY b.sim_id HAVING bool_and(b.overage_policy LIKE 'billing%') AND bool_and(b.pool_id IS NULL) AND bool_and(b.quota_kb IS NOT NULL) ORDER BY b.sim_id LIMIT 1`,
        [end],
      )
    ).rows[0];
    expect(sim).toBeDefined();
    const allowanceLeft = (await expected(suite.t, 'org-demo', cycle)).lines.get(sim.sim_id)!;
    expect(allowanceLeft).toBeDefined();
    const { start } = monthOf(cycle);
    const allowance = await suite.t.db.query<{ kb: string }>(
      `SELECT sum(CASE WHEN reset_cycle IN ('DAY', 'DAY_24H') THEN quota_kb * $3 WHEN reset_cycle = 'YEAR_366D' THEN quota_kb / 12 ELSE quota_kb END)::text AS kb
         FROM bundle_orders WHERE org_id = 'org-demo' AND sim_id = $1 AND type <> 'BEFORE_TEST' AND activated_at < $2 AND (expired_at IS NULL OR expired_at > $4)`,
      [sim.sim_id, end, Math.round((end.getTime() - start.getTime()) / DAY), start],
    );
    const extra = BigInt(allowance.rows[0].kb) - allowanceLeft.usageKb + 102_656n;
    const at = new Date(start.getTime() + DAY);
    await addCdr(sim, extra, at);
    expect(base.lines.size).toBeGreaterThan(0);
    // One pool of org-demo goes over its size by 50.1 MB (a fraction of a cent to round): a CDR on one of its SIMs.
    const pools = (await expected(suite.t, 'org-demo', cycle)).pools;
    const [poolId, pool] = [...pools.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))[0] ?? [];
    expect(poolId).toBeDefined();
    const size =
      BigInt((await suite.t.db.query<{ kb: string }>('SELECT base_bundle_kb::text AS kb FROM shared_pools WHERE id = $1', [poolId])).rows[0].kb) * pool.sims;
    const member = (
      await suite.t.db.query<{ sim_id: string; iccid: string }>(
        "SELECT sim_id, iccid FROM bundle_orders WHERE org_id = 'org-demo' AND pool_id = $1 AND activated_at < $2 ORDER BY sim_id LIMIT 1",
        [poolId, end],
      )
    ).rows[0];
    const over = size - pool.usageKb + 51_302n;
    await addCdr(member, over, at);
    expect((await expected(suite.t, 'org-demo', cycle)).pools.get(poolId)!.overageKb).toBe(51_302n);
  });

  it('two instances at once make one invoice per organisation; the lease lets one run', async () => {
    const [a, b] = await Promise.all([invoiceOrganisation(suite.t.db, 'org-demo', cycle, jobNow), invoiceOrganisation(suite.t.db, 'org-demo', cycle, jobNow)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    demoInvoiceId = (a ?? b)!.id;
    const [x, y] = await Promise.all([runInvoiceJob(suite.t.db, jobNow, 'instance-a', 0), runInvoiceJob(suite.t.db, jobNow, 'instance-b', 0)]);
    expect([x.ran, y.ran].filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(x.cycle).toBe(cycle);
    // The post-payment invoices (the month's advance invoices, ADV-…, are invoice-advance.ts's and tested there).
    const made = [...x.made, ...y.made].filter((m) => !m.billId.startsWith('ADV-'));
    expect(made.map((m) => m.billId)).not.toContain((a ?? b)!.billId);
    const rows = (
      await suite.t.db.query<{ org_id: string; n: number }>(
        "SELECT org_id, count(*)::int AS n FROM invoices WHERE billing_cycle = $1 AND type = 'post_payment' GROUP BY org_id",
        [cycle],
      )
    ).rows;
    expect(rows.length).toBe(made.length + 1);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    // The seed's invoices of earlier months were made by the job too: this month's events only; the month's advance
    // invoices (invoice-advance.ts) have their own events.
    const events = (
      await suite.t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM events WHERE type = 'invoice' AND subtype = 'created' AND data->>'billingCycle' = $1 AND subject IN (SELECT id FROM invoices WHERE type = 'post_payment')",
        [cycle],
      )
    ).rows[0].n;
    expect(events).toBe(rows.length);
  });

  it('re-running the job changes nothing', async () => {
    const snapshot = async () =>
      JSON.stringify(
        (
          await suite.t.db.query(
            `SELECT i.id, i.status, i.version, i.amount_incl_tax::text, i.updated_at, (SELECT count(*) FROM invoice_lines l WHERE l.invoice_id = i.id)::int AS lines
               FROM invoices i ORDER BY i.id`,
          )
        ).rows,
      ) + (await suite.t.db.query("SELECT count(*)::int AS n FROM events WHERE type = 'invoice'")).rows[0].n;
    const before = await snapshot();
    const again = await runInvoiceJob(suite.t.db, new Date(jobNow.getTime() + DAY), 'instance-c', 0);
    expect(again.ran).toBe(true);
    expect(again.made).toEqual([]);
    expect(await snapshot()).toBe(before);
  });

  it.each(['org-demo', 'org-other'])("%s's invoice matches the usage computed from its CDRs and bundles, to the cent", async (orgId) => {
    const want = await expected(suite.t, orgId, cycle);
    const inv = (
      await suite.t.db.query<{
        id: string;
        net: string;
        tax: string;
        total: string;
        status: string;
        version: number;
        sims: number;
        currency: string;
        due: string;
        billing: string;
      }>(
        `SELECT id, amount_excl_tax::text AS net, tax_amount::text AS tax, amount_incl_tax::text AS total, status, version, sim_count AS sims, currency,
                due_date::text AS due, billing_date::text AS billing
           FROM invoices WHERE org_id = $1 AND billing_cycle = $2 AND type = 'post_payment'`,
        [orgId, cycle],
      )
    ).rows[0];
    expect(inv).toBeDefined();
    expect(inv.status).toBe('draft');
    expect(inv.version).toBe(1);
    expect(inv.currency).toBe(orgId === 'org-other' ? 'GBP' : 'EUR');
    expect(inv.due).toBe(dueDateOf(jobNow));
    expect(cents(inv.net)).toBe(want.net);
    expect(cents(inv.tax)).toBe(want.tax);
    expect(cents(inv.total)).toBe(want.net + want.tax);
    expect(inv.sims).toBe(want.lines.size);
    const lines = (
      await suite.t.db.query<{
        sim_id: string;
        usage_kb: string;
        overage_kb: string;
        bundle_price: string;
        overage_amount: string;
        amount: string;
        bundle_quantity: number;
      }>(
        'SELECT sim_id, usage_kb::text, overage_kb::text, bundle_price::text, overage_amount::text, amount::text, bundle_quantity FROM invoice_lines WHERE invoice_id = $1 AND sim_id IS NOT NULL',
        [inv.id],
      )
    ).rows;
    expect(lines.length).toBe(want.lines.size);
    for (const l of lines) {
      const w = want.lines.get(l.sim_id)!;
      expect({
        sim: l.sim_id,
        usage: BigInt(l.usage_kb),
        over: BigInt(l.overage_kb),
        bundle: units(l.bundle_price, 2),
        overage: units(l.overage_amount, 2),
        amount: units(l.amount, 2),
        qty: l.bundle_quantity,
      }).toEqual({
        sim: l.sim_id,
        usage: w.usageKb,
        over: w.overageKb,
        bundle: w.bundleCents,
        overage: w.overageCents,
        amount: w.bundleCents + w.overageCents,
        qty: w.qty,
      });
    }
    if (orgId === 'org-demo') {
      // The SIM pushed over its allowance by 100.25 MB at 2 cents per MB: 200.5 cents, rounded half away from zero.
      expect(lines.some((l) => l.overage_kb === '102656' && l.overage_amount.startsWith('2.01'))).toBe(true);
    }
    // A pool line per pool: its SIMs' usage, the overage beyond its size and its price, in the total.
    const poolLines = (
      await suite.t.db.query<{ pool_id: string; usage_kb: string; overage_kb: string; amount: string }>(
        'SELECT pool_id, usage_kb::text, overage_kb::text, amount::text FROM invoice_lines WHERE invoice_id = $1 AND pool_id IS NOT NULL ORDER BY pool_id',
        [inv.id],
      )
    ).rows;
    expect(poolLines.map((l) => [l.pool_id, BigInt(l.usage_kb), BigInt(l.overage_kb), units(l.amount, 2)])).toEqual(
      [...want.pools.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([id, p]) => [id, p.usageKb, p.overageKb, p.cents]),
    );
    if (orgId === 'org-demo') {
      // 50.1 MB (51,302 kB) over at 2 cents per MB: 100.2 cents, charged 1.00.
      expect(poolLines.some((l) => l.overage_kb === '51302' && l.amount.startsWith('1.00'))).toBe(true);
      const info = (
        await suite.t.db.query<{ pool_info: { overageKb: number; overageAmount: number }[] }>('SELECT pool_info FROM invoices WHERE id = $1', [inv.id])
      ).rows[0].pool_info;
      expect(info.some((p) => p.overageKb === 51_302 && Number(p.overageAmount) === 1)).toBe(true);
    }
  });

  it('lines are written in batches: a half-made invoice is invisible, a live run is not taken over, a dead one is resumed to the same cent', async () => {
    const key = "org_id = 'org-other' AND billing_cycle = $1 AND type = 'post_payment'";
    const before = (
      await suite.t.db.query<{ id: string; total: string; bill_id: string }>(`SELECT id, amount_incl_tax::text AS total, bill_id FROM invoices WHERE ${key}`, [
        cycle,
      ])
    ).rows[0];
    const linesOf = async (id: string) =>
      (
        await suite.t.db.query<{ l: string }>(
          "SELECT sim_id || ':' || usage_kb || ':' || overage_kb || ':' || amount AS l FROM invoice_lines WHERE invoice_id = $1 ORDER BY sim_id",
          [id],
        )
      ).rows.map((r) => r.l);
    const want = await linesOf(before.id);
    expect(want.length).toBeGreaterThan(4);
    // An instance died after writing the first half of the lines: its run holds them under an id no invoice has yet.
    const mid = (
      await suite.t.db.query<{ sim_id: string }>('SELECT sim_id FROM invoice_lines WHERE invoice_id = $1 ORDER BY sim_id OFFSET $2 LIMIT 1', [
        before.id,
        Math.floor(want.length / 2),
      ])
    ).rows[0].sim_id;
    const half = newId();
    await suite.t.db.query(
      `INSERT INTO invoice_lines (org_id, invoice_id, sim_id, iccid, sku, usage_kb, overage_kb, amount) SELECT 'org-other', $2, sim_id, iccid, 'X', 1, 0, 0.01 FROM invoice_lines WHERE invoice_id = $3 AND sim_id <= $1`,
      [mid, half, before.id],
    );
    await suite.t.db.query(`DELETE FROM invoices WHERE ${key}`, [cycle]);
    expect((await suite.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM invoice_lines WHERE invoice_id = $1', [before.id])).rows[0].n).toBe(0);
    await suite.t.db.query(
      `INSERT INTO invoice_runs (org_id, billing_cycle, type, version, invoice_id, owner, last_sim_id, lines, started_at, beat_at) VALUES ('org-other', $1, 'post_payment', 1, $4, 'dead', $2, 1, $3, $3)`,
      [cycle, mid, jobNow, half],
    );
    const listed = await call(suite.t.app, suite.other, { method: 'POST', url: BILLS, payload: { page: 1, pageSize: 100 } });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.items.map((i: { billId: string }) => i.billId)).not.toContain(before.bill_id);
    // Its heartbeat is fresh: another instance leaves it alone.
    expect(await invoiceOrganisation(suite.t.db, 'org-other', cycle, jobNow, 'live', 2, 600_000)).toBeUndefined();
    expect((await suite.t.db.query(`SELECT 1 FROM invoices WHERE ${key}`, [cycle])).rowCount).toBe(0);
    // Ten minutes without a beat: taken over, resumed after its last SIM in batches of two, and finished.
    const later = new Date(jobNow.getTime() + 600_001);
    const made = await invoiceOrganisation(suite.t.db, 'org-other', cycle, later, 'heir', 2, 600_000);
    expect(made).toMatchObject({ id: half, billId: before.bill_id, version: 1 });
    expect((await suite.t.db.query('SELECT 1 FROM invoice_runs')).rowCount).toBe(0);
    // The dead instance's half is kept as it wrote it (here marked 0.01 a line), the rest written by the heir.
    const got = await linesOf(half);
    expect(got.length).toBe(want.length);
    expect(got.slice(want.findIndex((l) => l.startsWith(`${mid}:`)) + 1)).toEqual(want.slice(want.findIndex((l) => l.startsWith(`${mid}:`)) + 1));
    // Made again in full, in batches of three, it is the same invoice to the cent.
    await suite.t.db.query(`DELETE FROM invoices WHERE ${key}`, [cycle]);
    const again = await invoiceOrganisation(suite.t.db, 'org-other', cycle, jobNow, 'again', 3);
    expect(again?.total).toBe(before.total);
    expect(await linesOf(again!.id)).toEqual(want);
  });

  it('on PGlite the job first analyses the tables it reads when they have no statistics, and makes the same invoice', async () => {
    const key = "org_id = 'org-other' AND billing_cycle = $1 AND type = 'post_payment'";
    const invoiceOf = async () =>
      (
        await suite.t.db.query<{ id: string; figures: string }>(
          `SELECT id, concat_ws('|', bill_id, amount_excl_tax, tax_amount, amount_incl_tax, bundle_quantity, bundle_price, overage_quantity_kb, overage_price, usage_kb, sim_count, pool_info::text) AS figures
             FROM invoices WHERE ${key}`,
          [cycle],
        )
      ).rows[0];
    const linesOf = async (id: string) =>
      (
        await suite.t.db.query<{ l: string }>(
          "SELECT concat_ws(':', sim_id, pool_id, iccid, sku, bundle_quantity, bundle_price, usage_kb, overage_kb, overage_amount, amount) AS l FROM invoice_lines WHERE invoice_id = $1 ORDER BY sim_id, pool_id",
          [id],
        )
      ).rows.map((r) => r.l);
    const before = await invoiceOf();
    const want = await linesOf(before.id);
    expect(want.length).toBeGreaterThan(4);
    await suite.t.db.query(`DELETE FROM invoices WHERE ${key}`, [cycle]);
    // No statistics, as for tables filled since the migrations that nothing has analysed (PGlite has no autovacuum).
    const tables = [...INVOICE_JOB_TABLES].sort();
    const regclasses = 'SELECT to_regclass(t)::oid FROM unnest($1::text[]) t';
    await suite.t.db.query(`UPDATE pg_class SET reltuples = -1 WHERE oid IN (${regclasses})`, [tables]);
    const run = await runInvoiceJob(suite.t.db, new Date(jobNow.getTime() + 2 * DAY), 'instance-stats', 0);
    expect(run.ran).toBe(true);
    // PostgreSQL is left to its autovacuum.
    expect(run.analysed).toEqual(kind === 'pglite' ? tables : []);
    const counted = (await suite.t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_class WHERE oid IN (${regclasses}) AND reltuples >= 0`, [tables]))
      .rows[0].n;
    expect(counted).toBe(kind === 'pglite' ? tables.length : 0);
    const after = await invoiceOf();
    expect(after.figures).toBe(before.figures);
    expect(await linesOf(after.id)).toEqual(want);
    // The next run finds the statistics and analyses nothing.
    expect((await runInvoiceJob(suite.t.db, new Date(jobNow.getTime() + 2 * DAY), 'instance-stats-2', 0)).analysed).toEqual([]);
  });

  it('analyses again on PGlite a table that has more than doubled since it was analysed, and not one that has not', async () => {
    await suite.t.db.query('CREATE TABLE stats_probe (id int PRIMARY KEY, v int)');
    await suite.t.db.query('ANALYZE stats_probe');
    expect(await analyzeWithoutStatistics(suite.t.db, ['stats_probe'])).toEqual([]);
    // 9 pages: still within twice the pages then (0) plus 8.
    await suite.t.db.query('INSERT INTO stats_probe SELECT g, g FROM generate_series(1, 1800) g');
    const pages = async () =>
      (await suite.t.db.query<{ n: number }>("SELECT (pg_relation_size('stats_probe') / current_setting('block_size')::int)::int AS n")).rows[0].n;
    if ((await pages()) <= 8) expect(await analyzeWithoutStatistics(suite.t.db, ['stats_probe'])).toEqual([]);
    await suite.t.db.query('INSERT INTO stats_probe SELECT g, g FROM generate_series(1801, 4000) g');
    expect(await pages()).toBeGreaterThan(8);
    expect(await analyzeWithoutStatistics(suite.t.db, ['stats_probe'])).toEqual(kind === 'pglite' ? ['stats_probe'] : []);
    expect(await analyzeWithoutStatistics(suite.t.db, ['stats_probe'])).toEqual([]);
    await suite.t.db.query('DROP TABLE stats_probe');
  });

  it('a draft previews as a PDF, shows its extract and its lines as CSV; a user and another organisation do not', async () => {
    const preview = await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${demoInvoiceId}/preview/pdf` });
    expect(preview.statusCode).toBe(200);
    expect(preview.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(preview.headers['content-disposition']).toMatch(/-preview\.pdf"$/);
    const extract = await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${demoInvoiceId}/extract` });
    expect(extract.statusCode).toBe(200);
    const net = (await suite.t.db.query<{ net: string }>('SELECT amount_excl_tax::text AS net FROM invoices WHERE id = $1', [demoInvoiceId])).rows[0].net;
    const bySku = extract.json().data.items as Array<{ amount: number; sims: number }>;
    expect(bySku.reduce((s, i) => s + cents(i.amount), 0n)).toBe(cents(net));
    const csv = await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${demoInvoiceId}/details/download` });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const rows = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(rows[0]).toBe('ICCID,Pool,SKU,Bundles,Bundle price,Usage (MB),Overage (MB),Overage amount,Amount');
    // A line per SIM and one per pool, the pool's line named by the pool, its volumes in MB as the SIM lines'.
    const poolRows = (
      await suite.t.db.query<{ name: string; sku: string; mb: string }>(
        'SELECT p.name, l.sku, round(l.usage_kb / 1024.0, 4)::float8::text AS mb FROM invoice_lines l JOIN shared_pools p ON p.id = l.pool_id WHERE l.invoice_id = $1',
        [demoInvoiceId],
      )
    ).rows;
    const poolLines = poolRows.length;
    expect(poolLines).toBeGreaterThan(0);
    for (const p of poolRows)
      expect(
        rows.filter((r) => r.startsWith(`,${p.name},${p.sku},`) && r.split(',')[5] === p.mb),
        p.name,
      ).toHaveLength(1);
    expect(rows.length - 1).toBe(bySku.reduce((s, i) => s + i.sims, 0) + poolLines);
    // The pools of its SIMs: their SIMs and usage, from the CDRs directly.
    const pools = (await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${demoInvoiceId}/shared_pool/details` })).json().data.items as Array<{
      poolId: string;
      sims: number;
      usageKb: number;
      sizeKb: number;
      overageKb: number;
    }>;
    const { start } = monthOf(cycle);
    const direct = (
      await suite.t.db.query<{ pool_id: string; sims: number; kb: string }>(
        `SELECT b.pool_id, count(*)::int AS sims, coalesce(sum(c.kb), 0)::text AS kb
           FROM (SELECT DISTINCT sim_id, pool_id FROM bundle_orders WHERE org_id = 'org-demo' AND pool_id IS NOT NULL AND type <> 'BEFORE_TEST' AND activated_at < $2 AND (expired_at IS NULL OR expired_at > $1)) b
           LEFT JOIN (SELECT sim_id, sum(volume_kb) AS kb FROM cdrs WHERE org_id = 'org-demo' AND start_at >= $1 AND start_at < $2 GROUP BY sim_id) c ON c.sim_id = b.sim_id
          GROUP BY b.pool_id`,
        [start, end],
      )
    ).rows;
    expect(pools.map((p) => [p.poolId, p.sims, p.usageKb]).sort()).toEqual(direct.map((d) => [d.pool_id, d.sims, Number(d.kb)]).sort());
    for (const p of pools) expect(p.overageKb).toBe(Math.max(0, p.usageKb - p.sizeKb));
    for (const url of [
      `${BILLS}/${demoInvoiceId}/shared_pool/details`,
      `${BILLS}/${demoInvoiceId}/preview/pdf`,
      `${BILLS}/${demoInvoiceId}/extract`,
      `${BILLS}/${demoInvoiceId}/details/download`,
      `${BILLS}/${demoInvoiceId}/versions`,
      `${BILLS}/${demoInvoiceId}/settles`,
    ]) {
      expect((await call(suite.t.app, suite.user, { method: 'GET', url })).statusCode).toBe(403);
      expect((await call(suite.t.app, suite.other, { method: 'GET', url })).statusCode).toBe(404);
    }
  });

  it('a correction makes version 2 as a draft, keeps version 1 obsolete and not current; every step an event', async () => {
    expect((await call(suite.t.app, suite.operator, { method: 'POST', url: `${BILLS}/${demoInvoiceId}/versions`, payload: {} })).statusCode).toBe(403);
    expect((await call(suite.t.app, billingOther(), { method: 'POST', url: `${BILLS}/${demoInvoiceId}/versions`, payload: {} })).statusCode).toBe(404);
    clock = new Date(end.getTime() + 2 * DAY);
    const res = await call(suite.t.app, suite.billing, { method: 'POST', url: `${BILLS}/${demoInvoiceId}/versions`, payload: { reason: 'Late CDRs' } });
    expect(res.statusCode).toBe(200);
    const v2 = res.json().data;
    expect(v2).toMatchObject({ version: 2, status: 'draft', isCurrent: true, correctionReason: 'Late CDRs', billingCycle: cycle });
    const versions = (await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${demoInvoiceId}/versions` })).json().data.items;
    expect(versions.map((v: { version: number; status: string; isCurrent: boolean }) => [v.version, v.status, v.isCurrent])).toEqual([
      [2, 'draft', true],
      [1, 'obsolete', false],
    ]);
    expect((await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${demoInvoiceId}/version` })).json().data).toMatchObject({
      id: v2.id,
      version: 2,
    });
    // The same usage makes the same amounts.
    expect(versions[0].amountInclTax).toBe(versions[1].amountInclTax);
    // An obsolete version is corrected no more, nor published.
    expect((await call(suite.t.app, suite.billing, { method: 'POST', url: `${BILLS}/${demoInvoiceId}/versions`, payload: {} })).statusCode).toBe(409);
    expect((await call(suite.t.app, suite.billing, { method: 'POST', url: `${BILLS}/${demoInvoiceId}/publish` })).statusCode).toBe(409);
    const events = (
      await suite.t.db.query<{ subtype: string; subject: string }>(
        "SELECT subtype, subject FROM events WHERE type = 'invoice' AND subtype IN ('corrected', 'obsoleted') AND subject IN ($1, $2) ORDER BY id",
        [v2.id, demoInvoiceId],
      )
    ).rows;
    expect(events).toEqual([
      { subtype: 'corrected', subject: v2.id },
      { subtype: 'obsoleted', subject: demoInvoiceId },
    ]);
    demoInvoiceId = v2.id;
  });

  it('publishing sets the due date: 10 days after issue, or the month end when that is earlier', async () => {
    // Day 21 of a 31-day month: ten days later is the 31st; day 22: the 1st of next month, so the month end.
    expect(dueDateOf(new Date('2026-12-21T10:00:00Z'))).toBe('2026-12-31');
    expect(dueDateOf(new Date('2026-12-22T10:00:00Z'))).toBe('2026-12-31');
    expect(dueDateOf(new Date('2026-12-05T23:59:59Z'))).toBe('2026-12-15');
    expect(dueDateOf(new Date('2026-02-19T00:00:00Z'))).toBe('2026-02-28');
    expect(dueDateOf(new Date('2026-02-18T00:00:00Z'))).toBe('2026-02-28');
    expect(dueDateOf(new Date('2026-02-17T00:00:00Z'))).toBe('2026-02-27');
    expect((await call(suite.t.app, suite.user, { method: 'POST', url: `${BILLS}/${demoInvoiceId}/publish` })).statusCode).toBe(403);
    // Published late in its month: due at the month end.
    clock = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0, 12) - 5 * DAY);
    const res = await call(suite.t.app, suite.billing, { method: 'POST', url: `${BILLS}/${demoInvoiceId}/publish` });
    expect(res.statusCode).toBe(200);
    const monthEnd = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
    expect(res.json().data).toMatchObject({ status: 'published', dueDate: monthEnd, billingDate: clock.toISOString().slice(0, 10) });
    expect((await call(suite.t.app, suite.billing, { method: 'POST', url: `${BILLS}/${demoInvoiceId}/publish` })).statusCode).toBe(409);
    // Another organisation's draft, published early in its month: due ten days later.
    const theirs = (
      await suite.t.db.query<{ id: string }>("SELECT id FROM invoices WHERE org_id = 'org-other' AND billing_cycle = $1 AND type = 'post_payment'", [cycle])
    ).rows[0].id;
    expect((await call(suite.t.app, suite.billing, { method: 'POST', url: `${BILLS}/${theirs}/publish` })).statusCode).toBe(404);
    clock = new Date(end.getTime() + 3 * DAY + 3_600_000);
    const early = await call(suite.t.app, billingOther(), { method: 'POST', url: `${BILLS}/${theirs}/publish` });
    expect(early.json().data.dueDate).toBe(new Date(end.getTime() + 13 * DAY).toISOString().slice(0, 10));
    expect(
      (
        await suite.t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM events WHERE type = 'invoice' AND subtype = 'published' AND subject IN ($1, $2)",
          [demoInvoiceId, theirs],
        )
      ).rows[0].n,
    ).toBe(2);
  });

  it('payments are settles: part of the total keeps it published, the rest makes it paid; bad amounts are refused by field', async () => {
    const inv = (await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${demoInvoiceId}/details` })).json().data as {
      amountInclTax: number;
      status: string;
    };
    const total = cents(inv.amountInclTax);
    expect(total).toBeGreaterThan(2n);
    const settle = (s: Session, payload: object) => call(suite.t.app, s, { method: 'POST', url: `${BILLS}/${demoInvoiceId}/settles`, payload });
    const today = clock.toISOString().slice(0, 10);
    expect((await settle(suite.operator, { amount: 1, paidOn: today, reference: 'X' })).statusCode).toBe(403);
    expect((await settle(billingOther(), { amount: 1, paidOn: today, reference: 'X' })).statusCode).toBe(404);
    const tooMany = await settle(suite.billing, { amount: 1.005, paidOn: today, reference: 'X' });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().status.message).toBe('Amount can have at most 2 decimal places');
    expect((await settle(suite.billing, { amount: 0, paidOn: today, reference: 'X' })).statusCode).toBe(400);
    expect((await settle(suite.billing, { amount: 0.01, paidOn: new Date(clock.getTime() + DAY).toISOString().slice(0, 10), reference: 'X' })).statusCode).toBe(
      400,
    );
    const over = await settle(suite.billing, { amount: Number(total + 1n) / 100, paidOn: today, reference: 'X' });
    expect(over.statusCode).toBe(400);
    expect(over.json().status.message).toBe(`Amount must be at most ${(Number(total) / 100).toFixed(2)}`);
    const first = await settle(suite.billing, { amount: 0.01, paidOn: today, reference: 'SEPA-1' });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ paid: 0.01, invoice: { status: 'published' } });
    const rest = await settle(suite.billing, { amount: Number(total - 1n) / 100, paidOn: today, reference: 'SEPA-2' });
    expect(rest.statusCode).toBe(200);
    expect(rest.json().data.invoice.status).toBe('paid');
    expect(rest.json().data.outstanding).toBe(0);
    const list = (await call(suite.t.app, suite.admin, { method: 'GET', url: `${BILLS}/${demoInvoiceId}/settles` })).json().data;
    expect(list.items.map((s: { reference: string; recordedBy: string }) => [s.reference, s.recordedBy])).toEqual([
      ['SEPA-1', BACK_OFFICE],
      ['SEPA-2', BACK_OFFICE],
    ]);
    expect((await settle(suite.billing, { amount: 0.01, paidOn: today, reference: 'X' })).statusCode).toBe(409);
    // A paid invoice is corrected no more.
    expect((await call(suite.t.app, suite.billing, { method: 'POST', url: `${BILLS}/${demoInvoiceId}/versions`, payload: {} })).statusCode).toBe(409);
    const subtypes = (
      await suite.t.db.query<{ subtype: string }>("SELECT subtype FROM events WHERE type = 'invoice' AND subject = $1 ORDER BY id", [demoInvoiceId])
    ).rows.map((r) => r.subtype);
    expect(subtypes).toEqual(['corrected', 'published', 'settled', 'settled', 'paid']);
  });

  it('a correction is written in short batches: stopped midway the old version stays current, a retry resumes, two at once make one version 2, to the cent of one batch', async () => {
    // org-other's invoice of last month, made and published by the seed through the job and the routes' code.
    const last = closedMonthOf(new Date()).cycle;
    const v1 = (
      await suite.t.db.query<{ id: string; bill_id: string }>(
        "SELECT id, bill_id FROM invoices WHERE org_id = 'org-other' AND billing_cycle = $1 AND type = 'post_payment' AND is_current",
        [last],
      )
    ).rows[0];
    const row = async (id: string) =>
      (await suite.t.db.query('SELECT status, is_current, version, amount_incl_tax::text, updated_at FROM invoices WHERE id = $1', [id])).rows[0];
    const linesOf = async (id: string) =>
      (
        await suite.t.db.query<{ l: string }>(
          "SELECT coalesce(sim_id, pool_id) || ':' || usage_kb || ':' || overage_kb || ':' || amount AS l FROM invoice_lines WHERE invoice_id = $1 ORDER BY sim_id, pool_id",
          [id],
        )
      ).rows.map((r) => r.l);
    const before = await row(v1.id);
    expect(before).toMatchObject({ status: 'published', is_current: true, version: 1 });
    const whole = await linesOf(v1.id);
    expect(whole.length).toBeGreaterThan(4);
    const at = new Date(end.getTime() + 5 * DAY);
    const runs = () =>
      suite.t.db.query<{ owner: string; lines: string; invoice_id: string }>(
        "SELECT owner, lines::text, invoice_id FROM invoice_runs WHERE org_id = 'org-other' AND billing_cycle = $1 AND version = 2",
        [last],
      );

    // Stopped after two batches of two SIMs, as a crash would leave it: four SIMs' lines under an id no invoice has.
    expect(await correctBill(suite.t.db, 'org-other', v1.id, 'Late CDRs', at, { owner: 'crashed', batch: 2, stopAfter: 2 })).toBeUndefined();
    const crashed = (await runs()).rows[0];
    expect(crashed).toMatchObject({ owner: 'crashed', lines: '4' });
    expect(await row(v1.id)).toEqual(before);
    expect((await suite.t.db.query('SELECT 1 FROM invoices WHERE id = $1', [crashed.invoice_id])).rowCount).toBe(0);
    const versions = (await call(suite.t.app, suite.other, { method: 'GET', url: `${BILLS}/${v1.id}/versions` })).json().data.items;
    expect(versions.map((v: { version: number; isCurrent: boolean }) => [v.version, v.isCurrent])).toEqual([[1, true]]);
    // While its heartbeat is fresh, the route refuses a second correction rather than writing a second version.
    clock = at;
    expect((await call(suite.t.app, billingOther(), { method: 'POST', url: `${BILLS}/${v1.id}/versions`, payload: {} })).statusCode).toBe(409);
    expect((await runs()).rows[0].owner).toBe('crashed');

    // Two minutes later (its heartbeat is its start plus the time its batches took) two retries at once: one takes the
    // run over and resumes after its last SIM, the other is refused.
    const later = new Date(at.getTime() + 2 * CORRECTION_STALE_MS);
    const both = await Promise.allSettled([
      correctBill(suite.t.db, 'org-other', v1.id, 'Late CDRs', later, { owner: 'retry-a', batch: 2 }),
      correctBill(suite.t.db, 'org-other', v1.id, 'Late CDRs', later, { owner: 'retry-b', batch: 2 }),
    ]);
    const made = both.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
    expect(made).toHaveLength(1);
    expect(both.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.statusCode)).toEqual([409]);
    expect(made[0]).toMatchObject({ id: crashed.invoice_id, billId: v1.bill_id, version: 2 });
    expect((await runs()).rowCount).toBe(0);
    expect(
      (
        await suite.t.db.query<{ version: number }>("SELECT version FROM invoices WHERE org_id = 'org-other' AND bill_id = $1 ORDER BY version", [v1.bill_id])
      ).rows.map((r) => r.version),
    ).toEqual([1, 2]);
    expect(await row(v1.id)).toMatchObject({ status: 'obsolete', is_current: false });
    expect(await row(made[0].id)).toMatchObject({ status: 'draft', is_current: true, version: 2, amount_incl_tax: before.amount_incl_tax });
    // The same usage: the lines the job wrote in one batch, to the cent; and a correction in one batch says the same.
    expect(await linesOf(made[0].id)).toEqual(whole);
    const v3 = (await correctBill(suite.t.db, 'org-other', made[0].id, null, later, { batch: 1_000_000 }))!;
    expect(v3.total).toBe(before.amount_incl_tax);
    expect(await linesOf(v3.id)).toEqual(whole);
    const events = (
      await suite.t.db.query<{ subtype: string; subject: string }>(
        "SELECT subtype, subject FROM events WHERE type = 'invoice' AND subtype IN ('corrected', 'obsoleted') AND subject IN ($1, $2, $3) ORDER BY id",
        [v1.id, made[0].id, v3.id],
      )
    ).rows;
    expect(events).toEqual([
      { subtype: 'corrected', subject: made[0].id },
      { subtype: 'obsoleted', subject: v1.id },
      { subtype: 'corrected', subject: v3.id },
      { subtype: 'obsoleted', subject: made[0].id },
    ]);

    // Stopped again, and meanwhile published and paid into: the retry finds it no longer correctable, and its run and
    // half-written lines are gone with the refusal.
    expect(await correctBill(suite.t.db, 'org-other', v3.id, null, later, { owner: 'crashed-again', batch: 2, stopAfter: 1 })).toBeUndefined();
    const half = (await suite.t.db.query<{ invoice_id: string }>("SELECT invoice_id FROM invoice_runs WHERE org_id = 'org-other' AND version = 4")).rows[0]
      .invoice_id;
    clock = later;
    expect((await call(suite.t.app, billingOther(), { method: 'POST', url: `${BILLS}/${v3.id}/publish` })).statusCode).toBe(200);
    expect(
      (
        await call(suite.t.app, billingOther(), {
          method: 'POST',
          url: `${BILLS}/${v3.id}/settles`,
          payload: { amount: 0.01, paidOn: later.toISOString().slice(0, 10), reference: 'SEPA-3' },
        })
      ).statusCode,
    ).toBe(200);
    await expect(
      correctBill(suite.t.db, 'org-other', v3.id, null, new Date(later.getTime() + 2 * CORRECTION_STALE_MS), { owner: 'heir', batch: 2 }),
    ).rejects.toMatchObject({ statusCode: 409 });
    expect((await suite.t.db.query("SELECT 1 FROM invoice_runs WHERE org_id = 'org-other' AND version = 4")).rowCount).toBe(0);
    expect((await suite.t.db.query('SELECT 1 FROM invoice_lines WHERE invoice_id = $1', [half])).rowCount).toBe(0);
    expect(await row(v3.id)).toMatchObject({ status: 'published', is_current: true, version: 3 });
  });
});
