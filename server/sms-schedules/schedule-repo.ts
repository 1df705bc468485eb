/**
 * The SQL of scheduled SMS (SPEC.md section 7, the customer service's /sms/task calls): schedules with their creator,
 * their runs, the messages each run sent, and their operation log. Every query names the organisation first.
 */
import type { Queryable } from '../db/db.js';
import { whereOf } from '../db/listing.js';
import type { ScheduleValues } from './schedule-rules.js';
import type { ScheduleRow } from './scheduler.js';

/** A stored schedule with its timestamps and who made it. */
export type ScheduleRecord = ScheduleRow & { created_at: Date | string; updated_at: Date | string; last_run_at: Date | string | null; creator?: string | null };

const SELECT = `SELECT s.*, nullif(trim(a.first_name || ' ' || a.last_name), '') AS creator
                  FROM sms_schedules s LEFT JOIN accounts a ON a.id = s.created_by`;

/** A schedule of the organisation (locked for the transaction when `lock`); undefined when it is not the organisation's. */
export async function scheduleOf(q: Queryable, orgId: string, id: string, lock = false): Promise<ScheduleRecord | undefined> {
  return (await q.query<ScheduleRecord>(`${SELECT} WHERE s.org_id = $1 AND s.id = $2${lock ? ' FOR UPDATE OF s' : ''}`, [orgId, id])).rows[0];
}

/** Whether the organisation has this schedule. */
export async function scheduleExists(q: Queryable, orgId: string, id: string): Promise<boolean> {
  return (await q.query('SELECT 1 FROM sms_schedules WHERE org_id = $1 AND id = $2', [orgId, id])).rows.length > 0;
}

/** The schedule list's filters (server/db/listing.ts). */
const SCHEDULE_FILTERS = {
  orgColumn: 's.org_id',
  filters: { name: { kind: 'substring', column: 's.name' }, status: { kind: 'eq', column: 's.status' }, mode: { kind: 'eq', column: 's.mode' } },
} as const;

