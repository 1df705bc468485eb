/**
 * The scheduled SMS scheduler (SPEC.md sections 3, 4 and 9). Every instance that runs jobs ticks it; the
 * database keeps the work single:
 *
 * 1. Due occurrences become run rows. Schedules whose next_run_at has come are locked (FOR UPDATE SKIP LOCKED), each
 *    due occurrence is inserted once (unique by schedule and occurrence), and next_run_at moves on (croner,
 *    ./recurrence.ts). An occurrence older than GRACE_MS when it is noticed (the servers were down) is recorded as
 *    skipped and not sent late.
 * 2. A running run is claimed with a lease (claimed_by, heartbeat_at), like a task of the job worker; an instance
 *    that stops renewing it loses it to another after the lease; one that is shut down gives it back between two SIMs,
 *    for another to go on with at once.
 * 3. The run sends in batches of BATCH targets, renewing its lease between batches. Each SIM's record is written
 *    (unique by run and ICCID) just before the network is asked, so a run taken over after a restart skips every SIM
 *    it already wrote: a record still pending from the stopped attempt may or may not have reached the network, so it
 *    is closed as failed ("interrupted") and never sent again. At most once, never twice (docs/decisions.md).
 * 4. The run ends with its counts; the schedule's last run is set, a once-only schedule stops executing, each
 *    chosen address gets a mail through the outbox, and the event log gets the run's `sms_schedule`/`run_finished`
 *    event (webhooks carry it, live pages hear of it), all in one transaction. A skipped occurrence's run ends at once,
 *    with its event in the transaction that records it.
 */
import type { FastifyBaseLogger } from 'fastify';
import { pickLanguage } from '../../common/limits.js';
import type { Db, Queryable } from '../db/db.js';
import { appendEvents, type NewEvent } from '../events/event-log.js';
import { newId } from '../db/ids.js';
import type { Mailer } from '../identity/mailer.js';
import type { NetworkAdapter, SimRef } from '../network/adapter.js';
import { countSms } from '../network-reports/network-reports.js';
import { SMS_RECEIVING_STATUSES, type SmsRefusal } from '../../common/sms.js';
import { refusalMessage } from '../sms/send.js';
import { returnSmsQuota, takeSmsQuota } from '../sms/quota.js';
import { scheduleText } from './messages.js';
import { nextOccurrence, type Recurrence } from './recurrence.js';
import { PollLoop } from '../job/poll-loop.js';
import { endedBefore, HandedBack } from '../job/hand-back.js';

/** A missed occurrence older than this when the scheduler sees it is skipped, not sent late (docs/decisions.md). */
export const GRACE_MS = 15 * 60_000;
/** Targets written and sent between two renewals of the lease. */
export const BATCH = 100;
/** At most this many missed occurrences of one schedule are recorded as skipped; beyond it the schedule jumps to now. */
const MAX_SKIPPED = 100;

export interface ScheduleRow {
  org_id: string;
  id: string;
  name: string;
  content: string;
  sms_type: 'text' | 'binary';
  mode: 'once' | 'repeated';
  weekdays: number[];
  send_time: string;
  timezone: string;
  start_at: Date | string;
  end_at: Date | string | null;
  never_ends: boolean;
  target_iccids: string[];
  email_notify: boolean;
  notify_emails: string[];
  status: 'enabled' | 'disabled';
  executing: boolean;
  next_run_at: Date | string | null;
  created_by: string | null;
}

const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/** The recurrence of a stored schedule. */
export function recurrenceOf(s: Pick<ScheduleRow, 'mode' | 'weekdays' | 'send_time' | 'timezone' | 'start_at' | 'end_at' | 'never_ends'>): Recurrence {
  return {
    mode: s.mode,
    weekdays: s.weekdays ?? [],
    sendTime: String(s.send_time).slice(0, 5),
    timezone: s.timezone,
    startAt: asDate(s.start_at),
    endAt: s.never_ends || !s.end_at ? null : asDate(s.end_at),
  };
}

