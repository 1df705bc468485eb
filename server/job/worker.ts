/**
 * The job worker: durable tasks in the tasks table, claimed by one instance at a time with FOR UPDATE SKIP LOCKED and
 * a heartbeat lease. A task whose worker stopped (a restart, a crash) is claimed again when its lease runs out and
 * starts over from the beginning; after MAX_ATTEMPTS it ends as "issues". A file is published (renamed into place)
 * and the task marked done in one step at the end, so a partial file is never offered as done. A worker asked to stop
 * claims nothing more, lets its task run until the hand-back signal and then gives it back unclaimed (not counted as
 * an attempt), so another instance starts it over at once.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { publishLive } from '../live/hub.js';
import type { FileStore } from './storage.js';
import { appendTaskLog } from './task-log-repo.js';
import { notifySubscribers } from '../developer/notification-group-repo.js';
import { PollLoop } from './poll-loop.js';
import { endedBefore, HandedBack } from './hand-back.js';

export const LEASE_SECONDS = 60;
export const MAX_ATTEMPTS = 3;

export interface TaskRow {
  id: string;
  org_id: string;
  account_id: string | null;
  kind: string;
  quantity: number;
  payload: Record<string, unknown>;
  attempts: number;
}

export interface JobContext {
  db: Db;
  store: FileStore;
  task: TaskRow;
  /** Report progress (0-99) and renew the lease; throws when the lease was lost to another worker. */
  progress(percent: number): Promise<void>;
}

/** What a finished job leaves: a file to offer, and a summary for the task's report. */
export interface JobResult {
  file?: { key: string; name: string; contentType: string; kind?: 'export' | 'report' };
  result: Record<string, unknown>;
  /** Some rows failed: the task ends as "issues" with its report. */
  issues?: boolean;
  /**
   * Not finished, waiting on something outside (the network's answers): the task stays processing, its claim is
   * released, and a worker (any instance) runs it again after this many milliseconds. It holds no job slot meanwhile.
   */
  laterMs?: number;
}

/**
 * Runs inside the transaction that ends the task, whatever the outcome (done, issues, stopped too often), so a record
 * that follows the task (a report row) never disagrees with it: it points at the file only if the task is done.
 */
export type JobSettle = (
  q: Queryable,
  task: TaskRow,
  outcome: { status: 'done' | 'issues'; fileId: string | null; result: Record<string, unknown> },
) => Promise<void>;

export type JobHandler = ((ctx: JobContext) => Promise<JobResult>) & { settle?: JobSettle };

export class JobWorker extends PollLoop<boolean> {
  readonly id = `worker-${newId(8)}`;
  /** The task being run now, and whether it has been given back (its handler's outcome then no longer counts). */
  private inFlight: { task: TaskRow; handedBack: boolean } | null = null;

  constructor(
    private readonly db: Db,
    private readonly store: FileStore,
    private readonly handlers: Record<string, JobHandler>,
    private readonly log: FastifyBaseLogger,
    /** How long a claimed task stays with a worker that stopped renewing it. */
    private readonly leaseSeconds = LEASE_SECONDS,
    /** Called after a task's end is committed (the mailer sends the notices its end wrote). */
    private readonly onFinished?: () => Promise<unknown>,
  ) {
    // Polls for work every pollMs once started; tests call runOnce() instead.
    super(log, 'job worker');
  }

  /** Claim and run one task; false when there was none. One at a time per instance. */
  runOnce(): Promise<boolean> {
    return this.run();
  }

  protected work(): Promise<boolean> {
    return this.claimAndRun();
  }

