/**
 * The SQL of a scheduled SMS's reports (its MT messages, the devices' MO answers, its target SIMs): each report's
 * columns and query, counted before the job is queued and read through a cursor by the job. $1 is the organisation,
 * $2 the schedule, $3 a run or null.
 */
import { LIMITS } from '../../common/limits.js';
import { readCursor, type Queryable } from '../db/db.js';

export type Report = 'mt' | 'mo' | 'sims';

/** Each report's columns (labels under reports.columns in ./messages.ts) and its query: $1 org, $2 schedule, $3 run or null. */
export const REPORTS: Record<Report, { columns: string[]; from: string; select: string }> = {
  mt: {
    columns: ['runAt', 'iccid', 'msisdn', 'content', 'status', 'error', 'sentAt', 'deliveredAt'],
    from: `sms_records r LEFT JOIN sms_schedule_runs u ON u.id = r.run_id
            WHERE r.org_id = $1 AND r.schedule_id = $2 AND r.direction = 'MT' AND ($3::bigint IS NULL OR r.run_id = $3::bigint)`,
    select: `coalesce(u.occurrence_at, r.created_at) AS "runAt", r.iccid, r.msisdn, r.content, r.status, r.error, r.sent_at AS "sentAt", r.delivered_at AS "deliveredAt"`,
  },
  mo: {
    columns: ['receivedAt', 'iccid', 'msisdn', 'content', 'inReplyTo'],
    from: `sms_records m JOIN sms_records r ON r.org_id = m.org_id AND r.id = m.reply_to_id
            WHERE m.org_id = $1 AND m.direction = 'MO' AND r.schedule_id = $2 AND ($3::bigint IS NULL OR r.run_id = $3::bigint)`,
    select: `m.created_at AS "receivedAt", m.iccid, m.msisdn, m.content, r.content AS "inReplyTo"`,
  },
  sims: {
    columns: ['iccid', 'msisdn', 'deviceName', 'simStatus'],
    from: `sms_schedules s CROSS JOIN LATERAL unnest(s.target_iccids) WITH ORDINALITY AS t(iccid, n)
            LEFT JOIN sims m ON m.org_id = s.org_id AND m.iccid = t.iccid
            WHERE s.org_id = $1 AND s.id = $2 AND $3::bigint IS NULL`,
    select: `t.iccid, m.msisdn, m.device_name AS "deviceName", m.status AS "simStatus"`,
  },
};
const ORDER: Record<Report, string> = { mt: 'ORDER BY 1 DESC, 2', mo: 'ORDER BY 1 DESC, 2', sims: 'ORDER BY t.n' };

/** How many rows a report has. */
export async function reportRowCount(q: Queryable, report: Report, orgId: string, scheduleId: string, runId: string | null): Promise<number> {
  return (await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${REPORTS[report].from}`, [orgId, scheduleId, runId])).rows[0].n;
}

/** A report's rows in its order, at most the export maximum, a batch at a time. */
export async function readReportRows(
  db: Queryable,
  report: Report,
  orgId: string,
  scheduleId: string,
  runId: string | null,
  onRows: (rows: Array<Record<string, unknown>>) => Promise<void>,
): Promise<void> {
  const def = REPORTS[report];
  await readCursor<Record<string, unknown>>(
    db,
    `SELECT ${def.select} FROM ${def.from} ${ORDER[report]} LIMIT ${LIMITS.exportMax}`,
    [orgId, scheduleId, runId],
    1000,
    onRows,
  );
}
