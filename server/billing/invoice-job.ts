/**
 * The monthly invoice job (docs/decisions.md "Invoices made by the monthly job").
 *
 * For each organisation with a bundle in use during the closed UTC month (SIM pages end the day at 23:59 UTC+0), one
 * post-payment invoice, version 1, as a draft: a line per SIM from its bundle orders and the usage_daily rollup (never
 * the raw CDRs), the totals summed from the lines in the database. Money is exact: numeric in SQL, each amount rounded
 * once, half away from zero, to the minor unit (round(x, 2)); the tax is the invoice's net times its rate rounded the
 * same way. The job runs under a lease (job_leases, as the bundle job) and every insert is guarded by the unique key
 * (organisation, month, type, version): a second run or a second instance finds the invoice made and changes nothing.
 * Each invoice made, and each later transition, is an event of type `invoice` in the event log, in its transaction.
 */
import type { FastifyBaseLogger } from 'fastify';
import { dueDateOf } from '../../common/billing.js';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { appendEvents } from '../events/event-log.js';
import { claimJob, markJobRun, startLeasedJob } from '../job/periodic.js';
import { analyzeWithoutStatistics } from '../db/statistics.js';
import { advanceInvoices } from './invoice-advance.js';
import { monthOf, profileOf, TOTALS_SQL, type MadeInvoice, type Profile } from './invoice-basics.js';

export { monthOf, profileOf, TOTALS_SQL, type MadeInvoice, type Profile };

const DAY = 86_400_000;

/** The tables the job reads, analysed on PGlite before its first query when they have no statistics or have outgrown them (server/db/statistics.ts). */
export const INVOICE_JOB_TABLES = ['bundle_orders', 'usage_daily', 'invoice_lines', 'shared_pools'] as const;

/** The UTC month [start, end) before the one holding `now`, as YYYY-MM and its bounds. */
export function closedMonthOf(now: Date): { cycle: string; start: Date; end: Date } {
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { cycle: start.toISOString().slice(0, 7), start, end };
}

/** The bill id of an organisation's post-payment invoice of a month: INV-YYYYMM-<org code>, at most 40 characters. */
export const billIdOf = (orgCode: string, cycle: string) => `INV-${cycle.replace('-', '')}-${orgCode.toUpperCase()}`.slice(0, 40);

/**
 * The bundles billed in a month, per SIM: every bundle order but test ones activated before the month's end and not
 * ended before its start. A postpaid bundle's price is its monthly fee, charged once for each month it is in use (a
 * prepaid one was paid when ordered: counted, priced 0). The month's allowance is the quota per cycle times the cycles
 * of the month (a day's quota times the month's days, a month's once, a year's a twelfth); usage beyond it is overage,
 * billed at the profile's price per MB when a bundle's overage policy bills it and the SIM is not in a pool (a pool's
 * overage is the pool's). A quota-less bundle is unlimited.
 */
const LINES_SQL = `
  INSERT INTO invoice_lines (org_id, invoice_id, sim_id, iccid, sku, bundle_quantity, bundle_price, usage_kb, overage_kb, overage_amount, amount)
  SELECT $1, $2, b.sim_id, b.iccid, b.sku, b.qty, b.bundle_minor / 100.0, coalesce(u.kb, 0), o.kb, o.minor / 100.0, (b.bundle_minor + o.minor) / 100.0
    FROM (SELECT sim_id, min(iccid) AS iccid,
                 (array_agg(sku ORDER BY type IN ('BEFORE_SUPPLEMENT', 'AFTER_FLOW'), activated_at, id))[1] AS sku,
                 count(*)::int AS qty,
                 sum(CASE WHEN payment_mode = 'postpaid' THEN round(coalesce(price, 0), 2) * 100 ELSE 0 END)::bigint AS bundle_minor,
                 sum(CASE WHEN reset_cycle IN ('DAY', 'DAY_24H') THEN quota_kb * $5::int WHEN reset_cycle = 'YEAR_366D' THEN quota_kb / 12 ELSE quota_kb END) AS allowance,
                 bool_or(quota_kb IS NULL) AS unlimited,
                 bool_or(overage_policy LIKE 'billing%') AS billed,
                 bool_or(pool_id IS NOT NULL) AS pooled
            FROM bundle_orders
           WHERE org_id = $1 AND type <> 'BEFORE_TEST' AND activated_at IS NOT NULL AND activated_at < $4::timestamptz
             AND (expired_at IS NULL OR expired_at > $3::timestamptz) AND ($7::text IS NULL OR sim_id > $7) AND ($8::text IS NULL OR sim_id <= $8)
           GROUP BY sim_id) b
    LEFT JOIN (SELECT sim_id, sum(volume_kb) AS kb FROM usage_daily
                WHERE org_id = $1 AND day >= $3::timestamptz::date AND day < $4::timestamptz::date AND ($7::text IS NULL OR sim_id > $7) AND ($8::text IS NULL OR sim_id <= $8)
                GROUP BY sim_id) u ON u.sim_id = b.sim_id
   CROSS JOIN LATERAL (SELECT CASE WHEN b.billed AND NOT b.pooled AND NOT b.unlimited THEN greatest(0, coalesce(u.kb, 0) - b.allowance) ELSE 0 END::bigint AS kb) k
   CROSS JOIN LATERAL (SELECT k.kb, round(k.kb * $6::numeric / 1024)::bigint AS minor) o`;