/** The schedule's first occurrence at or after `from` (a start exactly now counts). */
export function firstOccurrence(s: Parameters<typeof recurrenceOf>[0], from: Date): Date | null {
  return nextOccurrence(recurrenceOf(s), new Date(from.getTime() - 1));
}

interface RunRow {
  id: string;
  org_id: string;
  schedule_id: string;
  occurrence_at: Date | string;
  iccids: string[];
  attempts: number;
}

export interface SchedulerOptions {
  leaseSeconds: number;
  /** The scheduler's notion of now (tests move it); the leases use the database's clock. */
  clock?: () => Date;
  batch?: number;
}

export class SmsScheduler extends PollLoop<void> {
  readonly id = `sms-scheduler-${newId(8)}`;
  /** Set once the run in progress is to be given back (the server stopping): it ends before its next SIM. */
  private handingBack = false;

  constructor(
    private readonly db: Db,
    private readonly network: Pick<NetworkAdapter, 'sendSms'>,
    private readonly mailer: Mailer,
    private readonly log: FastifyBaseLogger,
    private readonly opts: SchedulerOptions,
  ) {
    super(log, 'sms scheduler');
  }

  private now(): Date {
    return this.opts.clock?.() ?? new Date();
  }

  /** Turn due occurrences into runs, then execute every run that is free to claim (one tick at a time). */
  tick(): Promise<void> {
    return this.run();
  }

  protected async work(): Promise<void> {
    if (this.stopping) return;
    await this.materialise();
    while (!this.stopping && (await this.runOne())) {
      /* next run */
    }
  }

  /**
   * Start no new run; the run in progress may finish until `handBack` aborts, and then stops before its next SIM and is
   * given back (unclaimed, the attempt not counted), so the next instance goes on with the SIMs not yet sent at once.
   */
  override async stop(handBack?: AbortSignal): Promise<void> {
    const running = this.halt();
    if (await endedBefore(running, handBack)) return;
    this.handingBack = true;
    await running?.catch(() => undefined);
  }

  /** Step 1: due occurrences become run rows (or skipped ones), and next_run_at moves on. Returns the runs started. */
  async materialise(): Promise<number> {
    const now = this.now();
    return this.db.tx(async (q) => {
      const due = (
        await q.query<ScheduleRow>(
          `SELECT * FROM sms_schedules WHERE status = 'enabled' AND next_run_at IS NOT NULL AND next_run_at <= $1
            ORDER BY next_run_at LIMIT 50 FOR UPDATE SKIP LOCKED`,
          [now.toISOString()],
        )
      ).rows;
      let started = 0;
      for (const s of due) {
        const rec = recurrenceOf(s);
        let occ: Date | null = asDate(s.next_run_at!);
        let skipped = 0;
        let startedHere = false;
        while (occ && occ.getTime() <= now.getTime()) {
          const late = now.getTime() - occ.getTime() > GRACE_MS;
          if (late && skipped >= MAX_SKIPPED) {
            occ = nextOccurrence(rec, now);
            break;
          }
          const r = await q.query(
            `INSERT INTO sms_schedule_runs (org_id, schedule_id, occurrence_at, at, status, targets, iccids, detail, ended_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (schedule_id, occurrence_at) DO NOTHING RETURNING id`,
            [
              s.org_id,
              s.id,
              occ.toISOString(),
              late ? occ.toISOString() : now.toISOString(),
              late ? 'skipped' : 'running',
              s.target_iccids.length,
              late ? [] : s.target_iccids,
              JSON.stringify(late ? { reason: 'missed', graceMinutes: GRACE_MS / 60_000, noticedAt: now.toISOString() } : {}),
              late ? now.toISOString() : null,
            ],
          );
          if (r.rows.length) {
            if (late) {
              skipped++;
              await appendEvents(q, [
                runFinished({
                  orgId: s.org_id,
                  scheduleId: s.id,
                  scheduleName: s.name,
                  runId: String((r.rows[0] as { id: unknown }).id),
                  occurrenceAt: occ,
                  status: 'skipped',
                  targets: s.target_iccids.length,
                  sent: 0,
                  failed: 0,
                }),
              ]);
            } else {
              started++;
              startedHere = true;
            }
            this.log.info(
              { schedule: s.id, occurrence: occ.toISOString(), status: late ? 'skipped' : 'running' },
              late ? 'scheduled SMS occurrence missed: skipped' : 'scheduled SMS run started',
            );
          }
          occ = nextOccurrence(rec, occ);
        }
        await q.query(
          `UPDATE sms_schedules SET next_run_at = $2, executing = executing OR ($3 AND mode = 'once'),
                  last_run_at = CASE WHEN $4 THEN $5::timestamptz ELSE last_run_at END
            WHERE id = $1`,
          [s.id, occ?.toISOString() ?? null, startedHere, skipped > 0 && !startedHere, now.toISOString()],
        );
      }
      return started;
    });
  }