  /**
   * Claim nothing more; the task in progress may finish until `handBack` aborts, and is then given back: unclaimed,
   * its attempt not counted, so the next worker to look (any instance) starts it over at once. Its handler is ended
   * at its next progress report. Without `handBack`, waits for the task to end.
   */
  override async stop(handBack?: AbortSignal): Promise<void> {
    const running = this.halt();
    if (await endedBefore(running, handBack)) return;
    const flight = this.inFlight;
    if (!flight || flight.handedBack) return;
    flight.handedBack = true;
    const r = await this.db.query(
      `UPDATE tasks SET claimed_by = NULL, claimed_at = NULL, heartbeat_at = NULL, attempts = greatest(attempts - 1, 0), updated_at = now()
        WHERE id = $1 AND claimed_by = $2 AND status = 'processing' RETURNING id`,
      [flight.task.id, this.id],
    );
    if (!r.rows.length) return;
    this.log.info({ worker: this.id, task: flight.task.id, kind: flight.task.kind }, 'task handed back: the server is stopping');
    await appendTaskLog(this.db, [
      { orgId: flight.task.org_id, taskId: flight.task.id, provider: 'worker', level: 'warn', message: 'handedBack', detail: { worker: this.id } },
    ]);
  }

  private async claimAndRun(): Promise<boolean> {
    if (this.stopping) return false;
    const kinds = Object.keys(this.handlers);
    const claimed = (
      await this.db.query<TaskRow & { previous: string | null }>(
        `WITH next AS (SELECT id, claimed_by AS previous FROM tasks
                         WHERE status = 'processing' AND kind = ANY($2::text[])
                           AND (claimed_by IS NULL OR heartbeat_at < now() - make_interval(secs => $3))
                           AND (run_after IS NULL OR run_after <= now())
                         ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         UPDATE tasks t SET claimed_by = $1, claimed_at = now(), heartbeat_at = now(), attempts = t.attempts + 1,
                started_at = coalesce(t.started_at, now()), updated_at = now()
           FROM next WHERE t.id = next.id
         RETURNING t.id, t.org_id, t.account_id, t.kind, t.quantity, t.payload, t.attempts, next.previous`,
        [this.id, kinds, this.leaseSeconds],
      )
    ).rows[0];
    if (!claimed) return false;
    // Which instance holds which task, and from whom it took it over, can be followed in the logs.
    if (claimed.previous)
      this.log.warn(
        { worker: this.id, task: claimed.id, kind: claimed.kind, attempt: claimed.attempts, from: claimed.previous },
        'task taken over after its lease ran out',
      );
    else this.log.info({ worker: this.id, task: claimed.id, kind: claimed.kind, attempt: claimed.attempts }, 'task claimed');
    // The same in the task's provider log, which its owner reads in the task center.
    await appendTaskLog(this.db, [
      {
        orgId: claimed.org_id,
        taskId: claimed.id,
        provider: 'worker',
        level: claimed.previous ? 'warn' : 'info',
        message: claimed.previous ? 'takenOver' : 'claimed',
        detail: { worker: this.id, attempt: claimed.attempts, ...(claimed.previous ? { from: claimed.previous } : {}) },
        quietAfterWait: !claimed.previous,
      },
    ]);
    if (claimed.attempts > MAX_ATTEMPTS) {
      await this.finish(claimed, 'issues', { error: 'interrupted' }, null, `Stopped ${MAX_ATTEMPTS} times before it could finish`);
      return true;
    }
    const flight = { task: claimed, handedBack: false };
    this.inFlight = flight;
    try {
      return await this.runClaimed(claimed, flight);
    } finally {
      this.inFlight = null;
    }
  }