/** The last SIM of the next batch of at most $5 SIMs after $4 with a bundle billed in the month (NULL: none left). */
const BATCH_END_SQL = `
  SELECT max(sim_id) AS hi FROM (
    SELECT DISTINCT sim_id FROM bundle_orders
     WHERE org_id = $1 AND type <> 'BEFORE_TEST' AND activated_at IS NOT NULL AND activated_at < $3::timestamptz
       AND (expired_at IS NULL OR expired_at > $2::timestamptz) AND ($4::text IS NULL OR sim_id > $4)
     ORDER BY sim_id LIMIT $5) s`;

/**
 * Per pool of the invoice's SIM lines (each SIM in the pool of its latest bundle of the month): its SIMs on the invoice
 * and their usage. Parameters: $1 organisation, $2 invoice, $3 and $4 the month's bounds.
 */
const POOL_USAGE = `(SELECT b.pool_id, count(*)::bigint AS sims, sum(l.usage_kb)::bigint AS usage_kb
     FROM invoice_lines l
     JOIN (SELECT DISTINCT ON (sim_id) sim_id, pool_id FROM bundle_orders
            WHERE org_id = $1 AND pool_id IS NOT NULL AND type <> 'BEFORE_TEST' AND activated_at IS NOT NULL AND activated_at < $4::timestamptz
              AND (expired_at IS NULL OR expired_at > $3::timestamptz) ORDER BY sim_id, activated_at DESC, id) b ON b.sim_id = l.sim_id
    WHERE l.org_id = $1 AND l.invoice_id = $2 AND l.sim_id IS NOT NULL GROUP BY b.pool_id)`;

/**
 * The pools of the invoice's SIMs: per pool its SIMs on the invoice, their usage, the pool's size (SIMs times the
 * pool's bundle, SPEC.md section 9) and the usage beyond it, charged at the profile's price per MB, rounded once to the
 * cent as a SIM's overage is: one pool line each (no SIM, bundle quantity 0: its SIMs' bundles are on their own lines).
 */
const POOL_LINES_SQL = `
  INSERT INTO invoice_lines (org_id, invoice_id, sim_id, pool_id, iccid, sku, bundle_quantity, bundle_price, usage_kb, overage_kb, overage_amount, amount)
  SELECT $1, $2, NULL, p.id, '', p.bundle_sku, 0, 0, x.usage_kb, o.kb, o.minor / 100.0, o.minor / 100.0
    FROM ${POOL_USAGE} x
    JOIN shared_pools p ON p.id = x.pool_id AND p.org_id = $1
   CROSS JOIN LATERAL (SELECT greatest(0, x.usage_kb - x.sims * p.base_bundle_kb)::bigint AS kb) k
   CROSS JOIN LATERAL (SELECT k.kb, round(k.kb * $5::numeric / 1024)::bigint AS minor) o`;

/** The invoice's pool_info: per pool its SIMs, usage, size and overage, and the amount of its pool line. */
const POOLS_SQL = `
  UPDATE invoices i SET pool_info = coalesce((
    SELECT jsonb_agg(jsonb_build_object('poolId', p.id, 'name', p.name, 'sku', p.bundle_sku, 'sims', x.sims, 'usageKb', x.usage_kb,
                                        'sizeKb', x.sims * p.base_bundle_kb, 'overageKb', greatest(0, x.usage_kb - x.sims * p.base_bundle_kb),
                                        'overageAmount', pl.amount) ORDER BY p.name, p.id)
      FROM ${POOL_USAGE} x
      JOIN shared_pools p ON p.id = x.pool_id AND p.org_id = $1
      LEFT JOIN invoice_lines pl ON pl.org_id = $1 AND pl.invoice_id = $2 AND pl.pool_id = p.id), '[]'::jsonb)
   WHERE i.org_id = $1 AND i.id = $2`;