  /** Step 2: claim one open run (free, or its lease expired) and execute it; false when there was none. */
  async runOne(): Promise<boolean> {
    const run = (
      await this.db.query<RunRow & { previous: string | null }>(
        `WITH next AS (SELECT id, claimed_by AS previous FROM sms_schedule_runs
                         WHERE status = 'running' AND (claimed_by IS NULL OR heartbeat_at < now() - make_interval(secs => $2))
                         ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
         UPDATE sms_schedule_runs r SET claimed_by = $1, heartbeat_at = now(), attempts = r.attempts + 1
           FROM next WHERE r.id = next.id
         RETURNING r.id::text AS id, r.org_id, r.schedule_id, r.occurrence_at, r.iccids, r.attempts, next.previous`,
        [this.id, this.opts.leaseSeconds],
      )
    ).rows[0];
    if (!run) return false;
    if (run.previous)
      this.log.warn({ scheduler: this.id, run: run.id, from: run.previous, attempt: run.attempts }, 'scheduled SMS run taken over after its lease ran out');
    try {
      await this.execute(run);
    } catch (err) {
      if (err instanceof HandedBack) {
        await this.db.query(
          `UPDATE sms_schedule_runs SET claimed_by = NULL, heartbeat_at = NULL, attempts = greatest(attempts - 1, 0) WHERE id = $1 AND claimed_by = $2 AND status = 'running'`,
          [run.id, this.id],
        );
        this.log.info({ scheduler: this.id, run: run.id }, 'scheduled SMS run handed back: the server is stopping');
        return false;
      }
      if ((err as Error).message === 'lease lost') {
        this.log.warn({ scheduler: this.id, run: run.id }, 'scheduled SMS run lease lost to another instance');
        return true;
      }
      throw err;
    }
    return true;
  }

  /** Renew the lease; throws 'lease lost' when another instance holds the run now. */
  private async renew(runId: string): Promise<void> {
    const r = await this.db.query(`UPDATE sms_schedule_runs SET heartbeat_at = now() WHERE id = $1 AND claimed_by = $2 AND status = 'running' RETURNING id`, [
      runId,
      this.id,
    ]);
    if (!r.rows.length) throw new Error('lease lost');
  }

  private async execute(run: RunRow): Promise<void> {
    const s = (await this.db.query<ScheduleRow>('SELECT * FROM sms_schedules WHERE id = $1', [run.schedule_id])).rows[0];
    if (!s) return; // deleted meanwhile: its runs went with it
    // Records a stopped attempt wrote but never confirmed: they may have reached the network, so they are not sent again.
    await this.db.query(
      `UPDATE sms_records SET status = 'failed', error = 'Interrupted by a restart before the network confirmed it; not sent again'
        WHERE org_id = $1 AND run_id = $2 AND status = 'pending'`,
      [run.org_id, run.id],
    );
    const batch = this.opts.batch ?? BATCH;
    for (let i = 0; i < run.iccids.length; i += batch) {
      await this.renew(run.id);
      await this.sendBatch(run, s, run.iccids.slice(i, i + batch));
    }
    await this.renew(run.id);
    await this.finish(run, s);
  }

