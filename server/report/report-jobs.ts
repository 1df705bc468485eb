/**
 * Monthly reports (SPEC.md section 7, Reports; section 9: made on the 5th to 8th of each month, UTC+8) as durable
 * jobs: a `report` task writes one report of one organisation and month as CSV from the rollups (never the CDRs),
 * with the organisation's enabled preference columns in their order, and the reports row follows the task in the
 * transaction that ends it (JobHandler.settle). The scheduler creates last month's reports once, whichever instance
 * runs it first (the unique index on (org_id, report, period) decides).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Language } from '../../common/limits.js';
import { RESOURCES } from '../../common/resource-registry.js';
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../db/ids.js';
import { consoleLabel } from '../http/labels.js';
import { publishLive } from '../live/hub.js';
import { startPeriodic } from '../job/periodic.js';
import { csvWriter } from '../job/table-writers.js';
import type { FileStore } from '../job/storage.js';
import type { JobHandler } from '../job/worker.js';
import { taskReference } from '../job/task-reference.js';
import { insertTask } from '../job/task-repo.js';

export const REPORT_KINDS = RESOURCES.reports.properties.report.enum as readonly string[] as readonly ReportKind[];
export type ReportKind = 'monthly_usage' | 'sim_inventory' | 'sms_usage' | 'bundle_usage' | 'pool_usage';
const ALL_COLUMNS = RESOURCES.reportColumns.properties.columnKey.enum as readonly string[];

/** Scheduled reports carry English headers: nobody asked for them, so there is no requester's language. */
export const SCHEDULED_LANGUAGE: Language = 'en-US';

/** The days of the month (UTC+8) on which the scheduler makes last month's reports. */
export const REPORT_DAYS = { first: 5, last: 8 } as const;

const UTC8_MS = 8 * 3600_000;
/** A report's file type. */
export const REPORT_CONTENT_TYPE = 'text/csv; charset=utf-8';
const PAGE = 1000;

// Columns that describe the SIM as it is when the report is made: they apply to every per-SIM report.
const SIM_ATTRIBUTES = ['iccid', 'imsi', 'msisdn', 'imei', 'device_name', 'status', 'network', 'expires_at'];
/** Which preference columns each report can fill; the others are left out of its file (docs/decisions.md). */
export const REPORT_COLUMNS: Record<ReportKind, readonly string[]> = {
  monthly_usage: [...SIM_ATTRIBUTES, 'usage_kb'],
  sim_inventory: [...SIM_ATTRIBUTES, 'bundle'],
  sms_usage: [...SIM_ATTRIBUTES, 'sms_mo', 'sms_mt'],
  bundle_usage: [...SIM_ATTRIBUTES, 'bundle', 'usage_kb'],
  pool_usage: ['status', 'bundle', 'usage_kb'],
};