const daysOf = (month: { start: Date; end: Date }) => Math.round((month.end.getTime() - month.start.getTime()) / DAY);

/** Lines of the SIMs in (lo, hi] (all when both are null) under invoice id, in q's transaction; the number written. */
async function writeLines(q: Queryable, orgId: string, id: string, cycle: string, perMb: number, lo: string | null, hi: string | null): Promise<number> {
  const month = monthOf(cycle);
  const r = await q.query(LINES_SQL, [orgId, id, month.start.toISOString(), month.end.toISOString(), daysOf(month), perMb, lo, hi]);
  return r.rowCount ?? 0;
}

/**
 * The invoice row over lines already written, its pools and totals from them, and its event, in q's transaction;
 * undefined when that key's invoice exists already.
 */
async function finishInvoice(
  q: Queryable,
  orgId: string,
  p: Profile,
  id: string,
  cycle: string,
  now: Date,
  version: number,
  correction?: { supersedes: string; billId: string; reason: string | null },
): Promise<MadeInvoice | undefined> {
  const month = monthOf(cycle);
  const billId = correction?.billId ?? billIdOf(p.code, cycle);
  const day = now.toISOString().slice(0, 10);
  const inserted = await q.query(
    `INSERT INTO invoices (org_id, id, bill_id, status, type, cycle_start, cycle_end, billing_cycle, billing_date, due_date, currency,
                           amount_excl_tax, tax_rate, tax_amount, amount_incl_tax, unit_price, settlement_customer, bank_details, credit_limit,
                           sku, version, origin, supersedes, correction_reason, created_at, updated_at)
     VALUES ($1, $2, $3, 'draft', 'post_payment', $4, $5, $6, $7, $8, $9, 0, $10, 0, 0, $11, $12, $13, $14, 'POSTPAID', $15, 'job', $16, $17, $18, $18)
     ON CONFLICT (org_id, billing_cycle, type, version) DO NOTHING RETURNING id`,
    [
      orgId,
      id,
      billId,
      month.start.toISOString().slice(0, 10),
      new Date(month.end.getTime() - DAY).toISOString().slice(0, 10),
      cycle,
      day,
      dueDateOf(now),
      p.currency,
      p.taxRate,
      p.perMb / 100,
      p.settlementCustomer,
      JSON.stringify(p.bankDetails),
      p.creditLimit,
      version,
      correction?.supersedes ?? null,
      correction?.reason ?? null,
      now.toISOString(),
    ],
  );
  if (!inserted.rowCount) return undefined;
  await q.query(POOL_LINES_SQL, [orgId, id, month.start.toISOString(), month.end.toISOString(), p.perMb]);
  await q.query(POOLS_SQL, [orgId, id, month.start.toISOString(), month.end.toISOString()]);
  const t = (await q.query<{ total: string; sims: number }>(TOTALS_SQL, [orgId, id])).rows[0];
  const made: MadeInvoice = { id, billId, version, total: t.total, sims: t.sims };
  await appendEvents(q, [
    {
      orgId,
      type: 'invoice',
      subtype: correction ? 'corrected' : 'created',
      subject: id,
      at: now,
      data: {
        billId,
        version,
        billingCycle: cycle,
        status: 'draft',
        amountInclTax: t.total,
        currency: p.currency,
        sims: t.sims,
        supersedes: correction?.supersedes ?? null,
      },
    },
  ]);
  return made;
}

/** SIMs per batch of lines: each batch is one short transaction (bench/results.md "Monthly invoice job"). */
export const LINE_BATCH = 10_000;
/**
 * A correction's run not beaten for this long is taken over by a retry: a live one beats with every batch, well under
 * a second apart at LINE_BATCH SIMs (the job's runs use its lease instead).
 */
export const CORRECTION_STALE_MS = 60_000;

class LostRun extends Error {}