  private async runClaimed(claimed: TaskRow, flight: { handedBack: boolean }): Promise<boolean> {
    const ctx: JobContext = {
      db: this.db,
      store: this.store,
      task: claimed,
      progress: async (percent) => {
        if (flight.handedBack) throw new HandedBack();
        const r = await this.db.query(
          "UPDATE tasks SET progress = $3, heartbeat_at = now(), updated_at = now() WHERE id = $1 AND claimed_by = $2 AND status = 'processing' RETURNING id",
          [claimed.id, this.id, Math.max(0, Math.min(99, Math.floor(percent)))],
        );
        if (!r.rows.length) {
          this.log.warn({ worker: this.id, task: claimed.id }, 'task lease lost to another instance');
          throw new Error('lease lost');
        }
        this.log.debug({ worker: this.id, task: claimed.id, progress: Math.floor(percent) }, 'task lease renewed');
        await publishLive(this.db, {
          type: 'task',
          orgId: claimed.org_id,
          accountId: claimed.account_id,
          data: { id: claimed.id, status: 'processing', progress: Math.floor(percent) },
        });
      },
    };
    try {
      const out = await this.handlers[claimed.kind](ctx);
      // Given back meanwhile: another instance does it over; this run's file and outcome are not offered.
      if (flight.handedBack) return true;
      if (out.laterMs !== undefined) {
        await this.release(claimed, out.laterMs);
        return true;
      }
      let fileId: string | null = null;
      if (out.file) {
        const size = await this.store.publish(out.file.key);
        const r = await this.db.query<{ id: string }>(
          `INSERT INTO files (org_id, id, account_id, kind, storage_key, name, content_type, size_bytes, expires_at)
           VALUES ($1, $2, $3, $8, $4, $5, $6, $7, now() + interval '7 days')
           ON CONFLICT (storage_key) DO UPDATE SET size_bytes = EXCLUDED.size_bytes RETURNING id`,
          [claimed.org_id, newId(), claimed.account_id, out.file.key, out.file.name, out.file.contentType, size, out.file.kind ?? 'export'],
        );
        fileId = r.rows[0].id;
      }
      await this.finish(claimed, out.issues ? 'issues' : 'done', out.result, fileId, null);
    } catch (err) {
      if ((err as Error).message === 'lease lost' || flight.handedBack) return true;
      this.log.error({ err, task: claimed.id }, 'job failed');
      await this.finish(claimed, 'issues', { error: (err as Error).message }, null, 'The job failed; it can be started again');
    }
    return true;
  }

  /** Give a waiting task back until `laterMs` from now; a wait is not one of its attempts. */
  private async release(task: TaskRow, laterMs: number): Promise<void> {
    const r = await this.db.query(
      `UPDATE tasks SET claimed_by = NULL, claimed_at = NULL, heartbeat_at = NULL, attempts = greatest(attempts - 1, 0),
              run_after = now() + make_interval(secs => $3), updated_at = now()
        WHERE id = $1 AND claimed_by = $2 AND status = 'processing' RETURNING id`,
      [task.id, this.id, Math.max(0, laterMs) / 1000],
    );
    if (r.rows.length) {
      this.log.debug({ worker: this.id, task: task.id, laterMs }, 'task waits');
      await appendTaskLog(this.db, [
        { orgId: task.org_id, taskId: task.id, provider: 'worker', message: 'waits', detail: { worker: this.id }, quietAfterWait: true },
      ]);
    }
  }

  private async finish(task: TaskRow, status: 'done' | 'issues', result: Record<string, unknown>, fileId: string | null, error: string | null): Promise<void> {
    await this.db.tx(async (q) => {
      const ended = await q.query(
        `UPDATE tasks SET status = $3, progress = 100, result = $4, result_file_id = $5, error = $6, ended_at = now(), updated_at = now()
          WHERE id = $1 AND claimed_by = $2 AND status = 'processing' RETURNING id`,
        [task.id, this.id, status, JSON.stringify(result), fileId, error],
      );
      if (ended.rows.length) {
        this.log.info({ worker: this.id, task: task.id, status }, 'task finished');
        await this.handlers[task.kind]?.settle?.(q, task, { status, fileId, result });
        const rows = typeof result.rows === 'number' ? result.rows : null;
        await appendTaskLog(q, [
          {
            orgId: task.org_id,
            taskId: task.id,
            provider: 'worker',
            level: status === 'done' ? 'info' : 'error',
            message: status === 'done' ? 'finished' : 'finishedWithIssues',
            detail: { worker: this.id, ...(rows !== null ? { rows } : {}), ...(error ? { error } : {}) },
          },
        ]);
        // Who subscribed to hear of it (GET/PUT/POST /rest/subscribe/group) is told in the same transaction.
        await notifySubscribers(q, task, status);
      }
      await publishLive(q, { type: 'task', orgId: task.org_id, accountId: task.account_id, data: { id: task.id, status, progress: 100 } });
    });
    await this.onFinished?.().catch((err) => this.log.warn({ err, task: task.id }, 'after a task ended'));
  }
}
