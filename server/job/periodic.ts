/**
 * The loop of the server's periodic jobs, written once here rather than in each job: a run now, then one every
 * interval, never two at once on an instance, and a stop that waits for the run in progress. The leased form adds the
 * `job_leases` row (026_bundle_engine.sql) that keeps a job to one instance at a time: the bundle, pool and invoice jobs.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db.js';
import { newId } from '../db/ids.js';
import { endedBefore } from './hand-back.js';

/**
 * Run `run` now and then every `everyMs`; a run still going when the next is due is not doubled, and its error is
 * logged as `what`. Returns the stop function: no further run, `run`'s signal aborted (a long run may stop between its
 * steps), and it resolves once the run in progress has ended and `onStop` has; or, given `handBack`, when that aborts
 * first, without `onStop` (a run still going keeps what it holds, such as its lease, until that runs out).
 */
export function startPeriodic(
  log: FastifyBaseLogger,
  what: string,
  everyMs: number,
  run: (signal: AbortSignal) => Promise<unknown>,
  onStop?: () => Promise<unknown>,
): (handBack?: AbortSignal) => Promise<void> {
  const abort = new AbortController();
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running || abort.signal.aborted) return;
    running = run(abort.signal)
      .then(
        () => undefined,
        (err) => log.error({ err }, what),
      )
      .finally(() => (running = null));
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return async (handBack) => {
    abort.abort();
    clearInterval(timer);
    if (!(await endedBefore(running, handBack))) return;
    await onStop?.();
  };
}

/** Take (or keep) a scheduled job's lease for leaseSeconds; false while another instance holds it. */
export async function claimJob(db: Db, name: string, owner: string, leaseSeconds: number): Promise<boolean> {
  await db.query('INSERT INTO job_leases (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
  const r = await db.query(
    `UPDATE job_leases SET lease_owner = $2, lease_until = now() + make_interval(secs => $3)
      WHERE name = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())`,
    [name, owner, leaseSeconds],
  );
  return r.rowCount === 1;
}

/** Note the time of a scheduled job's run that ended while `owner` held its lease. */
export async function markJobRun(db: Db, name: string, owner: string, now: Date): Promise<void> {
  await db.query('UPDATE job_leases SET last_run_at = $2 WHERE name = $1 AND lease_owner = $3', [name, now.toISOString(), owner]);
}

export interface LeasedJob<S> {
  /** The job's row in job_leases. */
  name: string;
  /** How its runs' errors are logged. */
  what: string;
  everyMs: number;
  /** The lease a run takes; by default two intervals, at least a minute. */
  leaseSeconds?: number;
  /** One run by this instance (`owner`), which claims the lease itself (claimJob) and does nothing without it. */
  run: (owner: string, leaseSeconds: number) => Promise<S>;
  /** What a finished run logs, if anything. */
  report: (summary: S) => void;
}

/**
 * Run a leased job every `everyMs` (startPeriodic) as an instance of its own; stopping gives the lease up, so another
 * instance may take the job at its next run instead of waiting for the lease to run out.
 */
export function startLeasedJob<S>(db: Db, log: FastifyBaseLogger, job: LeasedJob<S>): (handBack?: AbortSignal) => Promise<void> {
  const owner = `${process.pid}-${newId(8)}`;
  const leaseSeconds = job.leaseSeconds ?? Math.max(60, Math.ceil((job.everyMs * 2) / 1000));
  return startPeriodic(
    log,
    job.what,
    job.everyMs,
    async () => job.report(await job.run(owner, leaseSeconds)),
    () =>
      db.query('UPDATE job_leases SET lease_owner = NULL, lease_until = NULL WHERE name = $1 AND lease_owner = $2', [job.name, owner]).catch(() => undefined),
  );
}