/** How a run writes its lines: its owner, SIMs per batch, when a silent owner is dead; stopAfter: batches, then stop. */
export interface RunOptions {
  owner?: string;
  batch?: number;
  staleMs?: number;
  /** Stop after this many batches, leaving the run as a crashed instance would (the crash tests). */
  stopAfter?: number;
  /** Told the lines of each batch once it is written (the task center's progress); what it throws stops the run. */
  onBatch?: (lines: number) => Promise<void>;
}

type RunKey = [orgId: string, cycle: string, type: string, version: number];

/**
 * The batch writer of the job and of a correction: claims the run of the invoice's key (a new one, one of its own
 * owner, or one whose owner stopped beating for staleMs), then writes the lines of the month's SIMs after the run's
 * last one in batches of `batch` SIMs, each its own transaction that moves the run under its row lock. Undefined when
 * another owner holds the run, the organisation is gone, or it stopped after `stopAfter` batches; otherwise what the
 * run's last transaction needs (closeRun).
 */
async function writeRun(
  db: Db,
  key: RunKey,
  now: Date,
  opts: RunOptions & { owner: string; batch: number; staleMs: number },
): Promise<{ invoiceId: string; last: string | null; p: Profile } | undefined> {
  const [orgId, cycle] = key;
  const month = monthOf(cycle);
  const { owner } = opts;
  await db.query(
    `INSERT INTO invoice_runs (org_id, billing_cycle, type, version, invoice_id, owner, started_at, beat_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT DO NOTHING`,
    [...key, newId(), owner, now.toISOString()],
  );
  const run = (
    await db.query<{ invoice_id: string; last_sim_id: string | null }>(
      `UPDATE invoice_runs SET owner = $5, beat_at = $6
        WHERE org_id = $1 AND billing_cycle = $2 AND type = $3 AND version = $4 AND (owner = $5 OR beat_at < $7::timestamptz)
        RETURNING invoice_id, last_sim_id`,
      [...key, owner, now.toISOString(), new Date(now.getTime() - opts.staleMs).toISOString()],
    )
  ).rows[0];
  if (!run) return undefined;
  const p = await profileOf(db, orgId);
  if (!p) return undefined;
  // The heartbeat moves with the time spent since `now` (the caller's clock, which tests set).
  const started = Date.now();
  const beat = () => new Date(now.getTime() + Date.now() - started).toISOString();
  let lo = run.last_sim_id;
  for (let n = 0; ; n++) {
    if (opts.stopAfter !== undefined && n >= opts.stopAfter) return undefined;
    const hi = (await db.query<{ hi: string | null }>(BATCH_END_SQL, [orgId, month.start.toISOString(), month.end.toISOString(), lo, opts.batch])).rows[0].hi;
    if (hi === null) return { invoiceId: run.invoice_id, last: lo, p };
    await db
      .tx(async (q) => {
        // The owner and the position checked and moved under the run's row lock: a taken-over run stops here.
        const moved = await q.query(
          `UPDATE invoice_runs SET last_sim_id = $7, beat_at = $8 WHERE org_id = $1 AND billing_cycle = $2 AND type = $3 AND version = $4 AND owner = $5
            AND last_sim_id IS NOT DISTINCT FROM $6 RETURNING 1`,
          [...key, owner, lo, hi, beat()],
        );
        if (!moved.rowCount) throw new LostRun();
        const written = await writeLines(q, orgId, run.invoice_id, cycle, p.perMb, lo, hi);
        await q.query(`UPDATE invoice_runs SET lines = lines + $5 WHERE org_id = $1 AND billing_cycle = $2 AND type = $3 AND version = $4`, [...key, written]);
        return written;
      })
      .then((written) => opts.onBatch?.(written));
    lo = hi;
  }
}

/** In the run's last transaction: the run deleted if it is still this owner's at `last`; the lines it wrote (LostRun if not). */
async function closeRun(q: Queryable, key: RunKey, owner: string, last: string | null): Promise<number> {
  const mine = (
    await q.query<{ lines: string }>(
      `DELETE FROM invoice_runs WHERE org_id = $1 AND billing_cycle = $2 AND type = $3 AND version = $4 AND owner = $5 AND last_sim_id IS NOT DISTINCT FROM $6 RETURNING lines::text`,
      [...key, owner, last],
    )
  ).rows[0];
  if (!mine) throw new LostRun();
  return Number(mine.lines);
}

const dropLines = (q: Queryable, orgId: string, id: string) => q.query('DELETE FROM invoice_lines WHERE org_id = $1 AND invoice_id = $2', [orgId, id]);