/** The UTC+8 calendar date of an instant. */
function utc8(now: Date): { y: number; m: number; d: number } {
  const t = new Date(now.getTime() + UTC8_MS);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

/** The month `now` falls in (UTC+8), as 'YYYY-MM'. */
export function periodOf(now: Date): string {
  const { y, m } = utc8(now);
  return `${y}-${String(m).padStart(2, '0')}`;
}

/** The month before the one `now` falls in (UTC+8), as 'YYYY-MM'. */
export function previousPeriod(now: Date): string {
  const { y, m } = utc8(now);
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

/** Whether `now` is on the 5th to 8th of its month in UTC+8. */
export function inReportWindow(now: Date): boolean {
  const { d } = utc8(now);
  return d >= REPORT_DAYS.first && d <= REPORT_DAYS.last;
}

/** A period's bounds: the UTC+8 month as instants, and its first days (the rollups' keys). */
export function periodBounds(period: string) {
  const [y, m] = period.split('-').map(Number);
  const day = (yy: number, mm: number) => new Date(Date.UTC(yy, mm - 1, 1)).toISOString().slice(0, 10);
  const next = m === 12 ? [y + 1, 1] : [y, m + 1];
  return {
    start: new Date(Date.UTC(y, m - 1, 1) - UTC8_MS).toISOString(),
    end: new Date(Date.UTC(next[0], next[1] - 1, 1) - UTC8_MS).toISOString(),
    month: day(y, m),
    nextMonth: day(next[0], next[1]),
  };
}

/** Queue the task that makes a report whose row is (now) pending; in the caller's transaction. */
export async function queueReportTask(
  q: Queryable,
  r: { orgId: string; reportId: string; report: ReportKind; period: string; accountId: string | null; lang: Language },
): Promise<string> {
  const taskId = newId();
  const referenceId = taskReference('report', new Date());
  await insertTask(q, {
    orgId: r.orgId,
    id: taskId,
    accountId: r.accountId,
    referenceId,
    kind: 'report',
    quantity: 0,
    remark: `${r.report} · ${r.period}`,
    payload: { reportId: r.reportId, report: r.report, period: r.period, lang: r.lang },
  });
  await publishLive(q, { type: 'task', orgId: r.orgId, accountId: r.accountId, data: { id: taskId, status: 'processing', progress: 0 } });
  return taskId;
}

/**
 * Create last month's five reports for every organisation whose brand has reports enabled, once: only on the 5th to
 * 8th (UTC+8), only the rows still missing, each inserted with ON CONFLICT DO NOTHING and given a task only when this
 * call inserted it, so any number of instances may run it at once. Returns how many reports it created.
 */
export async function scheduleReports(db: Db, now: Date = new Date()): Promise<number> {
  if (!inReportWindow(now)) return 0;
  const period = previousPeriod(now);
  const missing = (
    await db.query<{ org_id: string; report: ReportKind }>(
      `SELECT o.id AS org_id, k.report FROM organisations o JOIN brands b ON b.id = o.brand_id AND b.reports_enabled
         CROSS JOIN unnest($2::text[]) AS k(report)
        WHERE NOT EXISTS (SELECT 1 FROM reports r WHERE r.org_id = o.id AND r.report = k.report AND r.period = $1)
        ORDER BY o.id, k.report`,
      [period, REPORT_KINDS],
    )
  ).rows;
  let created = 0;
  for (const m of missing) {
    created += await db.tx(async (q) => {
      const id = newId();
      const inserted = await q.query(
        `INSERT INTO reports (org_id, id, report, period, status) VALUES ($1, $2, $3, $4, 'pending')
         ON CONFLICT (org_id, report, period) DO NOTHING RETURNING id`,
        [m.org_id, id, m.report, period],
      );
      if (!inserted.rows.length) return 0;
      await queueReportTask(q, { orgId: m.org_id, reportId: id, report: m.report, period, accountId: null, lang: SCHEDULED_LANGUAGE });
      return 1;
    });
  }
  return created;
}

/** Run the scheduler now and then every `everyMs`; returns the stop function (which waits for a run in progress). */
export function startReportScheduler(db: Db, log: FastifyBaseLogger, everyMs = 10 * 60_000): (handBack?: AbortSignal) => Promise<void> {
  return startPeriodic(log, 'report scheduler', everyMs, async () => {
    const n = await scheduleReports(db);
    if (n) log.info({ reports: n }, 'monthly reports scheduled');
  });
}

/** The organisation's enabled preference columns in their order; an organisation without preferences gets all. */
async function enabledColumns(db: Queryable, orgId: string): Promise<string[]> {
  const rows = (
    await db.query<{ column_key: string; enabled: boolean }>(
      'SELECT column_key, enabled FROM report_preferences WHERE org_id = $1 ORDER BY position, column_key',
      [orgId],
    )
  ).rows;
  return rows.length ? rows.filter((r) => r.enabled).map((r) => r.column_key) : [...ALL_COLUMNS];
}

/** The columns of one report: the enabled ones it can fill, or the ICCID when none of them applies. */
export function reportColumns(report: ReportKind, enabled: readonly string[]): string[] {
  const cols = enabled.filter((c) => REPORT_COLUMNS[report].includes(c));
  return cols.length || report === 'pool_usage' ? cols : ['iccid'];
}

const SIM_SELECT = `s.imsi, s.msisdn, s.imei, s.device_name, s.status, s.network, s.expires_at`;

type Bounds = ReturnType<typeof periodBounds>;
/** Each report's query: one page of rows after key $2, ordered by key k (the ICCID, or the pool's id), and its parameters. */
const QUERIES: Record<ReportKind, { sql: string; params: (b: Bounds) => string[] }> = {
  // $3: the month (UTC+8), usage_sim_monthly's key.
  monthly_usage: {
    sql: `SELECT u.iccid AS k, u.iccid, ${SIM_SELECT}, u.volume_kb AS usage_kb
            FROM usage_sim_monthly u LEFT JOIN sims s ON s.id = u.sim_id
           WHERE u.org_id = $1 AND u.month = $3::date AND u.iccid > $2 ORDER BY u.iccid LIMIT ${PAGE}`,
    params: (b) => [b.month],
  },
  // The SIMs as they are when the report is made, with the bundles in use then.
  sim_inventory: {
    sql: `SELECT s.iccid AS k, s.iccid, ${SIM_SELECT},
                 (SELECT string_agg(b.name, '; ' ORDER BY b.name) FROM bundle_orders b WHERE b.org_id = s.org_id AND b.sim_id = s.id AND b.status = 'IN_USE') AS bundle
            FROM sims s WHERE s.org_id = $1 AND s.iccid > $2 ORDER BY s.iccid LIMIT ${PAGE}`,
    params: () => [],
  },
  // usage_daily has UTC days: the month's days from $3 up to $4.
  sms_usage: {
    sql: `SELECT d.iccid AS k, d.iccid, ${SIM_SELECT}, sum(d.sms_mo) AS sms_mo, sum(d.sms_mt) AS sms_mt
            FROM usage_daily d LEFT JOIN sims s ON s.id = d.sim_id
           WHERE d.org_id = $1 AND d.day >= $3::date AND d.day < $4::date AND d.iccid > $2
           GROUP BY d.iccid, s.id HAVING sum(d.sms_mo) + sum(d.sms_mt) > 0 ORDER BY d.iccid LIMIT ${PAGE}`,
    params: (b) => [b.month, b.nextMonth],
  },
  // Orders in effect at some moment of the UTC+8 month ($3 to $4), with their used volume.
  bundle_usage: {
    sql: `SELECT b.iccid AS k, b.iccid, ${SIM_SELECT}, string_agg(b.name, '; ' ORDER BY b.name) AS bundle, sum(b.used_kb) AS usage_kb
            FROM bundle_orders b LEFT JOIN sims s ON s.id = b.sim_id
           WHERE b.org_id = $1 AND b.iccid > $2 AND b.status <> 'CANCELLED' AND b.activated_at < $4::timestamptz
             AND (b.expired_at IS NULL OR b.expired_at >= $3::timestamptz)
           GROUP BY b.iccid, s.id ORDER BY b.iccid LIMIT ${PAGE}`,
    params: (b) => [b.start, b.end],
  },
  // Pools in effect in the month; their members at some moment of it ($3 to $4) and those members' usage of the month ($5).
  pool_usage: {
    sql: `SELECT p.id AS k, p.name, p.status, p.bundle_name AS bundle, count(m.sim_id)::int AS sims, coalesce(sum(u.volume_kb), 0) AS usage_kb
            FROM shared_pools p
            LEFT JOIN pool_members m ON m.org_id = p.org_id AND m.pool_id = p.id AND m.joined_at < $4::timestamptz AND (m.left_at IS NULL OR m.left_at >= $3::timestamptz)
            LEFT JOIN usage_sim_monthly u ON u.org_id = m.org_id AND u.month = $5::date AND u.sim_id = m.sim_id
           WHERE p.org_id = $1 AND p.id > $2 AND p.effective_from < $6::date
           GROUP BY p.id ORDER BY p.id LIMIT ${PAGE}`,
    params: (b) => [b.start, b.end, b.month, b.nextMonth],
  },
};

/** What a report's file holds: its storage key and name, and its rows (the header not counted). */
export interface WrittenReport {
  key: string;
  name: string;
  rows: number;
}

/**
 * Write one report of one organisation and month as CSV under `folder` (a draft until the caller publishes it), with
 * the organisation's enabled preference columns in their order and headers in `lang`. The report job writes through
 * this, and so does the demo seed for the reports it lists (server/db/seed-files.ts).
 */
export async function writeReport(
  db: Queryable,
  store: FileStore,
  r: { orgId: string; report: ReportKind; period: string; lang: Language; folder: string },
  progress: (percent: number) => Promise<void> = async () => undefined,
): Promise<WrittenReport> {
  const { report, period, lang } = r;
  const label = (key: string, fallback: string) => consoleLabel(lang, key) ?? fallback;
  const columns = reportColumns(report, await enabledColumns(db, r.orgId));
  const header = columns.map((c) => label(`reportColumns.enum.columnKey.${c}`, c) + (c === 'usage_kb' ? ' (KB)' : ''));
  const pool = report === 'pool_usage';
  if (pool) header.unshift(label('pools.fields.name', 'Pool'), label('pools.fields.totalSims', 'SIMs'));
  await store.discardDrafts(r.folder);
  const name = `${report}-${period}.csv`;
  const key = `${r.folder}/${name}`;
  const writer = csvWriter(store.draft(key));
  await writer.header(header);
  const b = periodBounds(period);
  const cell = (c: string, v: unknown): string | number | null => {
    if (v === null || v === undefined) return null;
    if (c === 'status') return label(`${pool ? 'pools' : 'sims'}.enum.status.${String(v)}`, String(v));
    if (v instanceof Date) return v.toISOString();
    return typeof v === 'number' ? v : String(v);
  };
  let after = '';
  let rows = 0;
  for (;;) {
    const page = (await db.query<Record<string, unknown> & { k: string }>(QUERIES[report].sql, [r.orgId, after, ...QUERIES[report].params(b)])).rows;
    for (const row of page) {
      await writer.row([...(pool ? [String(row.name), Number(row.sims)] : []), ...columns.map((c) => cell(c, row[c]))]);
    }
    rows += page.length;
    if (page.length < PAGE) break;
    after = page[page.length - 1].k;
    await progress(50);
  }
  await writer.end();
  return { key, name, rows };
}

/** The job that makes one report. */
export const reportJob: JobHandler = Object.assign(
  async ({ db, store, task, progress }: Parameters<JobHandler>[0]) => {
    const { report, period, lang } = task.payload as { report: ReportKind; period: string; lang: Language };
    const made = await writeReport(db, store, { orgId: task.org_id, report, period, lang, folder: `${task.org_id}/reports/${task.id}` }, progress);
    return { file: { key: made.key, name: made.name, contentType: REPORT_CONTENT_TYPE, kind: 'report' as const }, result: { rows: made.rows, report, period } };
  },
  {
    // The report follows its task in the same transaction: ready with the published file, or failed.
    // The task's quantity is the report's rows: unknown when it was queued (0), known once the file is written.
    settle: async (
      q: Queryable,
      task: Parameters<JobHandler>[0]['task'],
      out: { status: 'done' | 'issues'; fileId: string | null; result: Record<string, unknown> },
    ) => {
      const { reportId } = task.payload as { reportId: string };
      if (out.status === 'done' && out.fileId) {
        await q.query('UPDATE tasks SET quantity = $2 WHERE id = $1', [task.id, Number(out.result.rows ?? 0)]);
        await q.query(`UPDATE reports SET status = 'ready', file_id = $3, row_count = $4, updated_at = now() WHERE org_id = $1 AND id = $2`, [
          task.org_id,
          reportId,
          out.fileId,
          Number(out.result.rows ?? 0),
        ]);
      } else {
        await q.query(`UPDATE reports SET status = 'failed', updated_at = now() WHERE org_id = $1 AND id = $2`, [task.org_id, reportId]);
      }
    },
  },
);

export const REPORT_JOBS: Record<string, JobHandler> = { report: reportJob };