  /**
   * Send to a batch of targets, one SIM at a time: its record is written (once per run and ICCID) just before the
   * network is asked, so a stop between the two leaves at most one message of an instance in doubt.
   */
  private async sendBatch(run: RunRow, s: ScheduleRow, iccids: string[]): Promise<void> {
    const sims = new Map(
      (
        await this.db.query<{ id: string; iccid: string; imsi: string | null; msisdn: string | null; status: string }>(
          'SELECT id, iccid, imsi, msisdn, status FROM sims WHERE org_id = $1 AND iccid = ANY($2::text[])',
          [run.org_id, iccids],
        )
      ).rows.map((r) => [r.iccid, r]),
    );
    const done = new Set(
      (await this.db.query<{ iccid: string }>('SELECT iccid FROM sms_records WHERE run_id = $1 AND iccid = ANY($2::text[])', [run.id, iccids])).rows.map(
        (r) => r.iccid,
      ),
    );
    for (const iccid of iccids) {
      if (this.handingBack) throw new HandedBack();
      if (done.has(iccid)) continue;
      const sim = sims.get(iccid);
      const id = newId();
      // The record and its quota unit in one transaction (server/sms/quota.ts): a SIM transferred away since the
      // schedule was saved, one whose state cannot receive SMS, or an exhausted quota fails by name, as an instant send
      // does (server/sms/send.ts).
      const written = await this.db.tx(async (q) => {
        let refusal: SmsRefusal | null = !sim ? 'notExist' : SMS_RECEIVING_STATUSES.includes(sim.status) ? null : (sim.status as SmsRefusal);
        const r = await q.query(
          `INSERT INTO sms_records (org_id, id, sim_id, iccid, msisdn, direction, content, sms_type, status, schedule_id, run_id, error)
           VALUES ($1, $2, $3, $4, $5, 'MT', $6, $7, 'pending', $8, $9, NULL)
           ON CONFLICT (run_id, iccid) WHERE run_id IS NOT NULL DO NOTHING RETURNING id`,
          [run.org_id, id, sim?.id ?? null, iccid, sim?.msisdn ?? null, s.content, s.sms_type, s.id, run.id],
        );
        if (!r.rows.length) return false;
        if (!refusal && (await takeSmsQuota(q, run.org_id, 1)).granted === 0) refusal = 'quotaExhausted';
        if (refusal)
          await q.query(`UPDATE sms_records SET status = 'failed', error = $3 WHERE org_id = $1 AND id = $2`, [
            run.org_id,
            id,
            refusalMessage('en-US', refusal),
          ]);
        return !refusal;
      });
      if (!written || !sim) continue;
      const ref: SimRef = { orgId: run.org_id, simId: sim.id, iccid, imsi: sim.imsi, msisdn: sim.msisdn };
      const answer = await this.network.sendSms(ref, { id, content: s.content }).catch((err: Error) => ({ iccid, ok: false, error: err.message }));
      await this.db.tx(async (q) => {
        if (!answer.ok) {
          // Never sent: its unit goes back, as in an instant send.
          await q.query(`UPDATE sms_records SET status = 'failed', error = $3 WHERE org_id = $1 AND id = $2`, [
            run.org_id,
            id,
            answer.error ?? refusalMessage('en-US', 'network'),
          ]);
          await returnSmsQuota(q, run.org_id, 1);
          return;
        }
        const at = new Date();
        await q.query(`UPDATE sms_records SET status = 'sent', sent_at = $3 WHERE org_id = $1 AND id = $2 AND status = 'pending'`, [
          run.org_id,
          id,
          at.toISOString(),
        ]);
        await countSms(q, { orgId: run.org_id, simId: sim.id, iccid, direction: 'MT', at });
      });
    }
  }