/**
 * One organisation's post-payment invoice of a month (version 1), or undefined when it is made already, another
 * instance is making it, or the organisation has nothing to bill. The lines are written in batches of `batch` SIMs,
 * each in its own transaction; the invoice row appears only in the last one, so a half-made invoice is never seen
 * (migration 060). A run left by a dead instance (no heartbeat for `staleMs`) is taken over and resumed.
 */
export async function invoiceOrganisation(
  db: Db,
  orgId: string,
  cycle: string,
  now: Date,
  owner = `${process.pid}-${newId(8)}`,
  batch = LINE_BATCH,
  staleMs = 600_000,
  /** Told the lines of each batch once it is written (the task center's progress); what it throws stops the run. */
  onBatch?: (lines: number) => Promise<void>,
): Promise<MadeInvoice | undefined> {
  const key: RunKey = [orgId, cycle, 'post_payment', 1];
  const made = await db.query(`SELECT 1 FROM invoices WHERE org_id = $1 AND billing_cycle = $2 AND type = $3 AND version = $4`, key);
  if (made.rowCount) return undefined;
  try {
    const run = await writeRun(db, key, now, { owner, batch, staleMs, onBatch });
    if (!run) return undefined;
    return await db.tx(async (q) => {
      // Nothing to bill: no invoice, and the run is gone so that a later month's bundles can still be billed.
      if ((await closeRun(q, key, owner, run.last)) === 0) return undefined;
      const done = await finishInvoice(q, orgId, run.p, run.invoiceId, cycle, now, 1);
      if (!done) await dropLines(q, orgId, run.invoiceId);
      return done;
    });
  } catch (err) {
    if (err instanceof LostRun) return undefined;
    throw err;
  }
}

/** The version a correction supersedes: the current one of its bill. */
export interface CorrectedVersion {
  id: string;
  billId: string;
  billingCycle: string;
  version: number;
}

/**
 * A correction: the next version of an invoice made again from the month's bundles and usage as they are now, as a
 * draft, its lines written by the job's batch writer (run key: the new version). The current version stays current and
 * visible meanwhile; the last short transaction asks `stillCorrectable` again (under the old version's row lock), then
 * makes the old one obsolete and not current and inserts the new one with its event and the old one's. An answer of
 * `stillCorrectable` (an error) drops the run and its lines and is thrown after that transaction. Undefined when another
 * correction of the same version holds the run, or after `stopAfter` batches: a retry takes the run over once it is
 * stale (`staleMs`) and resumes after its last SIM.
 */
export async function correctInvoice(
  db: Db,
  orgId: string,
  current: CorrectedVersion,
  reason: string | null,
  now: Date,
  stillCorrectable: (q: Queryable) => Promise<Error | undefined>,
  opts: RunOptions = {},
): Promise<MadeInvoice | undefined> {
  const version = current.version + 1;
  const key: RunKey = [orgId, current.billingCycle, 'post_payment', version];
  const owner = opts.owner ?? `${process.pid}-${newId(8)}`;
  try {
    const run = await writeRun(db, key, now, { ...opts, owner, batch: opts.batch ?? LINE_BATCH, staleMs: opts.staleMs ?? CORRECTION_STALE_MS });
    if (!run) return undefined;
    const { made, refused } = await db.tx(async (q) => {
      await closeRun(q, key, owner, run.last);
      const no = await stillCorrectable(q);
      if (no) {
        await dropLines(q, orgId, run.invoiceId);
        return { refused: no, made: undefined };
      }
      await q.query(`UPDATE invoices SET status = 'obsolete', is_current = false, updated_at = $3 WHERE org_id = $1 AND id = $2`, [
        orgId,
        current.id,
        now.toISOString(),
      ]);
      const done = await finishInvoice(q, orgId, run.p, run.invoiceId, current.billingCycle, now, version, {
        supersedes: current.id,
        billId: current.billId,
        reason,
      });
      if (!done) throw new Error(`version ${version} of invoice ${current.id} exists`);
      // A draw on the deposit of the obsolete version is given back (the deposit left counts no obsolete version's):
      // said in the same transaction; the new version draws again when it is issued.
      // Every draw of it: the one at its publish and those of deposits paid after.
      const released = (
        await q.query<{ amount: string; currency: string }>(
          "SELECT sum(amount)::text AS amount, min(currency) AS currency FROM invoice_settles WHERE org_id = $1 AND invoice_id = $2 AND kind = 'deposit' HAVING count(*) > 0",
          [orgId, current.id],
        )
      ).rows[0];
      await appendEvents(q, [
        { orgId, type: 'invoice', subtype: 'obsoleted', subject: current.id, at: now, data: { version: current.version, supersededBy: done.id } },
        ...(released
          ? [
              {
                orgId,
                type: 'invoice' as const,
                subtype: 'deposit_released',
                subject: current.id,
                at: now,
                data: { version: current.version, supersededBy: done.id, amount: released.amount, currency: released.currency },
              },
            ]
          : []),
      ]);
      return { made: done, refused: undefined };
    });
    if (refused) throw refused;
    return made;
  } catch (err) {
    if (err instanceof LostRun) return undefined;
    throw err;
  }
}