/** A page of the organisation's schedules, newest first: by a part of the name, by status, by mode. */
export async function schedulePage(q: Queryable, orgId: string, f: { page: number; pageSize: number; name?: string; status?: string; mode?: string }) {
  const { sql: where, params } = whereOf(SCHEDULE_FILTERS, orgId, { name: f.name?.trim(), status: f.status, mode: f.mode });
  const total = (await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM sms_schedules s WHERE ${where}`, params)).rows[0].n;
  const rows = (
    await q.query<ScheduleRecord>(`${SELECT} WHERE ${where} ORDER BY s.created_at DESC, s.id LIMIT ${f.pageSize} OFFSET ${(f.page - 1) * f.pageSize}`, params)
  ).rows;
  return { rows, total };
}

/** A new schedule, enabled, with its first run. */
export async function insertSchedule(q: Queryable, orgId: string, id: string, v: ScheduleValues, nextRunAt: string | null, createdBy: string): Promise<void> {
  await q.query(
    `INSERT INTO sms_schedules (org_id, id, name, content, sms_type, mode, weekdays, send_time, timezone, start_at, end_at, never_ends,
                                target_iccids, email_notify, notify_emails, status, next_run_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 'enabled', $16, $17)`,
    [
      orgId,
      id,
      v.name,
      v.content,
      v.smsType,
      v.mode,
      v.weekdays,
      v.sendTime,
      v.timezone,
      v.startAt.toISOString(),
      v.endAt?.toISOString() ?? null,
      v.neverEnds,
      v.iccids,
      v.emailNotify,
      v.notifyEmails,
      nextRunAt,
      createdBy,
    ],
  );
}

/** Replace what a schedule stores, with its next run. */
export async function updateSchedule(q: Queryable, orgId: string, id: string, v: ScheduleValues, nextRunAt: string | null): Promise<void> {
  await q.query(
    `UPDATE sms_schedules SET name = $3, content = $4, sms_type = $5, mode = $6, weekdays = $7, send_time = $8, timezone = $9, start_at = $10, end_at = $11,
            never_ends = $12, target_iccids = $13, email_notify = $14, notify_emails = $15, next_run_at = $16, updated_at = now()
      WHERE org_id = $1 AND id = $2`,
    [
      orgId,
      id,
      v.name,
      v.content,
      v.smsType,
      v.mode,
      v.weekdays,
      v.sendTime,
      v.timezone,
      v.startAt.toISOString(),
      v.endAt?.toISOString() ?? null,
      v.neverEnds,
      v.iccids,
      v.emailNotify,
      v.notifyEmails,
      nextRunAt,
    ],
  );
}

/** Enable or disable a schedule, with its next run. */
export async function setScheduleStatus(q: Queryable, orgId: string, id: string, status: 'enabled' | 'disabled', nextRunAt: string | null): Promise<void> {
  await q.query(`UPDATE sms_schedules SET status = $3, next_run_at = $4, updated_at = now() WHERE org_id = $1 AND id = $2`, [orgId, id, status, nextRunAt]);
}

/** Delete a schedule. */
export async function deleteSchedule(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query('DELETE FROM sms_schedules WHERE org_id = $1 AND id = $2', [orgId, id]);
}

/** A schedule's last 100 runs, newest first. */
export async function scheduleRuns(q: Queryable, orgId: string, id: string) {
  return (
    await q.query<{ id: string; occurrence_at: Date; at: Date; ended_at: Date | null; status: string; targets: number; sent: number; failed: number }>(
      `SELECT id::text AS id, occurrence_at, at, ended_at, status, targets, sent, failed FROM sms_schedule_runs
        WHERE org_id = $1 AND schedule_id = $2 ORDER BY occurrence_at DESC LIMIT 100`,
      [orgId, id],
    )
  ).rows;
}

/** A page of the messages a schedule sent, newest first: of one run, of one status. */
export async function scheduleMessages(
  q: Queryable,
  orgId: string,
  f: { scheduleId: string; runId?: string; status?: string; page: number; pageSize: number },
) {
  const where = [`org_id = $1`, `schedule_id = $2`, `direction = 'MT'`];
  const params: unknown[] = [orgId, f.scheduleId];
  if (f.runId) {
    params.push(f.runId);
    where.push(`run_id = $${params.length}::bigint`);
  }
  if (f.status) {
    params.push(f.status);
    where.push(`status = $${params.length}`);
  }
  const total = (await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM sms_records WHERE ${where.join(' AND ')}`, params)).rows[0].n;
  const rows = (
    await q.query<Record<string, unknown>>(
      `SELECT id, run_id::text AS "runId", iccid, msisdn, content, sms_type AS "smsType", status, error, created_at AS "createdAt", sent_at AS "sentAt", delivered_at AS "deliveredAt"
         FROM sms_records WHERE ${where.join(' AND ')} ORDER BY created_at DESC, iccid LIMIT ${f.pageSize} OFFSET ${(f.page - 1) * f.pageSize}`,
      params,
    )
  ).rows;
  return { rows, total };
}

/** A page of a schedule's operation log (its audit rows), newest first, with who did each. */
export async function scheduleLog(q: Queryable, orgId: string, id: string, page: number, pageSize: number) {
  const params = [orgId, id];
  const where = `l.org_id = $1 AND l.entity = 'sms_schedule' AND l.entity_id = $2`;
  const total = (await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_log l WHERE ${where}`, params)).rows[0].n;
  const rows = (
    await q.query<{
      id: string;
      at: Date;
      action: string;
      before: Record<string, unknown> | null;
      after: Record<string, unknown> | null;
      actor: string | null;
      email: string | null;
    }>(
      `SELECT l.id::text AS id, l.at, l.action, l.before, l.after, nullif(trim(a.first_name || ' ' || a.last_name), '') AS actor, a.email
         FROM audit_log l LEFT JOIN accounts a ON a.id = l.account_id WHERE ${where} ORDER BY l.at DESC, l.id DESC LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
      params,
    )
  ).rows;
  return { rows, total };
}