  /** Step 4: counts, the schedule's state and the notification mails, in one transaction, once. */
  private async finish(run: RunRow, s: ScheduleRow): Promise<void> {
    await this.db.tx(async (q) => {
      const c = (
        await q.query<{ sent: number; failed: number }>(
          `SELECT count(*) FILTER (WHERE status IN ('sent', 'delivered'))::int AS sent, count(*) FILTER (WHERE status NOT IN ('sent', 'delivered'))::int AS failed
             FROM sms_records WHERE org_id = $1 AND run_id = $2`,
          [run.org_id, run.id],
        )
      ).rows[0];
      const status = c.failed === 0 ? 'done' : c.sent === 0 ? 'failed' : 'partial';
      const ended = await q.query<{ at: Date | string; targets: number }>(
        `UPDATE sms_schedule_runs SET status = $3, sent = $4, failed = $5, ended_at = now(), claimed_by = NULL
          WHERE id = $1 AND claimed_by = $2 AND status = 'running' RETURNING at, targets`,
        [run.id, this.id, status, c.sent, c.failed],
      );
      if (!ended.rows.length) throw new Error('lease lost');
      await appendEvents(q, [
        runFinished({
          orgId: run.org_id,
          scheduleId: s.id,
          scheduleName: s.name,
          runId: String(run.id),
          occurrenceAt: asDate(run.occurrence_at),
          status,
          targets: run.iccids.length,
          sent: c.sent,
          failed: c.failed,
        }),
      ]);
      const open = await q.query(`SELECT 1 FROM sms_schedule_runs WHERE schedule_id = $1 AND status = 'running' LIMIT 1`, [s.id]);
      await q.query(`UPDATE sms_schedules SET last_run_at = greatest(coalesce(last_run_at, $2), $2), executing = $3 WHERE id = $1`, [
        s.id,
        asDate(ended.rows[0].at).toISOString(),
        open.rows.length > 0,
      ]);
      this.log.info({ scheduler: this.id, run: run.id, schedule: s.id, status, sent: c.sent, failed: c.failed }, 'scheduled SMS run finished');
      if (s.email_notify && s.notify_emails.length) await this.notify(q, s, run, { status, sent: c.sent, failed: c.failed });
    });
  }

  private async notify(q: Queryable, s: ScheduleRow, run: RunRow, c: { status: string; sent: number; failed: number }): Promise<void> {
    const owner = s.created_by ? (await q.query<{ locale: string }>('SELECT locale FROM accounts WHERE id = $1', [s.created_by])).rows[0] : undefined;
    const lang = pickLanguage(owner?.locale);
    const params = {
      name: s.name,
      at: asDate(run.occurrence_at).toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
      targets: run.iccids.length,
      sent: c.sent,
      failed: c.failed,
      status: scheduleText(lang, `mail.scheduleStatus.${c.status}`),
    };
    for (const to of s.notify_emails) {
      await this.mailer.send(
        { to, kind: 'notice', subject: scheduleText(lang, 'mail.scheduleRunSubject', params), text: scheduleText(lang, 'mail.scheduleRunBody', params) },
        q,
      );
    }
  }
}

/** The event of a run's end (`sms_schedule`/`run_finished`): its counts; `skipped` are targets that got no message. */
export function runFinished(r: {
  orgId: string;
  scheduleId: string;
  scheduleName: string;
  runId: string;
  occurrenceAt: Date;
  status: string;
  targets: number;
  sent: number;
  failed: number;
}): NewEvent {
  return {
    orgId: r.orgId,
    type: 'sms_schedule',
    subtype: 'run_finished',
    subject: r.scheduleId,
    data: {
      scheduleId: r.scheduleId,
      scheduleName: r.scheduleName,
      runId: r.runId,
      occurrenceAt: r.occurrenceAt.toISOString(),
      status: r.status,
      targets: r.targets,
      sent: r.sent,
      failed: r.failed,
      skipped: Math.max(0, r.targets - r.sent - r.failed),
    },
  };
}