/**
 * The run of a correction of `current` that its owner stopped beating (staleMs), dropped with its lines: the version is
 * no longer corrected (it was paid into or superseded meanwhile), so nobody would resume it.
 */
export async function dropStaleCorrection(db: Db, orgId: string, current: CorrectedVersion, now: Date, staleMs = CORRECTION_STALE_MS): Promise<void> {
  await db.tx(async (q) => {
    const gone = await q.query<{ invoice_id: string }>(
      `DELETE FROM invoice_runs WHERE org_id = $1 AND billing_cycle = $2 AND type = 'post_payment' AND version = $3 AND beat_at < $4::timestamptz RETURNING invoice_id`,
      [orgId, current.billingCycle, current.version + 1, new Date(now.getTime() - staleMs).toISOString()],
    );
    for (const r of gone.rows) await dropLines(q, orgId, r.invoice_id);
  });
}

export interface InvoiceJobSummary {
  ran: boolean;
  cycle: string;
  made: MadeInvoice[];
  /** The tables this run analysed first (PGlite, never analysed before), by name. */
  analysed: string[];
}

/**
 * One run at `now` by instance `owner`: nothing unless it holds the lease; then every organisation with a bundle in use
 * in the closed month and no invoice of it yet gets one (the key decides: invoiceOrganisation), each in its own
 * transactions.
 */
export async function runInvoiceJob(db: Db, now: Date, owner: string, leaseSeconds = 600): Promise<InvoiceJobSummary> {
  const { cycle, start, end } = closedMonthOf(now);
  const s: InvoiceJobSummary = { ran: false, cycle, made: [], analysed: [] };
  if (!(await claimJob(db, 'monthly_invoices', owner, leaseSeconds))) return s;
  s.ran = true;
  s.analysed = await analyzeWithoutStatistics(db, INVOICE_JOB_TABLES);
  const orgs = (
    await db.query<{ org_id: string }>(
      `SELECT o.id AS org_id FROM organisations o
        WHERE EXISTS (SELECT 1 FROM bundle_orders b WHERE b.org_id = o.id AND b.type <> 'BEFORE_TEST' AND b.activated_at IS NOT NULL
                         AND b.activated_at < $2::timestamptz AND (b.expired_at IS NULL OR b.expired_at > $1::timestamptz))
        ORDER BY o.id`,
      [start.toISOString(), end.toISOString()],
    )
  ).rows;
  for (const { org_id } of orgs) {
    const made = await invoiceOrganisation(db, org_id, cycle, now, owner, LINE_BATCH, leaseSeconds * 1000);
    if (made) s.made.push(made);
  }
  // The month's prepaid bundle orders, billed in advance on their own invoice (invoice-advance.ts).
  s.made.push(...(await advanceInvoices(db, cycle, now)));
  await markJobRun(db, 'monthly_invoices', owner, now);
  return s;
}

/** Run the invoice job every everyMs (an hour) on clock's time; returns the stop function. */
export function startInvoiceJob(db: Db, log: FastifyBaseLogger, clock: () => Date, everyMs = 3_600_000): (handBack?: AbortSignal) => Promise<void> {
  return startLeasedJob(db, log, {
    name: 'monthly_invoices',
    what: 'invoice job',
    everyMs,
    leaseSeconds: 600,
    run: (owner, leaseSeconds) => runInvoiceJob(db, clock(), owner, leaseSeconds),
    report: (s) => void (s.made.length && log.info({ cycle: s.cycle, invoices: s.made.length }, 'invoice job')),
  });
}
