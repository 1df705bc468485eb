/**
 * Housekeeping of the rollups that only the dashboard reads. usage_sim_hourly (007_dashboard.sql) holds a row per SIM
 * and UTC hour of use; at a million SIMs it grows by up to a million rows an hour, and only the dashboard's 24h and
 * week views (top 10 and heatmap) read it. So its hours older than SIM_HOURLY_KEEP_DAYS go, hourly, from every
 * instance that runs jobs: deleting rows that are already gone deletes nothing, so instances need no coordination.
 * The other rollups (usage_hourly, usage_daily, usage_sim_monthly) serve months and invoices and stay.
 * The same run keeps the event log's monthly partitions (server/events/event-log.ts, maintainEventLog) and sweeps the
 * autoflow run history (server/autoflow/run-repo.ts, sweepAutoflow), and gives up on instant SMS a stopped process left
 * pending (server/sms/pending-sweep.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.js';
import { maintainEventLog } from '../events/event-log.js';
import { sweepAutoflow } from '../autoflow/run-repo.js';
import { PENDING_GIVE_UP_MINUTES, sweepPendingSms } from '../sms/pending-sweep.js';
import { startPeriodic } from './periodic.js';

/**
 * The days of usage_sim_hourly kept. The week view reaches furthest back: 7 dashboard days, the oldest starting at a
 * UTC+8 midnight (16:00 UTC the day before), so less than 7 × 24 hours before now. 9 days are those 7, the 8 hours by
 * which a UTC+8 day starts before its UTC date, and more than a day of margin for instances whose clocks differ and
 * CDRs that arrive late.
 */
export const SIM_HOURLY_KEEP_DAYS = 9;
const DAY_MS = 86_400_000;
/** Rows per DELETE: short statements, so PGlite's single connection is not held for long between API calls. */
const BATCH = 10_000;

/**
 * Delete usage_sim_hourly rows whose hour is before `now` − SIM_HOURLY_KEEP_DAYS, in batches; returns the rows deleted.
 * Organisation by organisation, so each batch is found through the primary key (org_id, hour, sim_id) instead of a
 * scan of the table; `signal` stops it between batches.
 */
export async function pruneSimHourly(db: Db, now: Date, opts: { batch?: number; signal?: AbortSignal } = {}): Promise<number> {
  const cutoff = new Date(now.getTime() - SIM_HOURLY_KEEP_DAYS * DAY_MS).toISOString();
  const batch = opts.batch ?? BATCH;
  // The foreign key on org_id keeps every row's organisation in organisations.
  const orgs = (await db.query<{ id: string }>('SELECT id FROM organisations ORDER BY id')).rows;
  let deleted = 0;
  for (const { id } of orgs) {
    for (;;) {
      if (opts.signal?.aborted) return deleted;
      // ctid = ANY(ARRAY(...)): a TID scan of this batch's rows on PGlite and PostgreSQL alike (DELETE has no LIMIT).
      const r = await db.query(
        `DELETE FROM usage_sim_hourly WHERE hour < $2 AND ctid = ANY(ARRAY(
           SELECT ctid FROM usage_sim_hourly WHERE org_id = $1 AND hour < $2 LIMIT ${Number(batch)}))`,
        [id, cutoff],
      );
      deleted += r.rowCount;
      if (r.rowCount < batch) break;
    }
  }
  return deleted;
}

/**
 * Prune now and then every `everyMs` on `clock`'s time (the dashboard's clock); errors are logged, a run still going
 * when the next is due is not doubled. Returns the stop function, which resolves once a run in progress has stopped.
 */
export function startMaintenance(db: Db, log: FastifyBaseLogger, clock: () => Date, everyMs = 60 * 60_000): (handBack?: AbortSignal) => Promise<void> {
  return startPeriodic(log, 'maintenance', everyMs, async (signal) => {
    const now = clock();
    // Each part's error is logged and the next part still runs; stopping skips the parts not yet begun.
    const part = async <T>(what: string, work: () => Promise<T>, done: (result: T) => void) => {
      if (signal.aborted) return;
      await work().then(done, (err) => log.error({ err }, `maintenance: ${what}`));
    };
    await part(
      'pruning usage_sim_hourly',
      () => pruneSimHourly(db, now, { signal }),
      (n) => void (n && log.info({ rows: n, keepDays: SIM_HOURLY_KEEP_DAYS }, 'usage_sim_hourly pruned')),
    );
    // The event log's coming months exist before their first event, and months every consumer has read go.
    await part(
      'event log partitions',
      () => maintainEventLog(db, now),
      (dropped) => void (dropped.length && log.info({ dropped }, 'event log months dropped')),
    );
    // Autoflow run history past 30 days, and uploads validated but never used by a rule.
    await part(
      'autoflow sweep',
      () => sweepAutoflow(db, now),
      (swept) => void ((swept.runs || swept.uploads) && log.info(swept, 'autoflow runs and uploads swept')),
    );
    // SMS stored but never handed to the network by a process that stopped: failed, their quota given back.
    await part(
      'pending SMS',
      () => sweepPendingSms(db, now),
      (n) => void (n && log.warn({ sms: n, afterMinutes: PENDING_GIVE_UP_MINUTES }, 'pending SMS given up')),
    );
  });
}
